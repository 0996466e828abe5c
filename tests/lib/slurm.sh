# SPDX-License-Identifier: BSD-2-Clause
# A one-host Slurm cluster for the tests: munge (started when not running), then
# slurmctld and slurmd on a configuration of our own in $T/slurm, on ports of our
# own, as root; slurm_down (run at exit) stops both daemons.
SLURM_DIR=
SLURM_PIDS=()

slurm_down() {
	local p
	for p in "${SLURM_PIDS[@]}"; do
		kill "$p" 2>/dev/null
	done
	for p in "${SLURM_PIDS[@]}"; do
		timeout 10 tail --pid="$p" -f /dev/null 2>/dev/null
		kill -9 "$p" 2>/dev/null
	done
	SLURM_PIDS=()
}

# slurm_up NCPUS: the cluster, its one node idle (bounded wait); exports SLURM_CONF.
slurm_up() {
	local host port i
	for i in slurmctld slurmd srun munged; do
		command -v "$i" >/dev/null || fail "$i is missing (tools/bootstrap --test installs slurmctld, slurmd, slurm-client, munge)"
	done
	if ! pgrep -x munged >/dev/null; then
		mkdir -p /run/munge /var/log/munge /var/lib/munge
		[ -f /etc/munge/munge.key ] || mungekey -c >/dev/null 2>&1 ||
			dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 2>/dev/null
		chown -R munge: /etc/munge /run/munge /var/log/munge /var/lib/munge 2>/dev/null
		chmod 0400 /etc/munge/munge.key
		munged --force 2>"$T/munged.err" || fail "munged does not start: $(cat "$T/munged.err")"
	fi
	SLURM_DIR=$T/slurm
	mkdir -p "$SLURM_DIR/state" "$SLURM_DIR/spool"
	host=$(hostname -s)
	port=$((17000 + RANDOM % 2000 * 2))
	cat >"$SLURM_DIR/slurm.conf" <<CONF
ClusterName=rbtest
SlurmctldHost=$host
SlurmUser=root
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
StateSaveLocation=$SLURM_DIR/state
SlurmdSpoolDir=$SLURM_DIR/spool
SlurmctldPidFile=$SLURM_DIR/slurmctld.pid
SlurmdPidFile=$SLURM_DIR/slurmd.pid
SlurmctldLogFile=$SLURM_DIR/slurmctld.log
SlurmdLogFile=$SLURM_DIR/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SwitchType=switch/none
MpiDefault=pmix
ReturnToService=2
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
SlurmdParameters=config_overrides
NodeName=$host CPUs=$1 State=UNKNOWN
PartitionName=rbtest Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
CONF
	export SLURM_CONF=$SLURM_DIR/slurm.conf
	slurmctld -D -f "$SLURM_CONF" >"$SLURM_DIR/ctld.out" 2>&1 &
	SLURM_PIDS+=($!)
	slurmd -D -f "$SLURM_CONF" >"$SLURM_DIR/d.out" 2>&1 &
	SLURM_PIDS+=($!)
	wait_for_cmd 60 'sinfo -h -o %T 2>/dev/null | grep -qx idle' ||
		fail "the one-host Slurm cluster did not come up: $(tail -n 5 "$SLURM_DIR"/*.log 2>/dev/null)"
}

# wait_for_cmd SECONDS SHELL-CONDITION: until it holds (bounded); 1 on timeout.
wait_for_cmd() {
	local end=$((SECONDS + $1))
	while ((SECONDS < end)); do
		eval "$2" && return 0
		sleep 0.5
	done
	eval "$2"
}

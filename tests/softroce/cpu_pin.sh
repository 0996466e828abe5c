#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# CPU placement: a verbs tool runs every thread on the CPUs of its buffers' NUMA node
# (the NIC's, or --numa-node), says so in its header, and leaves a caller's own
# binding (taskset, numactl) alone. rxe's device has no NUMA node: nothing is pinned.
# The VM has two nodes (tools/softroce); the kernel's Cpus_allowed_list of every
# thread is the counter the tool did not compute.
source "$(dirname "$0")/lib.sh"
[ -d /sys/devices/system/node/node1 ] || { echo "SKIP: needs two NUMA nodes (tools/softroce vm mode)"; exit 77; }
node1=$(cat /sys/devices/system/node/node1/cpulist)
all=$(cat /sys/devices/system/cpu/online)

# allowed PID: every thread's Cpus_allowed_list, distinct values, comma-joined.
allowed() {
	awk '/^Cpus_allowed_list:/ { print $2 }' /proc/"$1"/task/*/status 2>/dev/null | sort -u | paste -sd,
}

# check WANT_HEADER WANT_CPUS [PREFIX...] -- ARGS...: both ends (under PREFIX, e.g.
# taskset) until SIGINT (the client runs --run_infinitely: a slow guest may take
# longer to look than a timed run lasts); once both printed their headers, every
# thread of both is allowed exactly WANT_CPUS.
check() {
	local header=$1 want=$2 pre=() s c got
	shift 2
	while [ "$1" != -- ]; do pre+=("$1"); shift; done
	shift
	P=$((P + 1))
	timeout 120 "${pre[@]}" "$BW" -d "$RB_DEV" -p "$P" --allow-infinite "$@" >"$T/srv.out" 2>"$T/srv.err" &
	SRV=$!
	timeout 120 "${pre[@]}" "$BW" -d "$RB_DEV_PEER" -p "$P" -s 64 --run_infinitely "$@" 127.0.0.1 \
		>"$T/cli.out" 2>"$T/cli.err" &
	CLI=$!
	wait_for "$T/cli.out" "QP timeout" 60 && wait_for "$T/srv.out" "QP timeout" 60 ||
		fail "[$*] the run never got established"
	s=$(tool_pid "$SRV") c=$(tool_pid "$CLI")
	[ -n "$s" ] && [ -n "$c" ] || fail "[$*] cannot find the tools' processes (server '$s', client '$c')"
	for pid in "$s" "$c"; do
		got=$(allowed "$pid")
		[ "$got" = "$want" ] || fail "[${pre[*]} $*] pid $pid's threads may run on CPUs '$got', expected '$want'"
	done
	kill -INT "$CLI" # timeout(1) passes it on
	wait_client
	wait_server
	expect_rc "client [$*]" "$CRC" 130
	expect_rc "server [$*]" "$SRC" 1
	expect_grep "$T/cli.out" "^ CPU affinity   : $header"
	expect_grep "$T/srv.out" "^ CPU affinity   : $header"
	echo "ok: ${pre[*]} $* -> $(grep '^ CPU affinity' "$T/cli.out" | cut -c 19-)"
}

check "CPUs $node1 \(NUMA node 1\)" "$node1" -- --numa-node 1
check "CPUs $all \(not pinned: no NUMA node known\)" "$all" --
check "CPUs 0, kept \(narrower than the machine: taskset, numactl or a cpuset\)" 0 taskset -c 0 -- --numa-node 1
pass "every thread on its buffers' node; a caller's binding kept; nothing pinned without a node"

# SPDX-License-Identifier: BSD-2-Clause
# Helpers for the softroce suite. Each test runs where tools/softroce brought up
# rxe devices: RB_DEV (server end) and RB_DEV_PEER (client end).
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
# Outside the harness there is no device to run on: a skip (77) that says why, not a failure.
if [ -z "${RB_DEV:-}" ]; then
	echo "SKIP: no rxe device (RB_DEV unset): run the softroce suite through tools/softroce, e.g. ./tools/test --suite softroce"
	exit 77
fi
BW=$RB_BUILD/src/rc_write_bw
LAT=$RB_BUILD/src/rc_write_lat
FP=$RB_BUILD/src/fifo_pingpong
# Below the ephemeral range (32768 and up), with room for a test's P + 1000 proxy and
# the asan suite's own RB_PORT_BASE: a port the kernel may hand out as a connection's
# source is no port to listen on.
P=$((${RB_PORT_BASE:-12000} + RANDOM % 9000))
SRC=
CRC=

# start_server TOOL ARGS...: the server end on RB_DEV, in the background.
start_server() {
	local tool=$1
	shift
	P=$((P + 1))
	timeout 120 "$tool" -d "$RB_DEV" -p "$P" "$@" >"$T/srv.out" 2>"$T/srv.err" &
	SRV=$!
}

# run_client TOOL ARGS...: the client end on RB_DEV_PEER, in the foreground.
run_client() {
	local tool=$1
	shift
	timeout 120 "$tool" -d "$RB_DEV_PEER" -p "$P" "$@" 127.0.0.1 >"$T/cli.out" 2>"$T/cli.err"
	CRC=$?
}

# kill_server: SIGKILL the server itself (the timeout wrapper does not pass SIGKILL on).
kill_server() {
	pkill -9 -P "$SRV" 2>/dev/null
	kill -9 "$SRV" 2>/dev/null
}

wait_server() {
	wait "$SRV"
	SRC=$?
	SRV=
}

# bw_mitm MODE ARGS...: an rc_write_bw server (--json $T/srv.json) and a client
# (-s 64K -n 200 ARGS --json $T/cli.json) whose control connection runs through
# tests/lib/oob_mitm.py MODE on port P + 1000 (its actions in $T/mitm.out); sets SRC, CRC.
bw_mitm() {
	local mode=$1 here q proxy i
	shift
	here=$(dirname "${BASH_SOURCE[0]}")
	start_server "$BW" --json "$T/srv.json"
	q=$((P + 1000))
	rm -f "$T/mitm.ready" "$T/cli.json"
	python3 "$here/../lib/oob_mitm.py" "$q" "$P" "$here/../../src/lib/oob/wire.h:$here/../../src/socket_bw/guard.h" \
		"$T/mitm.ready" "$mode" >"$T/mitm.out" 2>"$T/mitm.err" &
	proxy=$!
	for ((i = 0; i < 300; i++)); do [ -e "$T/mitm.ready" ] && break; sleep 0.1; done
	timeout 120 "$BW" -d "$RB_DEV_PEER" -p "$q" -s 64K -n 200 "$@" --json "$T/cli.json" 127.0.0.1 \
		>"$T/cli.out" 2>"$T/cli.err"
	CRC=$?
	wait_server
	timeout 10 tail --pid="$proxy" -f /dev/null
	kill "$proxy" 2>/dev/null
	wait "$proxy" 2>/dev/null
}

# pair TOOL ARGS...: both ends with the same arguments.
pair() {
	local tool=$1
	shift
	start_server "$tool" "$@"
	run_client "$tool" "$@"
	wait_server
}

# The numeric rows of the text table (lines that start with a size).
table_rows() {
	grep -E '^ +[0-9]+ +[0-9]+ ' "$1"
}


# link_restore: bring RB_NETDEV back up and wait (bounded) until both rxe ports are
# ACTIVE with a GID again, so the next test finds the fabric as it was.
link_restore() {
	ip link set "$RB_NETDEV" up
	local i d
	for ((i = 0; i < 300; i++)); do
		local ok=1
		for d in "$RB_DEV" "$RB_DEV_PEER"; do
			grep -q ACTIVE "/sys/class/infiniband/$d/ports/1/state" 2>/dev/null || ok=0
			[ -n "$(tr -d '0:\n' <"/sys/class/infiniband/$d/ports/1/gids/0" 2>/dev/null)" ] || ok=0
		done
		# A link-local address still in duplicate address detection cannot be routed
		# from yet: a QP's move to RTR would fail with "Connection timed out".
		for d in "$RB_NETDEV" "$RB_NETDEV_PEER"; do
			[ -z "$(ip -6 addr show dev "$d" tentative 2>/dev/null)" ] || ok=0
		done
		[ $ok -eq 1 ] && return 0
		sleep 0.1
	done
	echo "warning: $RB_NETDEV did not come back within 30 s"
}

# kill_mid_run TOOL ARGS...: start both ends, SIGKILL the server 2 s after the run
# is established (the server printed its header), and wait for the client. Sets CRC
# and TOOK (ms from the kill to the client's exit).
kill_mid_run() {
	local tool=$1 cli
	shift
	start_server "$tool" "$@"
	timeout 120 "$tool" -d "$RB_DEV_PEER" -p "$P" "$@" 127.0.0.1 >"$T/cli.out" 2>"$T/cli.err" &
	cli=$!
	wait_for "$T/srv.out" "QP timeout" 60 || fail "the run never got established"
	sleep 2
	local killed
	killed=$(now_ms)
	kill_server
	wait "$cli"
	CRC=$?
	TOOK=$(($(now_ms) - killed))
	wait "$SRV" 2>/dev/null
	SRV=
}

# ---------------------------------------------------------------- faults (fault_*.sh)
CLI=

# start_client TOOL ARGS...: the client end on RB_DEV_PEER, in the background (CLI).
start_client() {
	local tool=$1
	shift
	timeout 120 "$tool" -d "$RB_DEV_PEER" -p "$P" "$@" 127.0.0.1 >"$T/cli.out" 2>"$T/cli.err" &
	CLI=$!
}

wait_client() {
	wait "$CLI"
	CRC=$?
	CLI=
}

# tool_pid WRAPPER: the tool a timeout(1) wrapper runs. timeout passes INT and TERM on,
# but STOP, CONT and KILL must go to the tool itself.
tool_pid() {
	pgrep -P "$1" | head -n 1
}

# counters DEV FILE: rxe's port counters (ports/1/hw_counters) as "name value" lines.
# rxe has no ports/1/counters (port_xmit_data): hw_counters is all it keeps. Builtins
# only: under emulation every fork costs tens of milliseconds.
counters() {
	local f v
	for f in "/sys/class/infiniband/$1/ports/1/hw_counters/"*; do
		read -r v <"$f" && echo "${f##*/} $v"
	done >"$2"
}

# counter_delta FILE0 FILE1 NAME: how much counter NAME moved between two snapshots.
counter_delta() {
	local n v a= b=
	while read -r n v; do [ "$n" = "$3" ] && a=$v; done <"$1"
	while read -r n v; do [ "$n" = "$3" ] && b=$v; done <"$2"
	[ -n "$a" ] && [ -n "$b" ] || fail "no rxe counter $3"
	echo $((b - a))
}

# moving DEV: true when DEV's rxe sends packets (sent_pkts grows within a second): the
# run is alive just before a test injects its fault, so what follows is the fault's.
moving() {
	local i
	counters "$1" "$T/mv0"
	for ((i = 0; i < 10; i++)); do
		sleep 0.1
		counters "$1" "$T/mv1"
		[ "$(counter_delta "$T/mv0" "$T/mv1" sent_pkts)" -gt 0 ] && return 0
	done
	return 1
}

# fabric_guard: whatever way the test ends (pass, fail, signal), put the fabric back as
# tools/softroce made it: netem removed, both netdevs at their MTU and up, both rxe ports
# ACTIVE, and no end of a run left behind (a stopped one included).
fabric_guard() {
	MTU_SRV=$(cat "/sys/class/net/$RB_NETDEV/mtu")
	MTU_CLI=$(cat "/sys/class/net/$RB_NETDEV_PEER/mtu")
	rb_exit_trap 'fabric_restore; rb_cleanup'
	trap 'exit 143' TERM
	trap 'exit 130' INT
}

fabric_restore() {
	local pid
	for pid in $SRV $CLI; do
		pkill -9 -P "$pid" 2>/dev/null
		kill -9 "$pid" 2>/dev/null
	done
	tc qdisc del dev "$RB_NETDEV" root 2>/dev/null
	tc qdisc del dev "$RB_NETDEV_PEER" root 2>/dev/null
	ip link set "$RB_NETDEV" mtu "$MTU_SRV"
	ip link set "$RB_NETDEV_PEER" mtu "$MTU_CLI" up
	link_restore
}

# expect_port_named: the link went down, and at least one side says so in the port's own
# words (its async event), not only as a timeout or a completion error that would
# look the same without the port error handling.
expect_port_named() {
	grep -qE "async event on ($RB_DEV|$RB_DEV_PEER): port error on port 1 \(the link went down\)" "$T/cli.err" "$T/srv.err" ||
		fail "neither side named the port error (async event); client: $(head -n 1 "$T/cli.err"); server: $(head -n 1 "$T/srv.err")"
}

# expect_ends CLIENT_RC SERVER_RC CLIENT_PATTERN SERVER_PATTERN: both sides' exit codes
# (CRC, SRC) and messages (stderr), then each side's first line for the log.
expect_ends() {
	expect_rc client "$CRC" "$1"
	expect_rc server "$SRC" "$2"
	expect_grep "$T/cli.err" "$3"
	expect_grep "$T/srv.err" "$4"
	echo "client (exit $CRC): $(head -n 1 "$T/cli.err")"
	echo "server (exit $SRC): $(head -n 1 "$T/srv.err")"
}

# pair_json TOOL ARGS...: pair(), each side writing its own --json document
# ($T/srv.json, $T/cli.json).
pair_json() {
	local tool=$1
	shift
	start_server "$tool" "$@" --json "$T/srv.json"
	run_client "$tool" "$@" --json "$T/cli.json"
	wait_server
}

# inject_mid_run WHAT COMMAND...: with both ends started (start_server, start_client),
# waits until the run is established and the client's rxe is sending, runs COMMAND
# (the fault), and waits for both ends. TOOK: ms from the fault to the client's exit.
inject_mid_run() {
	local what=$1 t0
	shift
	wait_for "$T/srv.out" "QP timeout" 60 || fail "the run never got established"
	sleep 1
	moving "$RB_DEV_PEER" || fail "the run was not moving before $what"
	"$@" || fail "cannot inject $what: $*"
	t0=$(now_ms)
	wait_client
	TOOK=$(($(now_ms) - t0))
	wait_server
}

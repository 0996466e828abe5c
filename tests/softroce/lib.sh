# Helpers for the softroce suite. Each test runs where tools/softroce brought up
# rxe devices: RB_DEV (server end) and RB_DEV_PEER (client end).
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
: "${RB_DEV:?run inside tools/softroce (RB_DEV unset)}"
BW=$RB_BUILD/src/rc_write_bw
LAT=$RB_BUILD/src/rc_write_lat
P=$((20000 + RANDOM % 20000))
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
	for ((i = 0; i < 100; i++)); do
		local ok=1
		for d in "$RB_DEV" "$RB_DEV_PEER"; do
			grep -q ACTIVE "/sys/class/infiniband/$d/ports/1/state" 2>/dev/null || ok=0
			[ -n "$(tr -d '0:\n' <"/sys/class/infiniband/$d/ports/1/gids/0" 2>/dev/null)" ] || ok=0
		done
		[ $ok -eq 1 ] && return 0
		sleep 0.1
	done
	echo "warning: $RB_NETDEV did not come back within 10 s"
}

# kill_mid_run TOOL ARGS...: start both ends, SIGKILL the server 2 s after the run
# is established (the server printed its header), and wait for the client. Sets CRC
# and TOOK (seconds from the kill to the client's exit).
kill_mid_run() {
	local tool=$1 cli
	shift
	start_server "$tool" "$@"
	timeout 120 "$tool" -d "$RB_DEV_PEER" -p "$P" "$@" 127.0.0.1 >"$T/cli.out" 2>"$T/cli.err" &
	cli=$!
	wait_for "$T/srv.out" "QP timeout" 60 || fail "the run never got established"
	sleep 2
	local killed=$(date +%s)
	kill_server
	wait "$cli"
	CRC=$?
	TOOK=$(($(date +%s) - killed))
	wait "$SRV" 2>/dev/null
	SRV=
}

# Helpers for the softroce suite. Each test runs where tools/softroce brought up
# rxe devices: RB_DEV (server end) and RB_DEV_PEER (client end).
set -u
: "${RB_BUILD:?RB_BUILD must name the build directory}"
: "${RB_DEV:?run inside tools/softroce (RB_DEV unset)}"
BW=$RB_BUILD/src/rc_write_bw
LAT=$RB_BUILD/src/rc_write_lat
T=$(mktemp -d /tmp/rbtest.XXXXXX)
trap 'rm -rf "$T"' EXIT
P=$((20000 + RANDOM % 20000))
SRV=
SRC=
CRC=

fail() {
	echo "FAIL: $*"
	for f in "$T"/*.out "$T"/*.err; do
		[ -s "$f" ] && { echo "--- $(basename "$f")"; cat "$f"; }
	done
	[ -n "$SRV" ] && kill -9 "$SRV" 2>/dev/null
	exit 1
}

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

expect_rc() { # what got want
	[ "$2" -eq "$3" ] || fail "$1: exit code $2, expected $3"
}

expect_grep() { # file pattern
	grep -qE -- "$2" "$1" || fail "$(basename "$1") lacks /$2/"
}

# The numeric rows of the text table (lines that start with a size).
table_rows() {
	grep -E '^ +[0-9]+ +[0-9]+ ' "$1"
}

# expect_usage TOOL PATTERN ARGS...: TOOL ARGS fails with exit 2 and a line matching PATTERN.
expect_usage() {
	local tool=$1 want=$2
	shift 2
	timeout 30 "$tool" "$@" >"$T/o.out" 2>"$T/o.err"
	local rc=$?
	[ $rc -eq 2 ] || fail "'$(basename "$tool") $*' exited $rc, expected 2"
	expect_grep "$T/o.err" "$want"
	echo "ok: $* -> $(head -n 1 "$T/o.err")"
}

pass() {
	echo "PASS: $*"
	exit 0
}

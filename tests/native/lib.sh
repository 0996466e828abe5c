# Helpers for the native suite: socket_bw over loopback, no RDMA device needed.
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
SB=$RB_BUILD/src/socket_bw
# Below the ephemeral range (32768+): a port another process connects from cannot be listened on.
# Tests use up to P + 1000. The sanitizer build's setup moves its base to 22000, so that
# tools/test can run the native suite of both builds at once without sharing a port.
P=$((${RB_PORT_BASE:-12000} + RANDOM % 9000))

# wait_server: until the background server exits (bounded); sets SRC.
wait_server() {
	timeout 30 tail --pid="$SRV" -f /dev/null
	wait "$SRV"
	SRC=$?
	SRV=
}

# stop_server SIG: the background server signalled, then wait_server.
stop_server() {
	kill "-$1" "$SRV"
	wait_server
}

# pair ARGS...: server and client with the same arguments; sets SRC and CRC.
pair() {
	P=$((P + 1))
	"$SB" -p "$P" "$@" >"$T/srv.out" 2>"$T/srv.err" &
	SRV=$!
	timeout 120 "$SB" -p "$P" "$@" 127.0.0.1 >"$T/cli.out" 2>"$T/cli.err"
	CRC=$?
	wait_server
}

# mitm MODE SERVER_ARGS... -- CLIENT_ARGS...: a server, a client whose control connection
# runs through oob_mitm.py MODE (its actions in mitm.out); sets SRC and CRC.
mitm() {
	local mode=$1 srv=() here i proxy q
	here=$(dirname "${BASH_SOURCE[0]}")
	shift
	while [ "$1" != -- ]; do srv+=("$1"); shift; done
	shift
	P=$((P + 1))
	q=$((P - 1000)) # the proxy's port, below the ephemeral range as P is
	"$SB" -p "$P" "${srv[@]}" >"$T/srv.out" 2>"$T/srv.err" &
	SRV=$!
	python3 "$here/../lib/oob_mitm.py" "$q" "$P" "$here/../../src/lib/oob/wire.h:$here/../../src/socket_bw/guard.h" "$T/mitm.ready" "$mode" \
		>"$T/mitm.out" 2>"$T/mitm.err" &
	proxy=$!
	for ((i = 0; i < 100; i++)); do [ -e "$T/mitm.ready" ] && break; sleep 0.1; done
	timeout 60 "$SB" -p "$q" "$@" 127.0.0.1 >"$T/cli.out" 2>"$T/cli.err"
	CRC=$?
	wait_server
	timeout 10 tail --pid="$proxy" -f /dev/null
	kill "$proxy" 2>/dev/null
	wait "$proxy" 2>/dev/null
	rm -f "$T/mitm.ready"
}

# SPDX-License-Identifier: BSD-2-Clause
# Helpers for the native suite: socket_bw over loopback, no RDMA device needed.
source "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
SB=$RB_BUILD/src/socket_bw
# Below the ephemeral range (32768+): a port another process connects from cannot be listened on.
# Tests use up to P + 1000. The sanitizer build's setup moves its base to 22000, so that
# tools/test can run the native suite of both builds at once without sharing a port.
P=$((${RB_PORT_BASE:-12000} + RANDOM % 9000))

# wait_server: until the background server exits (bounded); sets SRC.
wait_server() {
	reap "$SRV" 30 "the server"
	SRC=$REAPED
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

# flood N PORT FILE|- [close|JUNK]: N connections, each sending FILE's bytes (- : nothing)
# and reading what comes back until the server closes (close: closing at once instead;
# JUNK: sending those bytes after FILE's); prints the bytes all of them received.
flood() {
	python3 - "$@" <<'PY'
import socket, sys, time
n, port, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
then = sys.argv[4] if len(sys.argv) > 4 else ""
data = open(path, "rb").read() if path != "-" else b""
got = b""
for _ in range(n):
    for attempt in range(50):  # the server may still be starting on a loaded host
        try:
            s = socket.create_connection(("127.0.0.1", port), timeout=10)
            break
        except ConnectionRefusedError:
            time.sleep(0.1)
    else:
        sys.exit(f"nothing listens on port {port}")
    if data:
        s.sendall(data)
    if then == "close":
        s.close()
        continue
    if then:
        s.sendall(then.encode())
    if not data:
        s.shutdown(socket.SHUT_WR)
    try:
        while True:
            d = s.recv(65536)
            if not d:
                break
            got += d
    except OSError:
        pass
    s.close()
sys.stdout.buffer.write(got)
PY
}

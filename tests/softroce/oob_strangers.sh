#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Strangers on the server's out-of-band port: an HTTP request, garbage, and a
# well-formed HELLO (recorded from a real client) followed by junk. Each is refused
# with a warning, and the real client that comes after them runs to the end.
source "$(dirname "$0")/lib.sh"
start_server "$BW" -s 4096 -n 200 --oob-timeout 240
Q=$((P + 1000))

# A decoy client talks to a recorder on port Q: its first frame is a real HELLO.
python3 "$(dirname "$0")/../lib/record_hello.py" "$Q" "$T/hello.bin" "$T/rec.ready" &
rec=$!
for ((i = 0; i < 600; i++)); do [ -e "$T/rec.ready" ] && break; sleep 0.2; done
[ -e "$T/rec.ready" ] || fail "the recorder never listened"
timeout 60 "$BW" -d "$RB_DEV_PEER" -p "$Q" -s 4096 -n 200 --oob-timeout 20 127.0.0.1 >"$T/decoy.out" 2>&1
wait $rec || fail "the recorder did not capture a HELLO"
[ -s "$T/hello.bin" ] || fail "no HELLO recorded"

python3 - "$P" "$T/hello.bin" <<'PY' || fail "could not play the strangers"
import socket, sys, time
port, hello = int(sys.argv[1]), open(sys.argv[2], "rb").read()
for payload in (b"GET / HTTP/1.1\r\nHost: rdmabench\r\n\r\n", bytes(range(200)), hello + b"junk" * 8):
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall(payload)
    time.sleep(0.5)
    s.close()
    time.sleep(0.3)
PY

run_client "$BW" -s 4096 -n 200
wait_server
expect_rc client "$CRC" 0
expect_rc server "$SRC" 0
n=$(grep -c "refused a connection from" "$T/srv.err")
[ "$n" -eq 3 ] || fail "server refused $n connections, expected 3"
expect_grep "$T/srv.err" "refused a connection from .*bad magic.*still waiting for the peer"
expect_grep "$T/srv.err" "refused a connection from .*malformed frame.*still waiting for the peer"
table_rows "$T/cli.out" | grep -q . || fail "the real client printed no result row"
pass "three strangers refused, the real peer served"

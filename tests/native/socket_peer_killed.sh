#!/bin/bash
# The server dies mid-run: the client ends within its timeout, exit 1, with the cause.
source "$(dirname "$0")/lib.sh"
P=$((P + 1))
"$SB" -p "$P" -s 1M -D 60 --timeout 3 >"$T/srv.out" 2>"$T/srv.err" &
SRV=$!
timeout 60 "$SB" -p "$P" -s 1M -D 60 --timeout 3 127.0.0.1 >"$T/cli.out" 2>"$T/cli.err" &
CLI=$!
wait_for "$T/srv.out" "Socket options" 30 || fail "the run never got established"
sleep 1
kill -9 "$SRV"
start=$(date +%s)
wait "$CLI"
CRC=$?
took=$(($(date +%s) - start))
wait "$SRV" 2>/dev/null
SRV=
expect_rc client "$CRC" 1
[ "$took" -le 5 ] || fail "client needed ${took}s after the kill"
expect_grep "$T/cli.err" "closed the connection|Connection reset|Broken pipe|no progress|nothing moved"
echo "client: $(head -n 1 "$T/cli.err") (${took}s after the kill)"
pass "killed server detected"

#!/bin/bash
# The server dies mid-run: the client ends within its timeout, exit 1, with the cause.
source "$(dirname "$0")/lib.sh"
P=$((P + 1))
"$SB" -p "$P" -s 1M -D 60 --timeout 3 >"$T/srv.out" 2>"$T/srv.err" &
SRV=$!
( sleep 2; kill -9 "$SRV" ) &
start=$(date +%s)
timeout 60 "$SB" -p "$P" -s 1M -D 60 --timeout 3 127.0.0.1 >"$T/cli.out" 2>"$T/cli.err"
CRC=$?
took=$(($(date +%s) - start))
wait "$SRV" 2>/dev/null
SRV=
expect_rc client "$CRC" 1
[ "$took" -lt 15 ] || fail "client needed ${took}s"
expect_grep "$T/cli.err" "closed the connection|Connection reset|Broken pipe|no progress|nothing moved"
echo "client: $(head -n 1 "$T/cli.err") (after ${took}s)"
pass "killed server detected"

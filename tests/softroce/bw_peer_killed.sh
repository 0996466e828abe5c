#!/bin/bash
# The server is killed mid-run: the client ends within its timeouts, exit 1, with the cause.
source "$(dirname "$0")/lib.sh"
start_server "$BW" -s 64K -D 60
sleep 3
start=$(date +%s)
( sleep 2; kill_server ) &
run_client "$BW" -s 64K -D 60 --timeout 5
took=$(($(date +%s) - start))
wait_server
expect_rc client "$CRC" 1
[ "$took" -lt 20 ] || fail "client needed ${took}s to notice"
expect_grep "$T/cli.err" "completion error|closed the connection|silent for"
echo "client: $(head -n 1 "$T/cli.err") (after ${took}s)"
pass "vanished peer detected"

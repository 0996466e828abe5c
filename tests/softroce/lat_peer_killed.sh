#!/bin/bash
# The server dies mid-run: the client's poll loop notices within --timeout and exits 1
# naming the iteration it reached (ib_write_lat hangs forever here).
source "$(dirname "$0")/lib.sh"
start_server "$LAT" -s 8 -n 10000000 --timeout 3
sleep 3
( sleep 2; kill_server ) &
start=$(date +%s)
run_client "$LAT" -s 8 -n 10000000 --timeout 3
took=$(($(date +%s) - start))
wait_server
expect_rc client "$CRC" 1
expect_grep "$T/cli.err" "(closed the connection|no message from the peer for 3 s) at iteration [0-9]+"
[ "$took" -lt 15 ] || fail "client needed ${took}s"
echo "client: $(head -n 1 "$T/cli.err") (after ${took}s)"
pass "killed peer noticed within the timeout"

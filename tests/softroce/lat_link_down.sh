#!/bin/bash
# The link under the server goes down mid-run: the client's poll loop notices within
# --timeout and names the iteration it reached; the server is told why.
source "$(dirname "$0")/lib.sh"
[ "$RB_TOPOLOGY" = pair ] || { echo "SKIP: needs --topology pair"; exit 77; }
trap 'link_restore; rm -rf "$T"' EXIT
start_server "$LAT" -s 64 -n 10000000 --timeout 3
( wait_for "$T/srv.out" "QP timeout" 60 && sleep 2; ip link set "$RB_NETDEV" down ) &
start=$(date +%s)
run_client "$LAT" -s 64 -n 10000000 --timeout 3
took=$(($(date +%s) - start))
wait_server
expect_rc client "$CRC" 1
expect_rc server "$SRC" 1
expect_grep "$T/cli.err" "no message from the peer for 3 s at iteration [0-9]+ of 10000100|completion error"
[ "$took" -lt 30 ] || fail "took ${took}s"
echo "client: $(head -n 1 "$T/cli.err")"
echo "server: $(head -n 1 "$T/srv.err")"
pass "link down noticed within the timeout"

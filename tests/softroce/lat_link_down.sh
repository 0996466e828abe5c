#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# The link under the server goes down mid-run (iteration mode): each side notices
# within a bound, by the port's async event, a completion error or silence past
# --timeout (naming the iteration), or is told by its peer; both exit 1.
source "$(dirname "$0")/lib.sh"
[ "$RB_TOPOLOGY" = pair ] || { echo "SKIP: needs --topology pair"; exit 77; }
rb_exit_trap 'link_restore; rb_cleanup'
start_server "$LAT" -s 64 -n 10000000 --timeout 3
( wait_for "$T/srv.out" "QP timeout" 60 || exit 0; sleep 2; [ -d "$T" ] && ip link set "$RB_NETDEV" down ) &
start=$(now_ms)
run_client "$LAT" -s 64 -n 10000000 --timeout 3
took=$(($(now_ms) - start))
wait_server
expect_rc client "$CRC" 1
expect_rc server "$SRC" 1
cause="async event on .*port error on port [0-9]+ \(the link went down\)|no message from the peer for 3 s at iteration [0-9]+ of 10000100|completion error"
expect_grep "$T/cli.err" "$cause"
expect_grep "$T/srv.err" "$cause"
expect_port_named
expect_took "the client" "$took" 30
echo "client: $(head -n 1 "$T/cli.err")"
echo "server: $(head -n 1 "$T/srv.err")"
pass "link down noticed within the timeout"

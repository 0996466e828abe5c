#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# The link under the server's rxe device goes down mid-run: the client's WRITEs stop
# being acknowledged. The port's async event (read every 10 ms) is usually the first
# cause; on hardware the QP may fail first with IBV_WC_RETRY_EXC_ERR (reported with
# its details); rxe may instead just stop completing, which the stall bound catches.
# Either way the client exits 1 within its timeouts and forwards the cause to the
# server, which exits 1 too. The downed link is the server's own, so on rxe the
# server's port error can be its first cause, as true as the client's word; either
# is accepted (the client may report the server's, forwarded, or a flushed queue its own
# port error left), but one of them must name the link. (ib_write_bw hangs here.)
source "$(dirname "$0")/lib.sh"
[ "$RB_TOPOLOGY" = pair ] || { echo "SKIP: needs --topology pair"; exit 77; }
rb_exit_trap 'link_restore; rb_cleanup'
start_server "$BW" -s 16K -D 60 --timeout 5
( wait_for "$T/srv.out" "QP timeout" 60 || exit 0; sleep 2; [ -d "$T" ] && ip link set "$RB_NETDEV" down ) &
start=$(now_ms)
run_client "$BW" -s 16K -D 60 --timeout 5
took=$(($(now_ms) - start))
wait_server
expect_rc client "$CRC" 1
expect_rc server "$SRC" 1
expect_grep "$T/cli.err" "completion error: .*IBV_WC_(RETRY_EXC|LOC_QP_OP|WR_FLUSH)_ERR.*vendor error 0x[0-9a-f]+, QPN 0x[0-9a-f]{6}, opcode RDMA_WRITE, wr_id|no send completion for 5 s: [0-9]+ messages completed, [0-9]+ outstanding|async event on $RB_DEV_PEER: port error on port 1 \(the link went down\)|peer .* failed: async event on $RB_DEV: port error on port 1"
expect_grep "$T/srv.err" "peer .* failed: (completion error|no send completion|async event)|async event on $RB_DEV: port error on port 1 \(the link went down\)"
expect_took "the client" "$took" 40
expect_port_named
echo "client: $(head -n 1 "$T/cli.err")"
echo "server: $(head -n 1 "$T/srv.err")"
pass "link failure reported with completion details on both sides"

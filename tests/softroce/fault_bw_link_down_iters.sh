#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# The link under the client's (the sender's) rxe device goes down mid-run in iteration
# mode (bw_link_down.sh covers the server's link in duration mode). The client sees a
# port error event, a completion error (rxe fails the WRITE it cannot transmit with
# IBV_WC_LOC_QP_OP_ERR; an adapter retries until IBV_WC_RETRY_EXC_ERR) or no
# completion for --timeout, exits 1 within that bound and forwards the cause; the
# server prints it and exits 1 too, or sees its own port go down first (rxe raises the
# port error on both ends of a veth pair).
source "$(dirname "$0")/lib.sh"
[ "$RB_TOPOLOGY" = pair ] || { echo "SKIP: needs --topology pair"; exit 77; }
fabric_guard
start_server "$BW" -s 16K -n 100000000 --timeout 5
start_client "$BW" -s 16K -n 100000000 --timeout 5
inject_mid_run "the link went down" ip link set "$RB_NETDEV_PEER" down
expect_took "the client after the link went down" "$TOOK" 40
expect_ends 1 1 \
	"completion error: .*IBV_WC_(RETRY_EXC|LOC_QP_OP|WR_FLUSH)_ERR.*QPN 0x[0-9a-f]{6}, opcode RDMA_WRITE|no send completion for 5 s: [0-9]+ messages completed, [0-9]+ outstanding|async event on $RB_DEV_PEER: .*port" \
	"peer .* failed: (completion error|no send completion|async event)|async event on $RB_DEV: .*port"
echo "the client exited $TOOK ms after the link went down"
expect_port_named
pass "the sender's link down in iteration mode: both sides exit 1 with the cause"

#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# The path drops everything (netem loss 100 % on the client's netdev) while both ports
# stay ACTIVE: no port event, only unacknowledged WRITEs, as when a switch in the
# middle fails. With --qp-timeout 16 (268 ms) and --retry-cnt 3 the QP gives up after
# (3 + 1) x 268 ms: the client exits 1 with the completion error (transport retry
# counter exceeded) long before its --timeout of 20 s, and the server is told.
# (rxe retries forever at --retry-cnt 7, the default: there only --timeout ends it;
# see rdmabench-faults(7).)
source "$(dirname "$0")/lib.sh"
[ "$RB_TOPOLOGY" = pair ] || { echo "SKIP: needs --topology pair"; exit 77; }
fabric_guard
args=(-s 16K -D 60 --qp-timeout 16 --retry-cnt 3 --timeout 20)
start_server "$BW" "${args[@]}"
start_client "$BW" "${args[@]}"
inject_mid_run "the path went dark" tc qdisc add dev "$RB_NETDEV_PEER" root netem loss 100%
expect_took "the client after the path went dark" "$TOOK" 15
expect_ends 1 1 \
	"completion error: transport retry counter exceeded \(IBV_WC_RETRY_EXC_ERR, status 12\), vendor error 0x[0-9a-f]+, QPN 0x[0-9a-f]{6}, opcode RDMA_WRITE" \
	"peer .* failed: completion error: transport retry counter exceeded"
echo "the client exited $TOOK ms after the path went dark ((3 + 1) x 268 ms = 1.07 s expected)"
pass "an unacknowledged WRITE fails after (retry-cnt + 1) x qp-timeout; both sides exit 1"

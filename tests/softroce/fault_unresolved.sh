#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# The peer's MAC address cannot be found when the QPs connect: the neighbour caches
# are flushed and the client's netdev drops everything (netem loss 100 %), so the
# kernel's ARP / neighbour discovery for the RoCE v2 GID times out at RTR. The tool
# tries the resolution a bounded number of times (one lost solicitation on a lossy
# link must not end a run), then exits 1 naming the GID that did not resolve and on
# which device; the server is told or finds the same. Nothing waits past --timeout.
source "$(dirname "$0")/lib.sh"
[ "$RB_TOPOLOGY" = pair ] || { echo "SKIP: needs --topology pair"; exit 77; }
fabric_guard
ip neigh flush dev "$RB_NETDEV"
ip neigh flush dev "$RB_NETDEV_PEER"
tc qdisc add dev "$RB_NETDEV_PEER" root netem loss 100% || fail "cannot add netem to $RB_NETDEV_PEER"
start=$(now_ms)
pair "$BW" -s 4K -n 10 --timeout 20
took=$(($(now_ms) - start))
# on DEV: the message of a side whose own resolution ran out.
on() {
	echo "QP 0x[0-9a-f]{6} transition to RTR failed: Connection timed out: the peer's GID fe80::[0-9a-f:]+ did not resolve to a MAC address on $1's network interface \(ARP / neighbour discovery got no answer, 5 tries\)"
}
told="peer .* failed: QP 0 did not reach RTS on the peer"
# Each side finds it itself or is told by the other; at least one finds it.
expect_ends 1 1 "$(on "$RB_DEV_PEER")|$told" "$(on "$RB_DEV")|$told"
grep -Eq "$(on "$RB_DEV_PEER")" "$T/cli.err" || grep -Eq "$(on "$RB_DEV")" "$T/srv.err" ||
	fail "neither side named the GID that did not resolve"
expect_took "both ends through an unresolvable peer" "$took" 30
echo "both ends exited after $((took / 1000)).$((took % 1000 / 100)) s"
pass "a peer whose MAC address does not resolve: exit 1 naming the GID and the device, bounded"

#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# A GID index that is empty on one side (rxe on a netdev without IPv4 fills index 0
# only). That side refuses at device open, before any connection: exit 2 naming the
# index and the valid ones. The other side never hears from it and gives up at its
# --oob-timeout with exit 1, naming the port it waited on.
source "$(dirname "$0")/lib.sh"
bad=7
[ -n "$(tr -d '0:\n' <"/sys/class/infiniband/$RB_DEV/ports/1/gids/$bad" 2>/dev/null)" ] &&
	{ echo "SKIP: GID index $bad is in use on $RB_DEV"; exit 77; }
refused="GID index $bad is empty or out of range on %s port 1 \(valid: [0-9,]+\)"

# wrong_on SIDE: -x $bad on SIDE (server|client), both ends with --oob-timeout 3.
wrong_on() {
	local sx=() cx=() start
	[ "$1" = server ] && sx=(-x $bad) || cx=(-x $bad)
	start=$(now_ms)
	start_server "$BW" -n 100 --oob-timeout 3 "${sx[@]}"
	run_client "$BW" -n 100 --oob-timeout 3 "${cx[@]}"
	wait_server
	expect_took "both sides (-x $bad on the $1)" $(($(now_ms) - start)) 20
}

wrong_on server
expect_ends 1 2 "cannot connect to 127.0.0.1 port $P within 3 s" "$(printf "$refused" "$RB_DEV")"
wrong_on client
expect_ends 2 1 "$(printf "$refused" "$RB_DEV_PEER")" "no client connected to port $P within 3 s \(--oob-timeout\)"
pass "a wrong GID index is refused with exit 2; the peer gives up at --oob-timeout"

#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# rc_write_bw's closing agreement, with a man in the middle of the control connection
# (tests/lib/oob_mitm.py) changing the client's DONE: one bit of its byte count, the
# whole payload, or its time (1 ns: a rate no link carries). The server's check
# fails, and the client, which writes no row before the server's verdict on the step,
# fails with it: both exit 1, the client names the server's cause, and neither
# document says complete.
source "$(dirname "$0")/lib.sh"

for mode in flip-done garble-done lie-done; do
	bw_mitm "$mode"
	expect_grep "$T/mitm.out" "^(flipped|garbled|rewrote) DONE$"
	expect_rc "server [$mode]" "$SRC" 1
	expect_rc "client [$mode]" "$CRC" 1
	case $mode in
	flip-done) want="reports [0-9]+ bytes for 200 messages" ;;
	# Random bytes that happen to decode still fail the count check.
	garble-done) want="(unexpected or malformed DONE|reports [0-9]+ bytes for [0-9]+ messages)" ;;
	lie-done) want="more than the link can explain" ;;
	esac
	expect_grep "$T/srv.err" "$want"
	expect_grep "$T/cli.err" "\(the server\) failed: .*$want"
	python3 "$(dirname "$0")/../lib/no_result.py" "$T/srv.json" "$T/cli.json" || fail "[$mode] a document says complete"
done
pass "a DONE changed in flight fails the step on both sides"

#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# RDMA_WRITE_WITH_IMM: the receiver consumes one receive completion per message
# and checks the immediate sequence and the payload.
source "$(dirname "$0")/lib.sh"
pair "$BW" -s 64,8K,256K -n 60 -q 2 --write-with-imm --verify
expect_rc client "$CRC" 0
expect_rc server "$SRC" 0
expect_grep "$T/cli.out" "RDMA_Write_with_imm"
[ "$(table_rows "$T/srv.out" | wc -l)" -eq 3 ] || fail "expected 3 rows on the server"

# -r: fewer receives than the sender keeps in flight. The receiver's rxe answers the
# messages that find no receive with RNR NAKs (its send_rnr_err counter, not ours),
# the sender retries them (--rnr-retry 7: forever), every message still arrives in
# order and intact. The receiver reposts fast, so RNR NAKs are few (a few per 5000
# 64 B messages at -r 1 on rxe): 20000 messages make none vanishingly unlikely.
# At the default depth they are rarer still, but not impossible: a WRITE_WITH_IMM's
# ACK does not wait for the receiver to repost, so a receiver descheduled for longer
# than its queue lasts meets RNR NAKs at any depth. That run asserts intact data only.
# rnr_naks ARGS...: a verified run with ARGS; sets n to the RNR NAKs the server's rxe
# sent and got to those the client's rxe received (a lost NAK is retried by timeout).
rnr_naks() {
	counters "$RB_DEV" "$T/c0"
	counters "$RB_DEV_PEER" "$T/p0"
	pair "$BW" -s 64 -n 20000 --write-with-imm --verify --json "$T/r.json" "$@"
	expect_rc "client $*" "$CRC" 0
	expect_rc "server $*" "$SRC" 0
	counters "$RB_DEV" "$T/c1"
	counters "$RB_DEV_PEER" "$T/p1"
	n=$(counter_delta "$T/c0" "$T/c1" send_rnr_err)
	got=$(counter_delta "$T/p0" "$T/p1" rcvd_rnr_err)
	[ "$got" -le "$n" ] || fail "the receiver sent $n RNR NAKs, the sender received more: $got"
}
rnr_naks
# The default depth: the TX depth (128) rounded up to the refill batch (16), plus one batch.
expect_grep "$T/srv.out" "WRITE_WITH_IMM, RX depth 144"
echo "default depth (144): $n RNR NAKs, all 20000 messages verified"
rnr_naks -r 1 --min-rnr-timer 1
[ "$got" -gt 0 ] || fail "-r 1 under a TX depth of 128 caused no RNR NAK: is -r applied?"
expect_grep "$T/srv.out" "WRITE_WITH_IMM, RX depth 1"
python3 -c 'import json,sys; m = json.load(open(sys.argv[1]))["meta"]; assert m["rx_depth"] == 1, m' "$T/r.json" \
	|| fail "the document does not say rx_depth 1"
echo "-r 1: $n RNR NAKs from the receiver's rxe ($got received), all 20000 messages verified"
pass "write-with-imm verified over 2 QPs; -r below the sender's depth costs RNR NAKs, not data"

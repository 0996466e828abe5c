#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# fifo_pingpong's failure paths: a CTS element with a wrong tag, a zero address, a size
# past the receiver's registered buffer or a zero rkey (RB_TEST_FAULT on the receiver)
# ends both sides with exit 1 and the field named; a receiver that stops posting CTS
# ends the sender within --timeout, naming the FIFO slot. A byte the sender flips
# (RB_TEST_FAULT=corrupt) in the last QP's chunk of a split message, or at the first
# byte of an odd size, is named by the receiver's --verify.
source "$(dirname "$0")/lib.sh"

# faulty FAULT ARGS...: the server (the receiver) with RB_TEST_FAULT=FAULT.
faulty() {
	local fault=$1
	shift
	P=$((P + 1))
	RB_TEST_FAULT=$fault timeout 120 "$FP" -d "$RB_DEV" -p "$P" >"$T/srv.out" 2>"$T/srv.err" &
	SRV=$!
	run_client "$FP" "$@"
	wait_server
}

faulty fifo-tag:msg=5 --window 4 -s 4K -n 100
expect_ends 1 1 "bad clear-to-send at FIFO slot 0 \(message 5 of this size\): tag 0x[0-9a-f]+ of request 0 \(expected 0x1\)" \
	"peer .* failed: bad clear-to-send"
faulty fifo-addr:msg=3 --window 1 -s 64 -n 50 --warmup 0
expect_ends 1 1 "bad clear-to-send .*: address 0 in request 0" "peer .* failed: bad clear-to-send"
faulty fifo-size:msg=2 --window 4 -s 4K -n 100
expect_ends 1 1 "bad clear-to-send .*: size [0-9]+ of request 0 runs past the receiver's buffer" \
	"peer .* failed: bad clear-to-send"
faulty fifo-rkey:msg=7 --window 4 --multi-recv 2 -s 4K -n 100
expect_ends 1 1 "bad clear-to-send .*: rkey 0 in request 0" "peer .* failed: bad clear-to-send"

# --verify where a partial check would miss: split over 4 QPs, the message's last byte
# is in the last QP's chunk; and the first byte of an odd size. The sender corrupts.
for c in "byte=last -q 4 --split-data-on-qps -s 1000003:1000002" "byte=0 -s 12347:0"; do
	spec=${c%%:*} b=${c##*:}
	P=$((P + 1))
	timeout 120 "$FP" -d "$RB_DEV" -p "$P" >"$T/srv.out" 2>"$T/srv.err" &
	SRV=$!
	RB_TEST_FAULT=corrupt:msg=4:${spec%% *} run_client "$FP" --window 4 -n 20 --verify ${spec#* }
	wait_server
	expect_ends 1 1 "peer .* failed: verify: message 4 request 0 byte $b expected" \
		"verify: message 4 request 0 byte $b expected 0x[0-9a-f]{2} got 0x[0-9a-f]{2}"
done

start=$(now_ms)
faulty cts-stop:msg=20 --window 4 -s 4K -n 100 --timeout 2
took=$(($(now_ms) - start))
expect_ends 1 1 "no clear-to-send for 2 s at FIFO slot 3 \(sent 19, received 0 messages of 4096 bytes\)" \
	"peer .* failed: no clear-to-send|no message for [0-9]+ s"
expect_took "the sender held by a receiver that stopped posting CTS" "$took" 15
pass "bad CTS fields named on both sides; a silent receiver ends the sender within --timeout"

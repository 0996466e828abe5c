#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Faults injected on the client (the sender) through RB_TEST_FAULT (src/lib/base/fault.h):
# each must end both sides with exit 1, a message that names what went wrong, and
# JSON documents that say "complete": false.
#   corrupt   one payload byte flipped: the receiver's --verify names QP, message, byte,
#             expected and received, for WRITE and WRITE_WITH_IMM, 1 and 3 QPs; and the
#             first and last byte of an odd-sized multi-MTU message
#   imm-drop, imm-dup   the immediate sequence names what was expected and received
#   stall     a QP stops posting: the stall bound ends the run within --timeout
#   bad-rkey  a real remote access error, reported with status, vendor error, QPN, opcode
source "$(dirname "$0")/lib.sh"
ARGS=(-s 4096 -n 200 --timeout 4)

# run_fault FAULT ARGS...: both ends (the client with the fault); sets TOOK (ms).
run_fault() {
	local fault=$1 start
	shift
	rm -f "$T/s.json" "$T/c.json"
	start_server "$BW" "${ARGS[@]}" "$@" --json "$T/s.json"
	start=$(now_ms)
	export RB_TEST_FAULT=$fault
	run_client "$BW" "${ARGS[@]}" "$@" --json "$T/c.json"
	unset RB_TEST_FAULT
	wait_server
	TOOK=$(($(now_ms) - start))
	expect_rc "client ($fault $*)" "$CRC" 1
	expect_rc "server ($fault $*)" "$SRC" 1
	for side in s c; do
		python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["complete"] is False and d["error"], d' \
			"$T/$side.json" || fail "$side.json ($fault $*) does not say it is incomplete"
	done
	expect_grep "$T/cli.err" "test fault injection active: RB_TEST_FAULT=$fault"
	echo "ok: $fault $* (${TOOK} ms)"
	echo "    client: $(grep -v 'test fault' "$T/cli.err" | head -n 1)"
	echo "    server: $(head -n 1 "$T/srv.err")"
}

# The receiver (server) finds the corrupted byte; the sender hears it from the server.
for imm in "" --write-with-imm; do
	for q in 1 3; do
		qp=$((q - 1))
		run_fault "corrupt:qp=$qp:msg=5" --verify -q $q $imm
		want="QP $qp message 5 byte 2048 expected 0x[0-9a-f]{2} got 0x[0-9a-f]{2}"
		expect_grep "$T/srv.err" "verify: 1 message\(s\) of 4096-byte window 0 arrived wrong; first: $want"
		expect_grep "$T/cli.err" "verify: the peer found 1 message\(s\) we wrote wrong; first: $want"
	done
done

# Where a verifier that checks part of a message would miss it: the first and the last
# byte of an odd-sized message four MTUs long (the last in its last packet), on QP 1.
ARGS=(-s 16389 -n 200 --timeout 4)
for at in 0 last; do
	run_fault "corrupt:qp=1:msg=3:byte=$at" --verify -q 2
	b=$([ $at = last ] && echo 16388 || echo 0)
	expect_grep "$T/srv.err" "verify: 1 message\(s\) of 16389-byte window 0 arrived wrong; first: QP 1 message 3 byte $b expected"
done
ARGS=(-s 4096 -n 200 --timeout 4)

run_fault imm-drop:msg=7 --write-with-imm
expect_grep "$T/srv.err" "immediate 8 arrived on QP 0, expected 7 \(a message was lost, duplicated or reordered\)"
expect_grep "$T/cli.err" "peer .* failed: immediate 8 arrived on QP 0, expected 7"
run_fault imm-dup:qp=1:msg=7 --write-with-imm -q 2
expect_grep "$T/srv.err" "immediate 6 arrived on QP 1, expected 7"

# Stall: the sender stops posting on QP 1 at message 50; no completion comes again.
run_fault stall:qp=1:msg=50 -q 2
expect_grep "$T/cli.err" "no send completion for 4 s: [0-9]+ messages completed, [0-9]+ outstanding; QP 1 stalled after message [0-9]+"
expect_grep "$T/srv.err" "peer .* failed: no send completion for 4 s"
expect_took "the stalled run (--timeout 4)" "$TOOK" 30

# A wrong rkey on message 3: the responder refuses the WRITE.
run_fault bad-rkey:msg=3
expect_grep "$T/cli.err" "completion error: remote access error \(IBV_WC_REM_ACCESS_ERR, status 10\), vendor error 0x[0-9a-f]+, QPN 0x[0-9a-f]{6}, opcode RDMA_WRITE, wr_id [0-9]+"
expect_grep "$T/srv.err" "peer .* failed: completion error: remote access error"
pass "every injected fault ends both sides with exit 1 and a message that names it"

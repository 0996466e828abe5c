#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# --verify proven by corruption. A clean --verify run passes; then the test fault
# (RB_TEST_FAULT, inert unless set) flips one byte of message 5 on one side: the
# receiver checks every payload after timing its arrival and fails naming the message,
# byte, expected and received value; the sender is told the same. Both exit 1 and
# both JSON documents say the run is incomplete. Once each way, in memory-poll and
# write-with-imm mode.
source "$(dirname "$0")/lib.sh"
pair "$LAT" -s 2,4K -n 50 --warmup 5 --verify
expect_rc "clean client" "$CRC" 0
expect_rc "clean server" "$SRC" 0
for dir in client server; do
	mode=$([ $dir = client ] && echo "" || echo --write-with-imm)
	args=(-s 4K -n 50 --warmup 5 --verify $mode)
	if [ $dir = client ]; then
		start_server "$LAT" "${args[@]}" --json "$T/srv.json"
		RB_TEST_FAULT=corrupt:msg=5 run_client "$LAT" "${args[@]}" --json "$T/cli.json"
	else
		RB_TEST_FAULT=corrupt:msg=5 start_server "$LAT" "${args[@]}" --json "$T/srv.json"
		run_client "$LAT" "${args[@]}" --json "$T/cli.json"
	fi
	wait_server
	expect_rc "client [$dir corrupts]" "$CRC" 1
	expect_rc "server [$dir corrupts]" "$SRC" 1
	want="verify: message 5 of 4096 bytes from .* differs at byte [0-9]+: expected 0x[0-9a-f]{2}, received 0x[0-9a-f]{2}"
	expect_grep "$T/cli.err" "$want"
	expect_grep "$T/srv.err" "$want"
	# The receiver found it; the sender heard it from the peer.
	recv_err=$([ $dir = client ] && echo srv.err || echo cli.err)
	send_err=$([ $dir = client ] && echo cli.err || echo srv.err)
	grep -qE "^[^:]*: $want" "$T/$recv_err" || fail "$recv_err: the receiver did not report the mismatch itself"
	expect_grep "$T/$send_err" "peer .* failed: $want"
	python3 - "$T/cli.json" "$T/srv.json" <<'PY' || fail "[$dir corrupts] documents claim completion"
import json, sys
for p in sys.argv[1:]:
    d = json.load(open(p))
    assert d["complete"] is False and d["results"] == [], d
PY
	echo "$dir corrupts: $(grep -hE "$want" "$T/$recv_err" | head -n 1)"
done
# The first and the last payload byte of an odd size over several MTUs (the last
# byte of the buffer, 9998, is the arrival marker, not payload: the last payload byte is 9997).
for at in 0:0 last:9997; do
	start_server "$LAT" -s 9999 -n 30 --warmup 2 --verify
	RB_TEST_FAULT=corrupt:msg=7:byte=${at%:*} run_client "$LAT" -s 9999 -n 30 --warmup 2 --verify
	wait_server
	expect_ends 1 1 "peer .* failed: verify: message 7 of 9999 bytes" \
		"verify: message 7 of 9999 bytes from .* differs at byte ${at#*:}: expected"
done
pass "a corrupted byte fails --verify on both sides, naming message, byte and values"

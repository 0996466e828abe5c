#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Test fault "stall": one side stops sending at iteration 40. Neither side may wait
# longer than --timeout (plus a margin): both exit 1 saying that the peer sent
# nothing at iteration 40. Client stalls in memory-poll mode, server in event mode
# (its sleep on the completion channel is bounded too).
source "$(dirname "$0")/lib.sh"
for who in client server; do
	mode=$([ $who = client ] && echo "" || echo --event)
	args=(-s 64 -n 1000 --warmup 10 --timeout 3 $mode)
	start=$(now_ms)
	if [ $who = client ]; then
		start_server "$LAT" "${args[@]}"
		RB_TEST_FAULT=stall:msg=40 run_client "$LAT" "${args[@]}"
	else
		RB_TEST_FAULT=stall:msg=40 start_server "$LAT" "${args[@]}"
		run_client "$LAT" "${args[@]}"
	fi
	wait_server
	took=$(($(now_ms) - start))
	expect_rc "client [$who stalls]" "$CRC" 1
	expect_rc "server [$who stalls]" "$SRC" 1
	want="no message from the peer for 3 s at iteration 40 of 1010, 64-byte messages"
	expect_grep "$T/cli.err" "$want"
	expect_grep "$T/srv.err" "$want"
	# Set-up under emulation takes a few seconds; the stall itself at most 3 s + 0.2 s.
	expect_took "[$who stalls] both ends" "$took" 15
	echo "$who stalls: exit after ${took} ms: $(head -n 1 "$T/cli.err")"
done
pass "a stalled peer ends both sides within --timeout"

#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Nothing inside a step's timed window but the transfer: with the test suite's counting
# allocator preloaded, -v reports for every size of every verbs tool 0 allocations and
# 0 page faults between the first and last timestamp (buffers, rings and pages are
# ready before the clock starts), sizes up to 1 MiB, every mode: rc_write_bw plain and
# --verify, rc_write_lat, fifo_pingpong pipelined and ping-pong.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/../lib/window.sh"
window_setup "$BW"
cases=("$BW --sizes 64:1M -n 100" "$BW --sizes 4K:256K -n 50 --verify" "$LAT --sizes 8:1M -n 50"
	"$FP --sizes 4K:1M -n 50" "$FP --sizes 4K:256K -n 50 --window 1")
for c in "${cases[@]}"; do
	set -- $c
	tool=$1
	shift
	P=$((P + 1))
	LD_PRELOAD=$SHIM timeout 120 "$tool" -d "$RB_DEV" -p "$P" "$@" >"$T/srv.out" 2>"$T/srv.err" &
	SRV=$!
	LD_PRELOAD=$SHIM timeout 120 "$tool" -d "$RB_DEV_PEER" -p "$P" "$@" -v 127.0.0.1 >"$T/cli.out" 2>"$T/cli.err"
	CRC=$?
	wait_server
	expect_rc "$(basename "$tool") $* (client)" "$CRC" 0
	expect_rc "$(basename "$tool") $* (server)" "$SRC" 0
	window_check "$(basename "$tool") $*" "$T/cli.out" "$T/cli.err"
done
window_verdict
pass "no page fault and no allocation inside any step's timed window"

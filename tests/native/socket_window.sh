#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Nothing inside socket_bw's timed window but the transfer: with the test suite's counting
# allocator preloaded, -v reports 0 allocations and 0 page faults for every size (its
# worker buffers are written, not just allocated, before the clock: a malloc + memset the
# compiler turns into calloc leaves fresh pages to fault in the loop), streaming and
# ping-pong, one and several sockets and threads.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/../lib/window.sh"
window_setup "$SB"
for c in "--sizes 4K:4M -n 100" "--sizes 64K:4M -n 50 --nsocks 4 --nthreads 2" "--ping-pong --sizes 64:1M -n 200"; do
	P=$((P + 1))
	LD_PRELOAD=$SHIM "$SB" -p "$P" >"$T/srv.out" 2>"$T/srv.err" &
	SRV=$!
	LD_PRELOAD=$SHIM timeout 60 "$SB" -p "$P" $c -v 127.0.0.1 >"$T/cli.out" 2>"$T/cli.err"
	expect_rc "client $c" $? 0
	wait_server
	expect_rc "server $c" "$SRC" 0
	window_check "$c" "$T/cli.out" "$T/cli.err"
done
window_verdict
pass "no page fault and no allocation inside socket_bw's timed windows"

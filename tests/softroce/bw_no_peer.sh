#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Nobody at the other end: both roles give up after --oob-timeout with the reason.
source "$(dirname "$0")/lib.sh"
P=$((P + 1))
start=$(now_ms)
timeout 60 "$BW" -d "$RB_DEV" -p "$P" --oob-timeout 2 >"$T/srv.out" 2>"$T/srv.err"
expect_rc server $? 1
expect_grep "$T/srv.err" "no client connected to port $P within 2 s"
timeout 60 "$BW" -d "$RB_DEV_PEER" -p "$P" --oob-timeout 2 127.0.0.1 >"$T/cli.out" 2>"$T/cli.err"
expect_rc client $? 1
# (the last attempt may be cut by the deadline: refused or timed out)
expect_grep "$T/cli.err" "cannot connect to 127.0.0.1 port $P within 2 s: Connection (refused|timed out)"
expect_took "both sides" $(($(now_ms) - start)) 15
pass "no peer: bounded waits, clear causes"

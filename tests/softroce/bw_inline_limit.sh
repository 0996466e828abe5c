#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Inline data: within the device limit it runs; above it, the error names the limit.
source "$(dirname "$0")/lib.sh"
pair "$BW" -s 16,64 -n 50 -I 64 --verify
expect_rc client "$CRC" 0
expect_rc server "$SRC" 0
timeout 30 "$BW" -d "$RB_DEV_PEER" -p "$P" -I 1000000 --oob-timeout 1 127.0.0.1 >"$T/o.out" 2>"$T/o.err"
expect_rc "huge inline" $? 2
expect_grep "$T/o.err" "inline size 1000000 exceeds the device limit of [0-9]+ bytes"
echo "$(head -n 1 "$T/o.err")"
pass "inline honoured; over-limit named"

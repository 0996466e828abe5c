#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# The client may start before the server: it retries until --oob-timeout.
source "$(dirname "$0")/lib.sh"
P=$((P + 1))
timeout 120 "$BW" -d "$RB_DEV_PEER" -p "$P" -s 4K -n 50 --oob-timeout 30 127.0.0.1 >"$T/cli.out" 2>"$T/cli.err" &
CLI=$!
sleep 2
timeout 120 "$BW" -d "$RB_DEV" -p "$P" -s 4K -n 50 >"$T/srv.out" 2>"$T/srv.err"
SRC=$?
wait $CLI
CRC=$?
expect_rc client "$CRC" 0
expect_rc server "$SRC" 0
pass "client started 2 s before the server still connected"

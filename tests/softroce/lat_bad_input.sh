#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# rc_write_lat's input errors: one line, exit 2; inline above the device limit names it.
source "$(dirname "$0")/lib.sh"
expect_usage "$LAT" "choose either -n 10 or -D 2, not both" -n 10 -D 2
expect_usage "$LAT" "invalid value 'x' for --warmup" --warmup x
expect_usage "$LAT" "--event already implies --write-with-imm" --event --write-with-imm
expect_usage "$LAT" "invalid value '0' for --duration: out of range" -D 0
expect_usage "$LAT" "unknown option '--qp' \(did you mean --qp-timeout\?\)" --qp 2
expect_usage "$LAT" "inline size 100000 exceeds the device limit of [0-9]+ bytes" -d "$RB_DEV" -I 100000 --oob-timeout 1 127.0.0.1
# Given explicitly on both sides and different (a server given none takes the client's).
start_server "$LAT" -s 8 -n 100 --warmup 100 --oob-timeout 60
run_client "$LAT" -s 8 -n 100 --warmup 5
expect_rc client "$CRC" 2
expect_grep "$T/cli.err" "param warmup mismatch: local=5 remote=100"
run_client "$LAT" -s 8 -n 100 --warmup 100
wait_server
expect_rc "client that agrees" "$CRC" 0
expect_rc "server (refused the first client, served the second)" "$SRC" 0
expect_grep "$T/srv.err" "refused a connection from .*: param warmup mismatch: local=100 remote=5"
pass "rc_write_lat input errors"

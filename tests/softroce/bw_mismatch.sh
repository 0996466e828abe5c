#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Client and server disagree on a parameter: the client names it and exits 2; the
# server refuses that client as a stranger (one line) and serves the next one, whose
# parameters agree.
source "$(dirname "$0")/lib.sh"
start_server "$BW" -s 4K -n 100 --oob-timeout 60
run_client "$BW" -s 4K -n 200
expect_rc client "$CRC" 2
expect_grep "$T/cli.err" "param iters mismatch: local=200 remote=100"
run_client "$BW" -s 4K -n 100
wait_server
expect_rc "client that agrees" "$CRC" 0
expect_rc server "$SRC" 0
expect_grep "$T/srv.err" "refused a connection from .*: param iters mismatch: local=100 remote=200"
table_rows "$T/cli.out" | grep -q . || fail "the agreeing client printed no result row"
pass "mismatch named by the client, refused by the server, the next client served"

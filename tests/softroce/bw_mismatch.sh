#!/bin/bash
# Client and server disagree on a parameter: both say which one and exit 2.
source "$(dirname "$0")/lib.sh"
start_server "$BW" -s 4K -n 100
run_client "$BW" -s 4K -n 200
wait_server
expect_rc client "$CRC" 2
expect_rc server "$SRC" 2
expect_grep "$T/cli.err" "param iters mismatch: local=200 remote=100"
expect_grep "$T/srv.err" "param iters mismatch: local=100 remote=200"
pass "mismatch reported on both sides"

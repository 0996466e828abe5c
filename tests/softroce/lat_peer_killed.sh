#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# The server dies mid-run: the client's poll loop notices within --timeout and exits 1
# naming the iteration it reached (ib_write_lat hangs forever here).
source "$(dirname "$0")/lib.sh"
kill_mid_run "$LAT" -s 8 -n 10000000 --timeout 3
expect_rc client "$CRC" 1
expect_grep "$T/cli.err" "(closed the connection|no message from the peer for 3 s) at iteration [0-9]+"
expect_took "the client after the kill" "$TOOK" 5
echo "client: $(head -n 1 "$T/cli.err") (${TOOK} ms after the kill)"
pass "killed peer noticed within the timeout"

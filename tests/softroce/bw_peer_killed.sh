#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# The server is killed mid-run: the client ends within its timeouts, exit 1, with the cause.
source "$(dirname "$0")/lib.sh"
kill_mid_run "$BW" -s 64K -D 60 --timeout 5
expect_rc client "$CRC" 1
expect_took "the client after the kill" "$TOOK" 10
expect_grep "$T/cli.err" "completion error|closed the connection|silent for|no send completion"
echo "client: $(head -n 1 "$T/cli.err") (${TOOK} ms after the kill)"
pass "vanished peer detected"

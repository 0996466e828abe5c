#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Interface selection: a matching name is used and shown; a name matching nothing
# fails at start-up with exit 2, never by silently picking another interface.
source "$(dirname "$0")/lib.sh"
pair -s 64K -n 20 --ifname =lo --family 4
expect_rc client "$CRC" 0
expect_rc server "$SRC" 0
expect_grep "$T/cli.out" "Interface +: lo 127\.0\.0\.1"
NCCL_SOCKET_IFNAME=lo pair -s 64K -n 20
expect_rc "client (env)" "$CRC" 0
expect_grep "$T/cli.out" "From env +: NCCL_SOCKET_IFNAME"
start=$(now_ms)
timeout 30 "$SB" -p "$P" --ifname nosuch0,bogus 127.0.0.1 >"$T/o.out" 2>"$T/o.err"
expect_rc "missing ifname" $? 2
expect_grep "$T/o.err" "no socket interface found matching 'nosuch0,bogus' \(available: .*lo"
timeout 30 "$SB" -p "$P" --ifname =lo --family 6 --oob-timeout 1 >"$T/o.out" 2>"$T/o.err"
rc=$?
# lo has ::1 where IPv6 is on: then the server listens there (and nobody comes, exit 1);
# where it is off the message names the family.
if [ $rc -eq 1 ]; then
	expect_grep "$T/o.err" "no client connected"
else
	expect_rc "lo IPv6" $rc 2
	expect_grep "$T/o.err" "matching '=lo' with an IPv6 address"
fi
expect_took "the missing-interface errors" $(($(now_ms) - start)) 10
pass "interface selection"

#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# A sender that holds a -D step open cannot hold its receiver: the client is SIGSTOPped
# as soon as its header shows, within a -D 4 step (long enough that a slow guest still
# finds it mid-step) whose --timeout (60 s) would wait far longer; the server ends the
# step by its own clock at -D plus the grace (5 s + half of -D: 7 s), exits 1 naming
# both, and its document is incomplete. Continued, the client learns why.
source "$(dirname "$0")/lib.sh"
start_server "$BW" -s 64K -D 4 --timeout 60 --json "$T/srv.json"
start_client "$BW" -s 64K -D 4 --timeout 60
wait_for "$T/cli.out" "QP timeout" 60 || fail "the run never got established"
cpid=$(tool_pid "$CLI")
[ -n "$cpid" ] || fail "cannot find the client's process"
kill -STOP "$cpid"
t0=$(now_ms)
wait_server
took=$(($(now_ms) - t0))
kill -CONT "$cpid"
wait_client
expect_rc server "$SRC" 1
expect_grep "$T/srv.err" "the peer [0-9.:]+ was still sending [0-9.]+ s after the agreed -D 4 s \(grace 7 s(, and [0-9.]+ s this side.s threads waited for a CPU)?\): step ended by this side"
# From the stop: at most the 11 s the step may last, with room for a slow guest.
expect_took "the server's end of the held step" "$took" 25
python3 "$(dirname "$0")/../lib/no_result.py" "$T/srv.json" || fail "the server's document says complete"
expect_rc client "$CRC" 1
echo "server ended the held step ${took} ms after the client stopped"
pass "a held -D step ends at -D plus the grace on the receiver's clock"

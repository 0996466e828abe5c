#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# A client cannot hold a server past the server's own -D: the receiving side ends a
# -D step by its own clock at -D plus the grace (max(2 s, D/4)), whatever the sender
# does. A real client is frozen (SIGSTOP) 0.5 s into a -D 2 step and thawed 20 s later;
# the server's --timeout is 60 s, so its silence bound is no help. The server ends the
# step 4 s after it began, names -D and the grace, and, --persist, serves the next
# client at once.
source "$(dirname "$0")/lib.sh"

P=$((P + 1))
"$SB" -p "$P" --persist -D 2 --timeout 60 >"$T/srv.out" 2>"$T/srv.err" &
SRV=$!
"$SB" -p "$P" -s 64K -D 2 127.0.0.1 >"$T/cli1.out" 2>"$T/cli1.err" &
cli=$!
# The header's last line is printed just before the step's barrier.
wait_for "$T/cli1.out" "^ Socket options" 30 || fail "the first client never started its step"
t0=$(now_ms)
sleep 0.5
kill -STOP "$cli"
wait_for "$T/srv.err" "step ended by this side" 15
took=$(($(now_ms) - t0))
kill -CONT "$cli"
expect_grep "$T/srv.err" "the peer [0-9.:]+ was still sending [0-9.]+ s after the agreed -D 2 s \(grace 2 s(, and [0-9.]+ s this side.s threads waited for a CPU)?\): step ended by this side"
# Ended at D + grace of its own clock (which started after this header), not when the client
# woke; both ends of $took are seen up to 0.1 s late (wait_for's turns).
[ "$took" -ge 3500 ] || fail "the server ended the step after $took ms, before -D 2 s + grace 2 s"
expect_took "the server's end of the step" "$took" 8
reap "$cli" 30 "the first client"
timeout 60 "$SB" -p "$P" -s 64K -D 2 --quiet 127.0.0.1 >"$T/cli2.out" 2>"$T/cli2.err"
expect_rc "the next client" $? 0
stop_server INT
expect_rc "persistent server" "$SRC" 0
expect_grep "$T/srv.err" "after 2 run\(s\), 1 failed"
pass "the server ended a held step ${took} ms after it began, then served the next client"

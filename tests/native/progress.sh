#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# A sweep shows its progress on stderr: on a terminal a line rewritten in place, within a
# long size too; in a file a line every 10 s of a long size (the client's); never in a
# document or on stdout, and nothing with --quiet.
source "$(dirname "$0")/lib.sh"
command -v script >/dev/null || fail "script(1) missing (util-linux)"
P=$((P + 1))
"$SB" -p "$P" --quiet --sizes 1K:4K -n 50 >"$T/srv.out" 2>"$T/srv.err" &
SRV=$!
# script(1) gives the client a terminal; its transcript holds what the terminal showed.
timeout 60 script -qec "$SB -p $P --sizes 1K:4K -n 50 127.0.0.1" "$T/tty.log" >/dev/null
expect_rc "client on a terminal" $? 0
wait "$SRV"
expect_rc "server" $? 0
expect_grep "$T/tty.log" "socket_bw: size 1024 B \(1/3\)"
expect_grep "$T/tty.log" "socket_bw: size 4096 B \(3/3\), ETA [0-9]+:[0-9]{2}"
# Erased before each row: a row never follows the progress text on its line.
grep -aqE "\(3/3\), ETA [0-9:]+ +4096" "$T/tty.log" && fail "a row printed after the progress text"
# Not a terminal, short sizes: no progress anywhere.
pair --sizes 1K:4K -n 50
expect_rc "client" "$CRC" 0
grep -qE "\([0-9]+/3\)" "$T/cli.err" "$T/cli.out" && fail "progress written to a file"

# A long size, three clients at once (one port each): a terminal's line says how far into
# the size it is; a log gets a line at 10 s; --quiet gets none.
Q=$((P + 1)) L=$((P + 2)) S=$((P + 3))
P=$S
for p in "$Q" "$L" "$S"; do "$SB" -p "$p" --quiet >/dev/null 2>&1 & done
timeout 60 "$SB" -p "$Q" --quiet -s 1K -D 11 --csv "$T/q.csv" 127.0.0.1 >"$T/q.out" 2>"$T/q.err" &
QC=$!
timeout 60 "$SB" -p "$L" -s 1K -D 11 127.0.0.1 >"$T/l.out" 2>"$T/l.err" &
LC=$!
timeout 60 script -qec "$SB -p $S -s 1K -D 4 127.0.0.1" "$T/long.log" >/dev/null
expect_rc "client on a terminal, -D 4" $? 0
wait "$QC"
expect_rc "client --quiet" $? 0
wait "$LC"
expect_rc "client to a file" $? 0
wait
# The ticker's second is its own, not the size's: a loaded host may see 2 or 3 s.
expect_grep "$T/long.log" "socket_bw: size 1024 B, [23] s of 4 s"
expect_grep "$T/l.err" "^socket_bw: size 1024 B: 1[01] s of 11 s$"
[ "$(grep -c "size 1024 B" "$T/l.err")" -eq 1 ] || fail "more than one progress line in 11 s: $(cat "$T/l.err")"
grep -q "size 1024" "$T/l.out" "$T/q.out" "$T/q.err" && fail "progress on stdout or despite --quiet"
pass "progress on a terminal, within long sizes too; in a log every 10 s; none with --quiet"

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
timeout 60 script -qec "$SB -p $P --sizes 1K:4K -n 50 127.0.0.1" "$T/tty.out" >/dev/null
expect_rc "client on a terminal" $? 0
wait "$SRV"
expect_rc "server" $? 0
expect_grep "$T/tty.out" "socket_bw: size 1024 B \(1/3\)"
expect_grep "$T/tty.out" "socket_bw: size 4096 B \(3/3\), ETA [0-9]+:[0-9]{2}"
# Erased before each row: a row never follows the progress text on its line.
grep -aqE "\(3/3\), ETA [0-9:]+ +4096" "$T/tty.out" && fail "a row printed after the progress text"
# Not a terminal, short sizes: no progress anywhere.
pair --sizes 1K:4K -n 50
expect_rc "client" "$CRC" 0
grep -qE "\([0-9]+/3\)" "$T/cli.err" "$T/cli.out" && fail "progress written to a file"

# A long size on a terminal: the line says how far into the size it is. Alone, and a
# round trip at a time (--ping-pong, nothing queued to drain after -D): a client under
# script(1) is a session of its own, and on a loaded 2-core host one beside busy pairs was
# seen starved for seconds (a round trip of 4.9 s, "10 s of 4 s"), so any second from
# 2 on is taken.
S=$((P + 1))
"$SB" -p "$S" --quiet >/dev/null 2>&1 &
SRV=$!
timeout 60 script -qec "$SB -p $S --ping-pong --timeout 30 -s 1K -D 4 127.0.0.1" "$T/long.out" \
	</dev/null >/dev/null
expect_rc "client on a terminal, -D 4" $? 0
wait_server
expect_rc "server of the terminal's client" "$SRC" 0
expect_grep "$T/long.out" "socket_bw: size 1024 B, ([2-9]|[1-9][0-9]) s of 4 s"

# Two clients at once (one port each): a log gets a line at 10 s; --quiet gets none.
Q=$((S + 1)) L=$((S + 2))
P=$L
for p in "$Q" "$L"; do "$SB" -p "$p" --quiet >/dev/null 2>&1 & done
timeout 60 "$SB" -p "$Q" --quiet --ping-pong -s 1K -D 11 --csv "$T/q.csv" 127.0.0.1 >"$T/q.out" 2>"$T/q.err" &
QC=$!
timeout 60 "$SB" -p "$L" --ping-pong -s 1K -D 11 127.0.0.1 >"$T/l.out" 2>"$T/l.err"
expect_rc "client to a file" $? 0
wait "$QC"
expect_rc "client --quiet" $? 0
wait
expect_grep "$T/l.err" "^socket_bw: size 1024 B: 1[01] s of 11 s$"
[ "$(grep -c "size 1024 B" "$T/l.err")" -eq 1 ] || fail "more than one progress line in 11 s: $(cat "$T/l.err")"
grep -q "size 1024" "$T/l.out" "$T/q.out" "$T/q.err" && fail "progress on stdout or despite --quiet"
pass "progress on a terminal, within long sizes too; in a log every 10 s; none with --quiet"

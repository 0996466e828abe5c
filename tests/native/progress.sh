#!/bin/bash
# A sweep shows its progress on a terminal (stderr), and never in a file or a pipe.
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
# Not a terminal: no progress anywhere.
pair --sizes 1K:4K -n 50
expect_rc "client" "$CRC" 0
grep -qE "\([0-9]+/3\)" "$T/cli.err" "$T/cli.out" && fail "progress written to a file"
pass "progress on a terminal only"

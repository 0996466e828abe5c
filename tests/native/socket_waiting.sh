#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# A client whose server is not up yet says so at once, naming what it met and how long
# it will keep trying (as iperf3 would fail at once; retrying is right, silence is not),
# then connects when the server comes, or fails at --oob-timeout with the cause.
source "$(dirname "$0")/lib.sh"
P=$((P + 1))
start=$(now_ms)
timeout 60 "$SB" -p "$P" -s 64K -n 100 --oob-timeout 30 --quiet 127.0.0.1 >"$T/cli.out" 2>"$T/cli.err" &
CLI=$!
wait_for "$T/cli.err" "warning: no server at 127\.0\.0\.1 port $P yet \(Connection refused\); retrying until --oob-timeout 30 s" 10 ||
	fail "the waiting client said nothing: $(cat "$T/cli.err")"
said=$(($(now_ms) - start))
[ "$(grep -c "no server at" "$T/cli.err")" -eq 1 ] || fail "said more than once: $(cat "$T/cli.err")"
"$SB" -p "$P" >"$T/srv.out" 2>"$T/srv.err" &
SRV=$!
wait "$CLI"
expect_rc "client, once the server came" $? 0
wait_server
expect_rc server "$SRC" 0
echo "ok: said it was waiting after ${said} ms, then ran when the server came"
P=$((P + 1))
timeout 30 "$SB" -p "$P" -s 64K -n 10 --oob-timeout 2 127.0.0.1 >"$T/cli.out" 2>"$T/cli.err"
expect_rc "client with no server" $? 1
expect_grep "$T/cli.err" "^socket_bw: warning: no server at 127\.0\.0\.1 port $P yet"
expect_grep "$T/cli.err" "^socket_bw: cannot connect to 127\.0\.0\.1 port $P within 2 s: Connection refused$"
pass "a waiting client says so at once, then connects or fails at --oob-timeout"

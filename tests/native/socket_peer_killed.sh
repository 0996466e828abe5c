#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# The server dies (SIGKILL) or stops (SIGSTOP) mid-run: the client ends, exit 1, with
# the cause: at once when the kernel closes the dead server's sockets, within
# --timeout when the stopped server just goes silent.
source "$(dirname "$0")/lib.sh"

# hit SIGNAL LIMIT ARGS...: starts both sides, sends SIGNAL to the server once the run
# is established; the client must end within LIMIT seconds. Sets CRC and TOOK.
hit() {
	local sig=$1 limit=$2 cli start
	shift 2
	P=$((P + 1))
	"$SB" -p "$P" "$@" >"$T/srv.out" 2>"$T/srv.err" &
	SRV=$!
	timeout 60 "$SB" -p "$P" "$@" 127.0.0.1 >"$T/cli.out" 2>"$T/cli.err" &
	cli=$!
	wait_for "$T/srv.out" "Socket options|Mode" 30 || fail "the run never got established"
	sleep 1
	kill -s "$sig" "$SRV"
	start=$(now_ms)
	wait "$cli"
	CRC=$?
	TOOK=$(($(now_ms) - start))
	kill -9 "$SRV" 2>/dev/null
	wait "$SRV" 2>/dev/null
	SRV=
	expect_rc "client (server got SIG$sig)" "$CRC" 1
	expect_took "the client after SIG$sig" "$TOOK" "$limit"
	echo "ok: $* (server SIG$sig): $(head -n 1 "$T/cli.err") (${TOOK} ms)"
}

hit KILL 5 -s 1M -D 60 --timeout 3
expect_grep "$T/cli.err" "closed the connection|Connection reset|Broken pipe|no progress|nothing moved"
hit STOP 8 -s 1M -D 60 --timeout 3 -b --nsocks 2
expect_grep "$T/cli.err" "nothing moved for 3 s|no progress( .*)? for 3 s"
hit STOP 8 --ping-pong -s 64K -D 60 --timeout 3
expect_grep "$T/cli.err" "the peer sent nothing within --timeout"
pass "killed or stopped server detected"

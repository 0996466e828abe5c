#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# A host that stops running both ends at once (a frozen VM, a starved host: CI has held
# a process off its CPUs for 11 s) is no one's silence and no one's lateness. A
# --verify -D 1 step between a real server and client, both frozen (SIGSTOP) 0.3 s into
# it for 5 s, longer than their --timeout 2 and than -D plus the grace (3 s): each side's
# control thread sees the gap between two of its turns, counts it as this host's wait,
# not the peer's silence, and the step ends when the data has crossed, checked and
# whole: both exit 0, the row's time holds the freeze. Frozen alone, one side is late
# (socket_slow_holder.sh), and its peer still says so.
source "$(dirname "$0")/lib.sh"

# freeze ARGS...: one --verify -D 1 step of a server and client given ARGS, both frozen
# 0.3 s into it for 5 s; both must end it whole.
freeze() {
	P=$((P + 1))
	"$SB" -p "$P" --timeout 2 --verify >"$T/srv.out" 2>"$T/srv.err" &
	SRV=$!
	"$SB" -p "$P" -D 1 --timeout 2 --verify --csv "$T/c.csv" "$@" 127.0.0.1 >"$T/cli.out" 2>"$T/cli.err" &
	cli=$!
	wait_for "$T/cli.out" "^ Socket options" 30 || fail "the client never started its step: $(cat "$T/cli.err")"
	sleep 0.3
	kill -STOP "$SRV" "$cli"
	sleep 5
	kill -CONT "$SRV" "$cli"
	reap "$cli" 30 "the client"
	expect_rc "client frozen with its server ($*)" "$REAPED" 0
	wait_server
	expect_rc "server frozen with its client ($*)" "$SRC" 0
	python3 - "$T/c.csv" "$*" <<'PY' || fail "the row does not hold the freeze: $(cat "$T/c.csv")"
import csv, sys
r = list(csv.DictReader(open(sys.argv[1])))[-1]
# The freeze is in the step's time: 5 s and more of a 1 s step.
assert float(r["elapsed_s"]) >= 5, r
assert int(r["bytes"]) > 0, r
print("%s: %s s, %s bytes" % (sys.argv[2], r["elapsed_s"], r["bytes"]))
PY
}

# Small messages: the server's control thread mostly sleeps on the channel; large ones
# over two threads of two sockets: it mostly waits for room in the receive ring, and
# the workers in their socket calls.
freeze -s 64K
freeze -s 1M --nthreads 2 --nsocks 2
pass "both ends frozen 5 s in a -D 1 step with --timeout 2: the step ended whole, verified"

#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# The closing agreement: a man in the middle changes the client's DONE (one bit of its
# byte count flipped, or the whole payload random). The server's check fails, and the
# client, which holds no result until the server's verdict on the step, fails too:
# both exit 1, the client naming the server's cause, and neither document is complete.
# And the other way: a persistent server stopped (SIGINT) after its client left with
# the server's verdict, but before the server read the client's (RB_TEST_FAULT
# verdict-late holds it there 1 s), still takes the verdict that had arrived: the run
# is complete on both sides, and the stop finds the server between runs (exit 0).
source "$(dirname "$0")/lib.sh"

for mode in flip-done garble-done; do
	mitm "$mode" --json "$T/srv.json" -- -s 64K -n 200 --json "$T/cli.json"
	expect_grep "$T/mitm.out" "^(flipped|garbled) DONE$"
	expect_rc "server [$mode]" "$SRC" 1
	expect_rc "client [$mode]" "$CRC" 1
	expect_grep "$T/cli.err" "peer 127\.0\.0\.1:[0-9]+ \(the server\) failed: .*(the peer sent|malformed DONE)"
	python3 "$(dirname "$0")/../lib/no_result.py" "$T/srv.json" "$T/cli.json" || fail "[$mode] a document says complete"
done
# The same run untouched: both complete (the proxy itself changes nothing).
mitm pass --json "$T/srv.json" -- -s 64K -n 200 --json "$T/cli.json"
expect_rc "server [pass]" "$SRC" 0
expect_rc "client [pass]" "$CRC" 0

P=$((P + 1))
RB_TEST_FAULT=verdict-late "$SB" -p "$P" --persist --json "$T/late.json" >"$T/srv.out" 2>"$T/srv.err" &
SRV=$!
timeout 60 "$SB" -p "$P" --quiet -s 64K -n 50 --json "$T/late-cli.json" 127.0.0.1 2>"$T/cli.err"
expect_rc "client of the late server" $? 0
stop_server INT
expect_rc "persistent server stopped while it took the client's verdict" "$SRC" 0
expect_grep "$T/srv.err" "stopped while waiting for a client, after 1 run\(s\), 0 failed"
python3 - "$T/late-1.json" "$T/late-cli.json" <<'PY' || fail "the two sides disagree on the run"
import json, sys
for f in sys.argv[1:]:
    d = json.load(open(f))
    assert d["complete"] and not d.get("error"), (f, d.get("error"))
PY
pass "a DONE changed in flight fails the step on both sides; a verdict in before a stop is taken"

#!/bin/bash
# The closing agreement: a man in the middle changes the client's DONE (one bit of its
# byte count flipped, or the whole payload random). The server's check fails, and the
# client, which holds no result until the server's verdict on the step, fails too:
# both exit 1, the client naming the server's cause, and neither document is complete.
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
pass "a DONE changed in flight fails the step on both sides"

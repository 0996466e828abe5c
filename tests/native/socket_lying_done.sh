#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# Each side's row is its own clock: a client whose DONE claims the step took 1 ns (a
# man in the middle rewrites it, oob_mitm.py lie-done) cannot make the server report
# an absurd rate. The server measured the step itself: the two figures are further
# apart than the link can explain, so its step fails with both figures named (or, on
# a host so loaded that its own stall could explain the gap, it says it cannot judge
# the peer's clock and keeps its own). Either way the closing agreement's chains of
# figures differ, so no row is written, both documents are incomplete and both exit 1,
# each naming the cause.
source "$(dirname "$0")/lib.sh"
mitm lie-done --json "$T/srv.json" -- -s 64K -D 1
expect_grep "$T/mitm.out" "^rewrote DONE$"
expect_rc server "$SRC" 1
expect_rc client "$CRC" 1
clock="peer's DONE says the step took 0\.000001 ms, this side measured [0-9.]+ ms: more than the link can explain"
doubt="peer's DONE says the step took 0\.000 ms, this side measured [0-9.]+ ms, but this host stalled [0-9.]+ ms for a CPU meanwhile: the clock of .* is not judged"
expect_grep "$T/srv.err" "$clock|$doubt"
expect_grep "$T/cli.err" "\(the server\) failed: $clock|took other figures than this side sent"
python3 - "$T/srv.json" "$T/srv.out" "$T/srv.err" <<'PY' || fail "the server reported the lie"
import json, re, sys
d = json.load(open(sys.argv[1]))
assert d["complete"] is False, d["complete"]
assert re.search("more than the link can explain|sent other figures than this side took", d["error"]), d["error"]
assert not d["results"], d["results"]
# Its own figure is about the -D 1 it ran, not 1 ns.
ms = float(re.search(r"this side measured ([0-9.]+) ms", open(sys.argv[3]).read()).group(1))
assert 900 <= ms <= 5000, ms
# No row on stdout either (the text table's rows start with the size).
assert not re.search(r"^\s+65536\s", open(sys.argv[2]).read(), re.M), open(sys.argv[2]).read()
print(f"server measured {ms} ms, refused the client's 1 ns")
PY
pass "a DONE that lies about the time fails the step, never a row"

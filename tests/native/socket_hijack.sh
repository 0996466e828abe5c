#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# A third party that connects to the server's data port before the real client (when
# DATAPORT passes, oob_mitm.py hijack opens 6 connections: socket_bw's old fixed
# greeting with payload behind it, garbage, an all-zero token, half a greeting,
# nothing, a close) takes no data stream: each data connection must open with the
# run's random token. The run completes with every byte verified, the server counts
# exactly what the client sent, and the 6 refusals cost one warning line.
source "$(dirname "$0")/lib.sh"
mitm hijack --json "$T/srv.json" -- -s 256K -n 200 --verify --nsocks 2 -b --json "$T/cli.json"
expect_grep "$T/mitm.out" "^hijacked 6$"
expect_rc client "$CRC" 0
expect_rc server "$SRC" 0
[ "$(grep -c "data port" "$T/srv.err")" -eq 1 ] || fail "not exactly one line about the data port"
expect_grep "$T/srv.err" "data port: refused 6 connection\(s\) that did not open with this run's token, none counted \(the first from 127\.0\.0\.1: "
[ "$(wc -l <"$T/srv.err")" -eq 1 ] || fail "the server said more than the one warning"
python3 - "$T/srv.json" "$T/cli.json" <<'PY' || fail "the hijacker's bytes were counted"
import json, sys
s, c = (json.load(open(p)) for p in sys.argv[1:3])
assert s["complete"] and c["complete"], (s["complete"], c["complete"])
(sr,), (cr,) = s["results"], c["results"]
want = 2 * 200 * 256 * 1024  # both directions, every message verified by its receiver
assert sr["bytes"] == cr["bytes"] == want, (sr["bytes"], cr["bytes"], want)
assert sr["msgs"] == cr["msgs"] == 400 and sr["verify"] and cr["verify"], (sr, cr)
print(f"both sides counted {want} bytes; the hijacker's were not among them")
PY
pass "strangers on the data port are refused, counted in one line, and move nothing"

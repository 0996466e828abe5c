#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# A server started with no test parameters runs its client's, as an iperf3 server
# does: buffers, QPs and receive queues are sized after they arrive. Both verbs tools.
source "$(dirname "$0")/lib.sh"

start_server "$BW" --json "$T/srv.json"
run_client "$BW" -s 4K,64K -n 300 -q 2 --write-with-imm --verify --json "$T/cli.json"
wait_server
expect_rc client "$CRC" 0
expect_rc "server without parameters" "$SRC" 0
python3 - "$T/srv.json" "$T/cli.json" <<'PY' || fail "rc_write_bw's server did not run the client's parameters"
import json, sys
s, c = (json.load(open(p)) for p in sys.argv[1:])
assert s["complete"] and c["complete"], (s, c)
for d in (s, c):
    m, r = d["meta"], d["results"]
    assert m["qps"] == 2 and m["iterations"] == 300 and m["write_with_imm"] and m["verify"], m
    assert [x["size_bytes"] for x in r] == [4096, 65536], r
    assert all(x["msgs"] == 600 and x["op"] == "write_with_imm" for x in r), r
print("rc_write_bw server: -s 4K,64K -n 300 -q 2 --write-with-imm --verify from its client")
PY

start_server "$LAT" --json "$T/srv.json"
run_client "$LAT" -s 64 -n 500 --warmup 10 --event --json "$T/cli.json"
wait_server
expect_rc client "$CRC" 0
expect_rc "server without parameters" "$SRC" 0
python3 - "$T/srv.json" <<'PY' || fail "rc_write_lat's server did not run the client's parameters"
import json, sys
d = json.load(open(sys.argv[1]))
r = d["results"]
assert d["complete"] and d["meta"]["event"] and len(r) == 1, d
assert r[0]["size_bytes"] == 64 and r[0]["iterations"] == 500 and r[0]["warmup"] == 10, r
assert r[0]["arrival"] == "event", r
print("rc_write_lat server: -s 64 -n 500 --warmup 10 --event from its client")
PY
# A server given every option its client sends keeps the QPs it built before the client
# came; one that takes the client's options builds them again, for those (-v: one line
# per set-up, "N QPs, ... created").
pair "$BW" -v -s 64 -n 100 -q 3
expect_rc "client, both given -q 3" "$CRC" 0
expect_rc "server, both given -q 3" "$SRC" 0
built=$(grep -c 'QPs, .* created on' "$T/srv.err")
[[ $built -eq 1 ]] || fail "a server given its client's options set up $built times, expected once"
start_server "$BW" -v
run_client "$BW" -s 64 -n 100 -q 3
wait_server
expect_rc "server without -q" "$SRC" 0
built=$(grep -c 'QPs, .* created on' "$T/srv.err")
[[ $built -eq 2 ]] || fail "a server without -q set up $built times, expected 2 (its own, then its client's)"
grep 'QPs, .* created on' "$T/srv.err" | tail -1 | grep -q ' 3 QPs, ' ||
	fail "the server's second set-up is not its client's 3 QPs: $(grep 'created on' "$T/srv.err")"
pass "a server with no test parameters runs its client's; one given them sets up once"

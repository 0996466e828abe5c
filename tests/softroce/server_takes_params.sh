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
pass "a server with no test parameters runs its client's"

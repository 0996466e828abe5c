#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# --ping-pong: latency statistics like rc_write_lat's, payload echoed and verified.
source "$(dirname "$0")/lib.sh"
pair --ping-pong -s 8,4K,64K -n 300 --warmup 20 --verify --json "$T/r.json"
expect_rc client "$CRC" 0
expect_rc server "$SRC" 0
expect_grep "$T/cli.out" "t_typical\[usec\]"
python3 - "$T/r.json" <<'PY' || fail "ping-pong result wrong"
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d["results"]) == 3
for r in d["results"]:
    v = [r[k] for k in ("lat_min_us", "lat_p50_us", "lat_p90_us", "lat_p99_us", "lat_p999_us", "lat_max_us")]
    assert v == sorted(v) and v[0] > 0 and r["iterations"] == 300 and r["warmup"] == 20, r
PY
pass "ping-pong with verify"

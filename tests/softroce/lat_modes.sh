#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# rc_write_lat in every arrival mode and with inline: results present, ordered,
# identical on both sides, counts right.
source "$(dirname "$0")/lib.sh"
for mode in "" "-I 64" "--write-with-imm" "--event"; do
	# shellcheck disable=SC2086
	pair "$LAT" -s 8,4K -n 100 --warmup 20 $mode --json "$T/r.json"
	expect_rc "client [$mode]" "$CRC" 0
	expect_rc "server [$mode]" "$SRC" 0
	diff <(table_rows "$T/cli.out") <(table_rows "$T/srv.out") >/dev/null ||
		fail "[$mode] client and server rows differ"
	python3 - "$T/r.json" "$mode" <<'PY' || fail "[$mode] JSON wrong"
import json, sys
d = json.load(open(sys.argv[1]))
mode = sys.argv[2]
assert d["complete"] and len(d["results"]) == 2
assert d["meta"]["percentile_method"] == "nearest rank"
for r in d["results"]:
    assert r["iterations"] == 100 and r["warmup"] == 20, r
    keys = ["lat_min_us", "lat_p50_us", "lat_p90_us", "lat_p99_us", "lat_p999_us", "lat_max_us"]
    vals = [r[k] for k in keys]
    assert vals == sorted(vals) and vals[0] > 0, r
    assert r["lat_min_us"] <= r["lat_mean_us"] <= r["lat_max_us"], r
    want = {"": "memory_poll", "-I 64": "memory_poll", "--write-with-imm": "cq_poll", "--event": "event"}[mode]
    assert r["arrival"] == want, r
    if mode == "-I 64":
        assert r["inline_bytes"] == (64 if r["size_bytes"] <= 64 else 0), r
print(mode or "memory poll", [(r["size_bytes"], r["lat_p50_us"]) for r in d["results"]])
PY
done
pass "latency in memory-poll, inline, write-with-imm and event modes"

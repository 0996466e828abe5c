#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# A duration run (issue 17): no sample cap, and every view of the run agrees (the
# memory of long runs is measured by bench/lat_rss, not here). The samples file holds one line per measured round trip; tps is
# iterations over elapsed time; the printed histogram adds up to the iterations;
# the percentiles are ordered; the method is the one the run's length implies; both
# sides print the same row. With --interval 2 the client also writes a row per 2 s,
# each with its own statistics: they tile the run and add up to its row.
source "$(dirname "$0")/lib.sh"
args=(-D 10 -s 2 --histogram --interval 2)
start_server "$LAT" "${args[@]}" --json "$T/srv.json"
run_client "$LAT" "${args[@]}" --json "$T/cli.json" --samples "$T/samples.csv"
wait_server
expect_rc client "$CRC" 0
expect_rc server "$SRC" 0
diff <(table_rows "$T/cli.out" | grep ' total$') <(table_rows "$T/srv.out") >/dev/null ||
	fail "client and server rows differ"
expect_grep "$T/cli.out" "histogram \([0-9]+ samples, log2 buckets\)"
python3 - "$T/cli.json" "$T/srv.json" "$T/samples.csv" "$T/cli.out" <<'PY' || fail "the duration run is inconsistent"
import csv, json, re, sys
cli, srv = (json.load(open(p)) for p in sys.argv[1:3])
assert cli["complete"] and srv["complete"], (cli, srv)
assert len(srv["results"]) == 1 and srv["results"][0]["interval"] == "total", srv["results"]
ivs = [x for x in cli["results"] if x["interval"] != "total"]
assert cli["results"][-1]["interval"] == "total" and len(ivs) == len(cli["results"]) - 1, cli["results"]
r, s = cli["results"][-1], srv["results"][0]
n = r["iterations"]
# Every column but this side's own device, wake-ups and port counters is the same on both sides.
own = {"device", "event_wakeups", "empty_wakeups", "late_wakeups"}
def shared(row):
    return {k: v for k, v in row.items() if k not in own and not k.startswith("ctr_")}
assert shared(r) == shared(s), (r, s)
samples = list(csv.reader(open(sys.argv[3])))
assert samples[0] == ["size_bytes", "iteration", "latency_us"], samples[0]
assert len(samples) - 1 == n, (len(samples) - 1, n)
assert [int(x[1]) for x in samples[1:]] == list(range(1, n + 1)), "iterations not 1..n in order"
assert all(x[0] == "2" for x in samples[1:]), "a sample of another size"
lat = [float(x[2]) for x in samples[1:]]
assert abs(min(lat) - r["lat_min_us"]) <= 0.01 and abs(max(lat) - r["lat_max_us"]) <= 0.01, (min(lat), max(lat), r)
secs, tps = r["elapsed_s"], r["tps"]
assert secs >= 10 and abs(n / secs - tps) <= 0.001 * tps + 0.1, (n, secs, tps)
counts = [int(m.group(1)) for m in re.finditer(r"\) us +(\d+) ", open(sys.argv[4]).read())]
assert sum(counts) == n, (sum(counts), n)
assert r["lat_min_us"] <= r["lat_p50_us"] <= r["lat_p99_us"] <= r["lat_max_us"], r
# -D keeps no samples: the histogram's percentiles; -n up to 4194304 would be exact.
want = "exact" if cli["meta"]["iterations"] and cli["meta"]["iterations"] <= 4194304 else "histogram"
assert r["percentile_method"] == want, (r["percentile_method"], want)
# The intervals tile the measured time and add up to the run's row.
assert 5 <= len(ivs) <= 6, [x["interval"] for x in ivs]
assert ivs[0]["t_start_s"] == 0 and abs(ivs[-1]["t_end_s"] - secs) <= 1e-6, (ivs[0], ivs[-1], secs)
for a, b in zip(ivs, ivs[1:]):
    assert a["t_end_s"] == b["t_start_s"], (a, b)
    # An interval ends at the first round trip that completes past its 2 s; a guest that
    # the host starves (a 9p write of the samples file, a busy host) can stall that by a
    # second, seen here at 0.9 s. The tiling above is exact whatever the stall.
    assert abs(a["t_end_s"] - a["t_start_s"] - 2) <= 1.5, a
assert sum(x["iterations"] for x in ivs) == n, (sum(x["iterations"] for x in ivs), n)
assert min(x["lat_min_us"] for x in ivs) == r["lat_min_us"], r
assert max(x["lat_max_us"] for x in ivs) == r["lat_max_us"], r
for x in ivs:
    assert x["percentile_method"] == "histogram", x
    assert x["lat_min_us"] <= x["lat_p50_us"] <= x["lat_p99_us"] <= x["lat_p999_us"] <= x["lat_max_us"], x
    assert abs(x["iterations"] / x["elapsed_s"] - x["tps"]) <= 0.001 * x["tps"] + 0.1, x
print("intervals:", ", ".join(f'{x["interval"]} s: {x["iterations"]} p99 {x["lat_p99_us"]} max {x["lat_max_us"]}' for x in ivs))
print(f"{n} samples in {secs:.2f} s = {tps:.0f} trans/s, p50 {r['lat_p50_us']} us, {want}; all views agree")
PY
pass "a 10 s duration run in 2 s intervals: samples file, tps, histogram, percentiles and both rows agree"

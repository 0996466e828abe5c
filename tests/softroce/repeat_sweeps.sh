#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# --repeat 3 sweeps of rc_write_bw and rc_write_lat on rxe: each size measured three
# times, each repeat's row kept, the size's summary row their median with P5/P95/CV
# (recomputed here from the repeats' rows), bandwidth rows' share of the link and of
# the wire (recomputed here from the headers of RoCE v2), the packets the port counted
# for every repeat, and the sweep's model in the text and JSON.
source "$(dirname "$0")/lib.sh"
# The client's documents (the sender's port counts its packets); the server takes its parameters.
start_server "$BW"
run_client "$BW" -s 64,4K,64K -n 1000 --repeat 3 --json "$T/bw.json" --csv "$T/bw.csv"
wait_server
expect_rc client "$CRC" 0
expect_rc server "$SRC" 0
grep -q "^ Repeats        : 3 runs of each size" "$T/cli.out" || fail "no Repeats line in the header"
grep -qE "rep_p5 +rep_p95 +rep_CV\[%\] +unstable" "$T/cli.out" || fail "the table lacks the spread columns"
[ "$(table_rows "$T/cli.out" | wc -l)" -eq 3 ] || fail "the table should show one row a size (the summaries)"
# The model under the table, or (rxe can slow down as messages grow) why there is none.
grep -qE "^ Model T = t_lat \+ N / B_eff (\(bw_avg_gbps\): t_lat [0-9.e+-]+ us, B_eff [0-9.e+-]+ Gb/s \(eta [0-9.]+ % of the link\)|does not fit this sweep: t_lat would be -)" \
	"$T/cli.out" || fail "no model line under the table"
cp "$T/cli.out" "$T/bw.txt"
start_server "$LAT"
run_client "$LAT" -s 64,1K,4K -n 1000 --repeat 3 --json "$T/lat.json"
wait_server
expect_rc client "$CRC" 0
expect_rc server "$SRC" 0
python3 - "$T/bw.json" "$T/bw.csv" "$T/lat.json" "$T/bw.txt" <<'PY' || fail "repeat documents inconsistent"
import csv, json, math, statistics, sys
bw, lat = json.load(open(sys.argv[1])), json.load(open(sys.argv[3]))
rows = list(csv.DictReader(open(sys.argv[2])))

def quantile(v, q):
    v = sorted(v)
    pos = q * (len(v) - 1)
    lo = int(pos)
    return v[lo] if lo >= len(v) - 1 else v[lo] + (v[lo + 1] - v[lo]) * (pos - lo)

def check(doc, key, sizes):
    res = doc["results"]
    assert doc["complete"] and len(res) == 4 * len(sizes), len(res)
    assert [r["repeat"] for r in res] == ["1", "2", "3", "all"] * len(sizes), [r["repeat"] for r in res]
    for i, size in enumerate(sizes):
        reps, s = res[4 * i:4 * i + 3], res[4 * i + 3]
        assert all(r["size_bytes"] == size and r["repeats"] == 3 for r in reps + [s])
        v = [r[key] for r in reps]
        assert all(r[key + "_cv_pct"] is None for r in reps)
        assert s[key] == statistics.median(v), (s[key], v)
        assert math.isclose(s[key + "_p5"], quantile(v, 0.05), rel_tol=1e-9)
        assert math.isclose(s[key + "_p95"], quantile(v, 0.95), rel_tol=1e-9)
        assert s[key + "_min"] == min(v) and s[key + "_max"] == max(v)
        cv = statistics.stdev(v) / statistics.mean(v) * 100
        assert math.isclose(s[key + "_cv_pct"], cv, rel_tol=1e-9), (s[key + "_cv_pct"], cv)
        assert s["unstable"] == (cv > 5), (s["unstable"], cv)
        # A port counter's delta is summed over the repeats (a retry in one of them is kept).
        # A counter the device lacks is null in every row.
        for c in (k for k in s if k.startswith("ctr_")):
            if s[c] is None:
                assert all(r[c] is None for r in reps), (c, [r[c] for r in reps])
                continue
            assert s[c] == sum(r[c] for r in reps), (c, s[c], [r[c] for r in reps])
    m = doc.get("model")
    assert m is None or (m["sizes"] == len(sizes) and m["metric"] == key and m["b_eff_gbps"] > 0
                         and m["t_lat_us"] >= 0), m
    return res

res = check(bw, "bw_avg_gbps", [64, 4096, 65536])
# The JSON carries the model exactly when the text fitted one.
assert (bw.get("model") is not None) == ("does not fit" not in open(sys.argv[4]).read()), bw.get("model")
meta = bw["meta"]
assert meta["role"] == "client", meta["role"]
v6 = ":" in meta["gid"] and not meta["gid"].startswith("::ffff:")
per_pkt = 102 if v6 else 82  # RoCE v2: Ethernet, IP, UDP, BTH, ICRC, FCS, preamble, gap
for r in res:
    size, mtu, link = r["size_bytes"], r["mtu_bytes"], meta["link_gbps"]
    pkts = -(-size // mtu)
    wire = link * size / (size + (-size) % 4 + pkts * per_pkt + 16)
    assert math.isclose(r["wire_max_gbps"], wire, rel_tol=1e-9), (r["wire_max_gbps"], wire)
    assert math.isclose(r["wire_eff_pct"], r["bw_avg_gbps"] / wire * 100, rel_tol=1e-9)
    assert math.isclose(r["link_eff_pct"], r["bw_avg_gbps"] / link * 100, rel_tol=1e-9)
    if r["repeat"] != "all" and r["ctr_sent_pkts"] is not None:
        # The port counted each repeat's packets: at least every message's, at most twice (retries, ACKs).
        assert pkts * r["msgs"] <= r["ctr_sent_pkts"] <= 2 * pkts * r["msgs"] + 100, (r["ctr_sent_pkts"], r["msgs"])
# CSV: the same rows, with the repeat column, and no comment lines.
assert [c["repeat"] for c in rows] == [r["repeat"] for r in res] and all(c["error"] == "" for c in rows)
check(lat, "lat_p50_us", [64, 1024, 4096])
s = [r for r in res if r["repeat"] == "all"]
print("bw CV %%: %s; wire share %%: %s; model: %s" % (
    ", ".join("%.2f" % r["bw_avg_gbps_cv_pct"] for r in s), ", ".join("%.2f" % r["wire_eff_pct"] for r in s),
    bw.get("model")))
l = [r for r in lat["results"] if r["repeat"] == "all"]
print("lat p50 CV %%: %s" % ", ".join("%.2f" % r["lat_p50_us_cv_pct"] for r in l))
PY
pass "--repeat 3: every repeat kept, summaries their median and spread, link and wire shares, the model"

#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# rc_write_bw --interval: the client (it sends) writes a row per interval with the
# messages that completed in it, then the size's row; the intervals tile the size on
# its clock and add up to the row, in CSV and JSON alike. The server, given no
# parameter, takes them from the client and writes the size's row alone.
# --run_infinitely: one size until SIGINT, interval rows, then its total marked partial; the
# documents say it was interrupted, the client exits 130 and the server, told, exits 1.
source "$(dirname "$0")/lib.sh"
start_server "$BW" --json "$T/srv.json"
run_client "$BW" -s 65536 -D 3 --interval 1 --csv "$T/cli.csv" --json "$T/cli.json"
wait_server
expect_rc client "$CRC" 0
expect_rc server "$SRC" 0
expect_grep "$T/cli.out" " 0\.0-[0-9]+\.[0-9]+ *$"
expect_grep "$T/cli.out" " total *$"
python3 - "$T/cli.csv" "$T/cli.json" "$T/srv.json" <<'PY' || fail "interval rows inconsistent"
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
doc, srv = (json.load(open(p)) for p in sys.argv[2:4])
assert doc["complete"] and srv["complete"] and len(doc["results"]) == len(rows), rows
for c, j in zip(rows, doc["results"]):
    assert c["interval"] == j["interval"] and int(c["msgs"]) == j["msgs"], (c, j)
ivs, total = doc["results"][:-1], doc["results"][-1]
assert total["interval"] == "total" and all(r["interval"] != "total" for r in ivs), rows
# Guaranteed: a row ends at the first clock read at or after its mark, the first point of
# the 1 s grid past the previous row's end; never before it. How late is the scheduler's:
# a stall delays a row while the step still ends on its -D clock, so lateness is bounded
# only in that one row at least is on time (within 0.1 s), which a wrong pitch never is.
prev, lateness = 0.0, []
for r in ivs[:-1]:
    mark = float(int(prev + 1e-9) + 1)
    assert r["t_end_s"] >= mark - 1e-6, ("early", r["interval"], mark)
    lateness.append(r["t_end_s"] - mark)
    prev = r["t_end_s"]
assert not lateness or min(lateness) <= 0.1, ("no row on time", [r["interval"] for r in ivs])
assert 1 <= len(ivs) <= int(total["elapsed_s"]) + 2, [r["interval"] for r in ivs]
assert ivs[0]["t_start_s"] == 0 and abs(ivs[-1]["t_end_s"] - total["elapsed_s"]) <= 1e-6, (ivs[-1], total)
for a, b in zip(ivs, ivs[1:]):
    assert a["t_end_s"] == b["t_start_s"], (a, b)
assert sum(r["msgs"] for r in ivs) == total["msgs"] and sum(r["bytes"] for r in ivs) == total["bytes"], total
for r in ivs:
    assert r["msgs"] > 0 and r["bw_peak_gbps"] is None, r
    assert r["bytes"] == r["msgs"] * 65536 and abs(r["elapsed_s"] - (r["t_end_s"] - r["t_start_s"])) <= 1e-6, r
    assert abs(r["bw_avg_gbps"] - r["bytes"] * 8 / r["elapsed_s"] / 1e9) <= 1e-9 + 1e-6 * r["bw_avg_gbps"], r
assert total["bw_peak_gbps"] >= total["bw_avg_gbps"], total
s = srv["results"]
assert len(s) == 1 and s[0]["interval"] is None and (s[0]["msgs"], s[0]["bytes"]) == (total["msgs"], total["bytes"]), s
print("intervals:", ", ".join(f'{r["interval"]} s: {r["msgs"]} msgs {r["bw_avg_gbps"]:.3f} Gb/s' for r in ivs),
      f'; total {total["msgs"]} msgs {total["bw_avg_gbps"]:.3f} Gb/s')
PY

start_server "$BW" --allow-infinite --json "$T/srv.json"
timeout 120 "$BW" -d "$RB_DEV_PEER" -p "$P" -s 65536 --run_infinitely --interval 0.5 --json "$T/inf.json" \
	127.0.0.1 >"$T/cli.out" 2>"$T/cli.err" &
cli=$!
wait_for "$T/cli.out" " 1\.50-2\.[0-9]+ *$" 60 || fail "no fourth interval row"
kill -INT "$cli" # timeout(1) passes it on
wait "$cli"
CRC=$?
wait_server
expect_rc client "$CRC" 130
expect_rc server "$SRC" 1
expect_grep "$T/cli.err" "interrupted by SIGINT"
expect_grep "$T/srv.err" "peer .* failed: interrupted by SIGINT"
expect_grep "$T/cli.out" "Duration       : until SIGINT/SIGTERM"
python3 - "$T/inf.json" "$T/srv.json" <<'PY' || fail "the interrupted run's documents are wrong"
import json, sys
d, s = (json.load(open(p)) for p in sys.argv[1:3])
for x in (d, s):
    assert x["complete"] is False and "interrupted by SIGINT" in x["error"], (x["complete"], x["error"])
assert d["meta"]["run_infinitely"] is True and s["meta"]["run_infinitely"] is True, (d["meta"], s["meta"])
r, tot = d["results"][:-1], d["results"][-1]
assert len(r) >= 4 and all(x["interval"] != "total" and x["msgs"] > 0 and not x["partial"] for x in r), r
for a, b in zip(r, r[1:]):
    assert a["t_end_s"] == b["t_start_s"], (a, b)
# The run's total, cut by the signal: partial, from 0, holding every interval's messages.
assert tot["interval"] == "total" and tot["partial"] is True and tot["t_start_s"] == 0, tot
assert tot["msgs"] >= sum(x["msgs"] for x in r), (tot["msgs"], [x["msgs"] for x in r])
assert s["results"] == [], s["results"]
print(len(r), "interval rows before SIGINT; server:", s["error"])
PY
pass "bandwidth interval rows tile the size and add up; --run_infinitely ends on SIGINT with valid documents"

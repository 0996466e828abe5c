#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# --interval: within a -D ping-pong run the client writes a row per interval, each with
# its own statistics; they tile the run, add up to its row, and the server's document
# holds the size's row alone.
source "$(dirname "$0")/lib.sh"
P=$((P + 1))
args=(-p "$P" --ping-pong -s 64 -D 3 --interval 0.5)
"$SB" "${args[@]}" --json "$T/srv.json" >"$T/srv.out" 2>"$T/srv.err" &
SRV=$!
# RB_STEP_MARK_FD (what --victim's rank reads): the wall-clock start of the size's measured
# time, written into a pipe as it begins; the intervals' t_start_s count from it.
before=$(date +%s.%N)
exec {mark}> >(cat >"$T/mark.txt")
RB_STEP_MARK_FD=$mark timeout 60 "$SB" "${args[@]}" --csv "$T/cli.csv" 127.0.0.1 >"$T/cli.out" 2>"$T/cli.err"
expect_rc client $? 0
after=$(date +%s.%N)
exec {mark}>&-
wait "$SRV"
expect_rc server $? 0
python3 - "$T/cli.csv" "$T/srv.json" <<'PY' || fail "interval rows inconsistent"
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1])))
srv = json.load(open(sys.argv[2]))["results"]
# The server measures nothing itself: its document has the size's row alone, the client's figures.
assert len(srv) == 1 and srv[0]["interval"] == "total", srv
assert srv[0]["iterations"] == int(rows[-1]["iterations"]), (srv[0], rows[-1])
ivs, total = rows[:-1], rows[-1]
assert total["interval"] == "total" and all(r["interval"] != "total" for r in ivs), rows
assert 6 <= len(ivs) <= 7, [r["interval"] for r in ivs]
n = int(total["iterations"])
assert sum(int(r["iterations"]) for r in ivs) == n, (sum(int(r["iterations"]) for r in ivs), n)
assert float(ivs[0]["t_start_s"]) == 0 and ivs[-1]["t_end_s"] == total["t_end_s"] == total["elapsed_s"], total
for a, b in zip(ivs, ivs[1:]):
    assert a["t_end_s"] == b["t_start_s"], (a, b)
assert min(float(r["lat_min_us"]) for r in ivs) == float(total["lat_min_us"])
assert max(float(r["lat_max_us"]) for r in ivs) == float(total["lat_max_us"])
for r in ivs:
    v = [float(r[k]) for k in ("lat_min_us", "lat_p50_us", "lat_p90_us", "lat_p99_us", "lat_p999_us", "lat_max_us")]
    assert v == sorted(v), r
    assert r["percentile_method"] == "histogram" and r["error"] == "", r
print(len(ivs), "intervals,", n, "round trips")
PY
sleep 0.2 # the pipe's reader writes the file
python3 - "$T/mark.txt" "$T/cli.csv" "$before" "$after" <<'PY' || fail "the step's mark"
import csv, sys
marks = open(sys.argv[1]).read().splitlines()
total = list(csv.DictReader(open(sys.argv[2])))[-1]
before, after = float(sys.argv[3]), float(sys.argv[4])
assert len(marks) == 1 and marks[0].split()[0] == "64", marks
t = float(marks[0].split()[1])
# the measured time began after the client started, and its elapsed_s fits before the exit
assert before < t <= after - float(total["elapsed_s"]), (before, t, after, total["elapsed_s"])
print("marked %.3f s after the start, %.3f s of measured time, exit %.3f s later" % (t - before, float(total["elapsed_s"]), after - t - float(total["elapsed_s"])))
PY
expect_usage "$SB" "invalid value '0' for --interval: out of range" --ping-pong --interval 0
pass "ping-pong interval rows tile the run and add up"

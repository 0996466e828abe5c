#!/bin/bash
# The ping-pong engine's documents: -n keeps every sample (exact percentiles), -D a
# constant-memory histogram; --samples streams each one-way latency to a CSV whose
# numbers agree with the row; --histogram's buckets add up to the samples.
source "$(dirname "$0")/lib.sh"
P=$((P + 1))
"$SB" -p "$P" --ping-pong -s 64 -n 400 >"$T/srv.out" 2>"$T/srv.err" &
SRV=$!
timeout 60 "$SB" -p "$P" --ping-pong -s 64 -n 400 --samples "$T/s.csv" --histogram --csv "$T/r.csv" \
	127.0.0.1 >"$T/cli.out" 2>"$T/cli.err"
expect_rc client $? 0
wait "$SRV"
expect_rc server $? 0
SRV=
ls "$T"/s.csv.tmp.* >/dev/null 2>&1 && fail "a temporary samples file was left behind"
python3 - "$T/r.csv" "$T/s.csv" "$T/cli.out" <<'PY' || fail "samples, row and histogram disagree"
import csv, re, sys
row = list(csv.DictReader(open(sys.argv[1])))[0]
s = [float(r["latency_us"]) for r in csv.DictReader(open(sys.argv[2]))]
assert row["percentile_method"] == "exact", row
assert len(s) == int(row["iterations"]) == 400, (len(s), row["iterations"])
# Nearest rank over the streamed samples gives the row's figures (3 decimals).
v = sorted(s)
for p, key in ((50, "lat_p50_us"), (99, "lat_p99_us")):
    rank = -(-p * len(v) // 100)
    assert abs(v[rank - 1] - float(row[key])) <= 0.0011, (p, v[rank - 1], row[key])
assert abs(min(s) - float(row["lat_min_us"])) <= 0.0011 and abs(max(s) - float(row["lat_max_us"])) <= 0.0011
counts = [int(m.group(1)) for m in re.finditer(r"\) us +(\d+) ", open(sys.argv[3]).read())]
assert sum(counts) == 400, counts
PY
pair --ping-pong -s 64 -D 1 --csv "$T/d.csv"
expect_rc client "$CRC" 0
expect_rc server "$SRC" 0
python3 - "$T/d.csv" <<'PY' || fail "duration mode is not histogram-based"
import csv, sys
row = list(csv.DictReader(open(sys.argv[1])))[0]
assert row["percentile_method"] == "histogram" and int(row["iterations"]) > 100, row
v = [float(row[k]) for k in ("lat_min_us", "lat_p50_us", "lat_p90_us", "lat_p99_us", "lat_p999_us", "lat_max_us")]
assert v == sorted(v), v
PY
expect_usage "$SB" "--samples needs --ping-pong" --samples "$T/x.csv"
expect_usage "$SB" "--samples is for the client" --ping-pong --samples "$T/x.csv"
# A run that measured nothing (no server) leaves no samples file and keeps an earlier one.
echo "earlier" >"$T/keep.csv"
timeout 30 "$SB" -p "$((P + 1))" --oob-timeout 1 --ping-pong --samples "$T/keep.csv" 127.0.0.1 >/dev/null 2>&1
expect_rc "client without a server" $? 1
[ "$(cat "$T/keep.csv")" = earlier ] || fail "a run that measured nothing replaced the samples file"
ls "$T"/keep.csv.tmp.* >/dev/null 2>&1 && fail "a temporary samples file was left behind"
pass "exact and histogram rows, streamed samples, histogram buckets"

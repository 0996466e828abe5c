#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# The ping-pong engine's documents: -n keeps every sample (exact percentiles), -D a
# constant-memory histogram; --samples streams each one-way latency to a CSV whose
# numbers agree with the row, and -U the same on stdout; --histogram's buckets add up to the samples.
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
# -U (perftest's --report-unsorted): the same samples on stdout, each size's under the
# header and before its row, in the order measured, agreeing with the row.
P=$((P + 1))
"$SB" -p "$P" >"$T/srv.out" 2>"$T/srv.err" &
SRV=$!
timeout 60 "$SB" -p "$P" --ping-pong -s 8,64 -n 50 --warmup 5 -U --csv "$T/u.csv" 127.0.0.1 >"$T/cli.out" 2>"$T/cli.err"
expect_rc client $? 0
wait "$SRV"
expect_rc server $? 0
SRV=
python3 - "$T/cli.out" "$T/u.csv" <<'PY' || fail "-U samples on stdout are wrong"
import csv, re, sys
out = open(sys.argv[1]).read().splitlines()
rows = list(csv.DictReader(open(sys.argv[2])))
first = out.index("size_bytes,iteration,latency_us")
assert any("Test (rdmabench" in l for l in out[:first]), "the column names came before the header"
got = {8: [], 64: []}
for l in out[first + 1:]:
    m = re.fullmatch(r"(\d+),(\d+),([0-9.]+)", l)
    if m:
        got[int(m[1])].append((int(m[2]), float(m[3])))
    elif re.match(r" +8 +50 ", l):
        assert len(got[8]) == 50 and not got[64], "size 8's row is not under its samples"
for r in rows:
    s = got[int(r["size_bytes"])]
    assert [i for i, _ in s] == list(range(1, 51)), s
    assert abs(min(v for _, v in s) - float(r["lat_min_us"])) <= 0.0011, (s, r)
    assert abs(max(v for _, v in s) - float(r["lat_max_us"])) <= 0.0011, (s, r)
PY
expect_usage "$SB" "-U and a document on stdout" --ping-pong -U --json - 127.0.0.1
expect_usage "$SB" "-U writes the samples to stdout and --samples" --ping-pong -U --samples "$T/x.csv" 127.0.0.1
expect_usage "$SB" "-U is for the client" --ping-pong -U
expect_usage "$SB" "--samples needs --ping-pong" --samples "$T/x.csv"
# rc_write_lat takes -U through the same check (refused before any device is opened).
LAT=$RB_BUILD/src/rc_write_lat
expect_usage "$LAT" "-U is for the client" -U
expect_usage "$LAT" "-U and --output cannot share stdout" -U --output latency 127.0.0.1
expect_usage "$SB" "--samples is for the client" --ping-pong --samples "$T/x.csv"
# A run that measured nothing (no server) leaves no samples file and keeps an earlier one.
echo "earlier" >"$T/keep.csv"
timeout 30 "$SB" -p "$((P + 1))" --oob-timeout 1 --ping-pong --samples "$T/keep.csv" 127.0.0.1 >/dev/null 2>&1
expect_rc "client without a server" $? 1
[ "$(cat "$T/keep.csv")" = earlier ] || fail "a run that measured nothing replaced the samples file"
ls "$T"/keep.csv.tmp.* >/dev/null 2>&1 && fail "a temporary samples file was left behind"
pass "exact and histogram rows, streamed samples, histogram buckets"

#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# tools/compare and tools/plot on real socket_bw documents (single samples): compared as
# they are, even an identical run is not judged (exit 3, "cannot judge"); under
# --gate-single an identical run passes, a planted regression (bandwidth down, latency up
# by more than the threshold) exits 1 naming the row once, within the threshold passes,
# each document's model is printed and single samples are called out, bad input exits 2;
# the plot of two documents is a PNG.
source "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CMP=$ROOT/tools/compare
PLOT=$ROOT/tools/plot

pair -s 4K,64K,1M -n 200 --csv "$T/bw.csv"
expect_rc "socket_bw sweep" "$CRC" 0
pair --ping-pong -s 64,4K -n 500 --json "$T/lat.json"
expect_rc "socket_bw --ping-pong" "$CRC" 0

"$CMP" "$T/bw.csv" "$T/bw.csv" >"$T/c.out" 2>&1
expect_rc "compare, identical single samples" $? 3
expect_grep "$T/c.out" "^cannot judge: single samples \\(old and new have no --repeat\\) .* --repeat 5 .* --gate-single "
"$CMP" --gate-single "$T/bw.csv" "$T/bw.csv" >"$T/c.out" 2>&1
expect_rc "compare --gate-single, identical" $? 0
expect_grep "$T/c.out" "^no regression beyond 10 % in 3 matched row\\(s\\)"
# Each document's model, fitted or said not to fit: whether three loopback sizes measured
# beside the other suites fit T = t_lat + N / B_eff is the host's doing, not the tool's.
expect_grep "$T/c.out" "^old model: (t_lat [0-9.e+-]+ us, B_eff [0-9.e+-]+ Gb/s, n_1/2 [0-9]+ B, residual|none \\(does not fit: )"
expect_grep "$T/c.out" "^new model: (.* residual [0-9.]+ % RMS over 3 sizes \\(fitted here\\)|none \\(does not fit: .*\\))$"
expect_grep "$T/c.out" "^note: the verdict rests on single samples \\(old and new have no --repeat\\)"

# The 64 KiB row's bandwidth at 80 %: a regression past 10 %, within 25 %.
python3 - "$T/bw.csv" "$T/bw2.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
for r in rows:
    if r["size_bytes"] == "65536":
        r["bw_avg_gbps"] = str(float(r["bw_avg_gbps"]) * 0.8)
w = csv.DictWriter(open(sys.argv[2], "w", newline=""), fieldnames=list(rows[0].keys()))
w.writeheader()
w.writerows(rows)
PY
"$CMP" "$T/bw.csv" "$T/bw2.csv" >"$T/c.out" 2>&1
expect_rc "compare, bandwidth down 20 % in single samples" $? 3
expect_grep "$T/c.out" "socket_bw .*65536 B +bw_avg_gbps .* 0\\.800  past 10 %$"
"$CMP" --gate-single "$T/bw.csv" "$T/bw2.csv" >"$T/c.out" 2>&1
expect_rc "compare --gate-single, bandwidth down 20 %" $? 1
expect_grep "$T/c.out" "socket_bw .*65536 B +bw_avg_gbps .* 0\\.800  REGRESSED$"
expect_grep "$T/c.out" "^1 regression\\(s\\) beyond 10 % in 3 matched row\\(s\\):$"
expect_grep "$T/c.out" "^  socket_bw unidirectional 65536 B: throughput \\(bw_avg_gbps 0\\.800\\)$"
"$CMP" --gate-single --threshold 25 "$T/bw.csv" "$T/bw2.csv" >"$T/c.out" 2>&1
expect_rc "compare, bandwidth down 20 % under --threshold 25" $? 0

# Latency: p99 up 50 % at 4 KiB regresses; p99 down does not.
python3 - "$T/lat.json" "$T/lat2.json" "$T/lat3.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for f, k in ((sys.argv[2], 1.5), (sys.argv[3], 0.5)):
    for r in d["results"]:
        if r["size_bytes"] == 4096:
            r["lat_p99_us"] = r["lat_p99_us"] * k
    json.dump(d, open(f, "w"))
    d = json.load(open(sys.argv[1]))
PY
"$CMP" --gate-single --metric lat_p99_us "$T/lat.json" "$T/lat2.json" >"$T/c.out" 2>&1
expect_rc "compare, p99 up 50 %" $? 1
expect_grep "$T/c.out" "4096 B +lat_p99_us .* 1\\.500  REGRESSED"
"$CMP" --gate-single --metric lat_p99_us "$T/lat.json" "$T/lat3.json" >"$T/c.out" 2>&1
expect_rc "compare, p99 down 50 % (better)" $? 0

"$CMP" "$T/bw.csv" /nonexistent.csv >"$T/c.out" 2>&1
expect_rc "compare, a missing file" $? 2
expect_grep "$T/c.out" "compare: cannot read /nonexistent.csv"
echo 'a,b' >"$T/junk.csv"
"$CMP" "$T/bw.csv" "$T/junk.csv" >"$T/c.out" 2>&1
expect_rc "compare, not a document" $? 2

"$PLOT" "$T/bw.csv" "$T/bw2.csv" -o "$T/bw.png" >"$T/p.out" 2>&1
expect_rc "plot" $? 0
[ "$(head -c 8 "$T/bw.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "bw.png is not a PNG"
[ "$(stat -c %s "$T/bw.png")" -gt 10000 ] || fail "bw.png is suspiciously small"
"$PLOT" "$T/lat.json" -o "$T/lat.png" >"$T/p.out" 2>&1
expect_rc "plot latency" $? 0
expect_grep "$T/p.out" "lat.png: 2 panel\\(s\\), 1 document\\(s\\)"
"$PLOT" "$T/bw.csv" -o "$T/bw.jpg" >"$T/p.out" 2>&1
expect_rc "plot to a .jpg" $? 2
pass "compare does not judge single samples unless --gate-single, then flags planted regressions in the right direction; plots are PNGs"

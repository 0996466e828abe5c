#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# tools/plot on real socket_bw documents, read back from its SVG: a tools/sweep that
# varies --nsocks 1 4 (--repeat 3) draws one line per value ("nsocks=1", "nsocks=4"),
# each size one point (the median, never the repeats' own rows) with a P5..P95 error
# bar, also when only the repeats' rows are there; the size axis reads 1K .. 64K, the
# bandwidth axis runs from 0 at a round step; the title names the tool, host (a sweep's:
# the peer) and date; the legend sits below the data; new columns (date, host, tcp_*, ctr_*) split nothing,
# a size cut short (partial = 1) is a point apart and link_gbps a line; --interval rows
# draw bandwidth over time as steps, per size and nsocks; a bad -o extension exits 2.
source "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PLOT=$ROOT/tools/plot

P=$((P + 1))
"$SB" --persist -p "$P" --quiet >"$T/srv.out" 2>"$T/srv.err" &
SRV=$!
printf 'tools = socket_bw\nsizes = 1K,4K,64K\nvary = --nsocks 1 4\nargs = -n 100 --repeat 3\n' >"$T/ns.sweep"
printf 'tools = socket_bw\nsizes = 4K\nvary = --nsocks 1 4\nargs = -D 0.4 --interval 0.2\n' >"$T/ivl.sweep"
"$ROOT/tools/sweep" "$T/ns.sweep" 127.0.0.1 --port "$P" --out "$T/ns.csv" >"$T/sweep.out" 2>&1
expect_rc "sweep --nsocks 1 4 --repeat 3" $? 0
"$ROOT/tools/sweep" "$T/ivl.sweep" 127.0.0.1 --port "$P" --out "$T/ivl.csv" >"$T/sweep.out" 2>&1
expect_rc "sweep --nsocks 1 4 --interval 0.2" $? 0
kill "$SRV"
wait "$SRV"
SRV=

# svg FILE: one line per plot of the SVG: its legend title, the data points it marks
# (the legend's sample left out), how many of them have an error bar, its
# horizontal segments (steps), and whether all its points lie above the legend.
svg() {
	python3 - "$1" <<'PY'
import re, sys
groups = re.split(r'<g id="gnuplot_plot_', open(sys.argv[1]).read())[1:]
keys = [float(re.search(r"translate\([\d.]+,([\d.]+)\)[^>]*>\s*<text>", g).group(1)) for g in groups]
for g in groups:
    title = re.search(r"<title>([^<]*)</title>", g).group(1)
    marks = [(float(x), float(y)) for x, y in re.findall(r"#gpPt\d+' transform='translate\(([\d.]+),([\d.]+)\)", g)][:-1]
    segs, flat = [], 0
    for d in re.findall(r" d='([^']*)'", g):
        prev = None
        for op, x, y in re.findall(r"([ML])\s*([\d.-]+),([\d.-]+)", d):
            p = (float(x), float(y))
            if op == "L" and prev:
                segs.append((prev, p))
                flat += abs(p[1] - prev[1]) < 0.01 and abs(p[0] - prev[0]) > 1
            prev = p
    # An error bar's caps: short horizontal strokes centred on the point (drawn even when
    # the bar is too short to see).
    bars = sum(any(abs(a[1] - b[1]) < 0.01 and 1 < abs(a[0] - b[0]) < 20 and abs((a[0] + b[0]) / 2 - x) < 0.05
                   for a, b in segs) for x, _ in marks)
    below = all(y < min(keys) for _, y in marks) if marks else True
    print("%s|points=%d|bars=%d|flat=%d|key_below=%s" % (title, len(marks), bars, flat - 1, below))
PY
}

"$PLOT" "$T/ns.csv" -o "$T/ns.svg" >"$T/plot.out" 2>&1
expect_rc "plot the sweep" $? 0
expect_grep "$T/plot.out" "ns.svg: 2 panel\\(s\\), 1 document\\(s\\)"
svg "$T/ns.svg" >"$T/ns.out"
for n in 1 4; do
	expect_grep "$T/ns.out" "^nsocks=$n \\(median, P5\\.\\.P95\\)\\|points=3\\|bars=3\\|flat=-?[0-9]+\\|key_below=True$"
done
# The texts in order: the title, the bandwidth axis's ticks, the size axis's. Also for
# the sweep's bandwidth raised by 50 Gb/s (gnuplot's own range would start near 50).
python3 - "$T/ns.csv" "$T/high.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
for r in rows:
    for k in ("bw_avg_gbps", "bw_avg_gbps_p5", "bw_avg_gbps_p95"):
        if r.get(k):
            r[k] = repr(float(r[k]) + 50)
w = csv.DictWriter(open(sys.argv[2], "w", newline=""), fieldnames=list(rows[0]))
w.writeheader()
w.writerows(rows)
PY
"$PLOT" "$T/high.csv" -o "$T/high.svg" >"$T/plot.out" 2>&1
expect_rc "plot the sweep, 50 Gb/s higher" $? 0
python3 - "$T/ns.svg" "$T/high.svg" <<'PY' || fail "the title or the axes' ticks are wrong"
import re, sys
for f in sys.argv[1:]:
    texts = [t.strip() for t in re.findall(r"<tspan[^>]*>([^<]*)</tspan>", open(f).read())]
    assert re.fullmatch(r"socket_bw \(peer 127\.0\.0\.1\), 20\d\d-\d\d-\d\d \d\d:\d\d UTC", texts[0]), texts[0]
    y = []
    for t in texts[1:]:
        if not re.fullmatch(r"[0-9.]+", t):
            break
        y.append(float(t))
    step = y[1] - y[0]
    assert y[0] == 0 and 3 <= len(y) <= 7 and all(abs(v - i * step) < 1e-9 for i, v in enumerate(y)), (f, y)
    assert re.fullmatch(r"[125]0*|0\.0*[125]", ("%.10f" % step).rstrip("0").rstrip(".")), (f, step)
    x = texts[1 + len(y):1 + len(y) + 7]
    assert x == ["1K", "2K", "4K", "8K", "16K", "32K", "64K"], (f, x)
    print("title:", texts[0], "| bandwidth ticks:", y, "| sizes:", x)
PY
grep -q "key_below=False" "$T/ns.out" && fail "a legend entry lies above a data point"

# The repeats' own rows only, columns the format is gaining, a size cut short, the link;
# nsocks=1 made to follow T = 2 us + size / 8 Gb/s (its repeats 10 % either side), so
# that its model is known.
python3 - "$T/ns.csv" "$T/new.csv" <<'PY'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["repeat"] != "all"]
for i, r in enumerate(rows):
    if r["nsocks"] == "1":
        n = int(r["size_bytes"])
        r["bw_avg_gbps"] = repr(n * 8 / (1e3 * (2 + n * 8 / 8e3)) * (0.9, 1.0, 1.1)[int(r["repeat"]) - 1])
    r.update(date="2025-06-01T10:00:%02d" % i, host="h1", peer="127.0.0.1", version="1.0", schema="2",
             kind="bw", command="socket_bw ...", tcp_retrans=str(i % 3), tcp_rtt_us="%d" % (40 + i),
             tcp_cwnd=str(10 + i), tcp_cc="cubic", ctr_port_xmit_data=str(1000 * i), link_gbps="100",
             partial="1" if (r["nsocks"], r["size_bytes"]) == ("4", "65536") else "0", error="")
w = csv.DictWriter(open(sys.argv[2], "w", newline=""), fieldnames=list(rows[0]))
w.writeheader()
w.writerows(rows)
w.writerow({"error": "interrupted by SIGINT"})
PY
"$PLOT" "$T/new.csv" "$T/ns.csv" -o "$T/new.svg" >"$T/plot.out" 2>&1
expect_rc "plot repeats' rows with new columns" $? 0
svg "$T/new.svg" >"$T/new.out"
expect_grep "$T/new.out" "^new\\.csv nsocks=1 \\(median, P5\\.\\.P95\\)\\|points=3\\|bars=3\\|"
expect_grep "$T/new.out" "^new\\.csv nsocks=4 \\(median, P5\\.\\.P95\\)\\|points=2\\|bars=2\\|"
expect_grep "$T/new.out" "^new\\.csv nsocks=1: model: t_lat 2 us, B_eff 8 Gb/s \\(eta 8\\.0 % of the link\\)"
expect_grep "$T/new.svg" "stroke-dasharray"
expect_grep "$T/new.out" "^new\\.csv nsocks=4 \\(cut short\\)\\|points=1\\|"
expect_grep "$T/new.out" "^ns\\.csv nsocks=4 \\(median, P5\\.\\.P95\\)\\|points=3\\|bars=3\\|"
expect_grep "$T/new.out" "^link 100 Gb/s\\|"
# Two documents: their hosts, peers and a range of days (new.csv's dates, ns.csv's file time).
expect_grep "$T/new.svg" ">socket_bw on h1 \\(peer 127\\.0\\.0\\.1\\), 2025-06-01 \\.\\. 20[0-9]{2}-[0-9]{2}-[0-9]{2}</tspan>"
# --title replaces it.
"$PLOT" "$T/ns.csv" --title "my title" -o "$T/t.svg" >"$T/plot.out" 2>&1
expect_rc "plot --title" $? 0
expect_grep "$T/t.svg" ">my title</tspan>"
grep -qE "date=|tcp_|ctr_|host=" "$T/new.out" && fail "a column the format gained split a series: $(grep -E "date=|tcp_|ctr_|host=" "$T/new.out" | head -n 1)"

# --interval rows: bandwidth over time, a step per interval, one series per nsocks.
"$PLOT" "$T/ivl.csv" -o "$T/ivl.svg" >"$T/plot.out" 2>&1
expect_rc "plot the interval sweep" $? 0
expect_grep "$T/plot.out" "ivl.svg: 3 panel\\(s\\), 1 document\\(s\\)"
expect_grep "$T/ivl.svg" ">time since the size started \\[s\\]</tspan>"
svg "$T/ivl.svg" >"$T/ivl.out"
for n in 1 4; do expect_grep "$T/ivl.out" "^nsocks=$n 4 KiB\\|points=0\\|bars=0\\|flat=([2-9]|[1-9][0-9]+)\\|"; done
"$PLOT" "$T/ivl.csv" --over-time -o "$T/ivl.png" >"$T/plot.out" 2>&1
expect_rc "plot --over-time" $? 0
expect_grep "$T/plot.out" "ivl.png: 1 panel\\(s\\), 1 document\\(s\\)"
[ "$(head -c 8 "$T/ivl.png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] || fail "ivl.png is not a PNG"

"$PLOT" "$T/ns.csv" --over-time -o "$T/x.svg" >"$T/plot.out" 2>&1
expect_rc "plot --over-time without --interval rows" $? 2
expect_grep "$T/plot.out" "^plot: --over-time: no document has --interval rows"
for o in x.jpg x.pdf x; do
	"$PLOT" "$T/ns.csv" -o "$T/$o" >"$T/plot.out" 2>&1
	expect_rc "plot -o $o" $? 2
	expect_grep "$T/plot.out" "^plot: invalid value '$T/$o' for --output \\(allowed: a file name ending in \\.png or \\.svg\\)$"
	[ -e "$T/$o" ] && fail "plot -o $o wrote $o"
done
pass "plot splits a sweep by nsocks, draws repeats as medians with P5..P95 bars, round ticks (1K .. 64K, bandwidth from 0), a title with the tool, host and date, the legend below, intervals over time; a bad -o exits 2"

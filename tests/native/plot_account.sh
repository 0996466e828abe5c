#!/bin/bash
# SPDX-License-Identifier: BSD-2-Clause
# tools/plot draws fifo_pingpong --account's segments as a stacked bar per size, read
# back from its SVG: one panel per document with an account (a ping-pong's message, a
# pipelined window), each segment a legend entry in the protocol's order, every box
# as tall as its mean on one scale, each stacked on the one below, and the measured
# figure (the segments' sum plus what they leave unexplained) a point above its bar.
# The documents are written here with known means (the tool's own on rxe are plotted
# in the softroce fifo_account test).
source "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)

python3 - "$T" <<'PY'
import csv, sys
docs = {
    "pp.csv": ("ping_pong", 1, ["peer_busy", "cts_post", "cts_flight", "sender_post", "data_flight", "rx_completion"],
               [(8, [60, 5, 80, 3, 90, 1], 2.5), (4096, [70, 5, 90, 3, 200, 2], -1.0)]),
    "pipe.csv": ("pipelined", 8, ["data_flight", "rx_completion", "cts_post", "sender_posting", "sender_busy",
                                  "cts_flight", "sender_post"],
                 [(4096, [200, 1, 50, 1500, 100, 2, 5], 10.0), (65536, [2000, 1, 8, 14500, 200, 0, 3], 30.0),
                  (1048576, [9000, 2, 10, 40000, 300, 1, 4], 0.0)]),
}
for name, (mode, window, segs, rows) in docs.items():
    out = []
    for size, vals, unexplained in rows:
        r = {"tool": "fifo_pingpong", "mode": mode, "size_bytes": size, "window": window, "acct_messages": 992}
        if mode == "ping_pong":
            r.update(lat_p50_us=sum(vals), lat_mean_us=sum(vals) + unexplained)
        else:
            r.update(bw_avg_gbps=size * 8 * window / (sum(vals) + unexplained) / 1e3, msgs=1000)
        for s, v in zip(segs, vals):
            r.update({"acct_%s_p50_us" % s: 0.8 * v, "acct_%s_p99_us" % s: 2 * v, "acct_%s_mean_us" % s: v})
        r.update(acct_sum_of_means_us=sum(vals), acct_unexplained_us=unexplained)
        out.append(r)
    with open("%s/%s" % (sys.argv[1], name), "w") as f:
        w = csv.DictWriter(f, fieldnames=list(out[0].keys()))
        w.writeheader()
        w.writerows(out)
PY
"$ROOT/tools/plot" "$T/pp.csv" "$T/pipe.csv" -o "$T/a.svg" >"$T/plot.out" 2>&1
expect_rc "tools/plot of two documents with --account" $? 0
expect_grep "$T/plot.out" "a.svg: 4 panel\\(s\\), 2 document\\(s\\)"
expect_grep "$T/a.svg" ">--account, a message \\(ping-pong\\): pp\\.csv</tspan>"
expect_grep "$T/a.svg" ">--account, a window: credit loop \\+ sender post: pipe\\.csv</tspan>"
# Each document alone: its account panel's boxes read back.
for d in pp pipe; do
	"$ROOT/tools/plot" "$T/$d.csv" -o "$T/$d.svg" >"$T/plot.out" 2>&1
	expect_grep "$T/plot.out" "$d.svg: 2 panel\\(s\\), 1 document\\(s\\)"
	python3 - "$T/$d.csv" "$T/$d.svg" <<'PY' || fail "$d: the stacked bars do not draw the document's means"
import csv, re, sys
rows = list(csv.DictReader(open(sys.argv[1])))
svg = open(sys.argv[2]).read()
boxes, points = {}, {}
for g in re.split(r'<g id="gnuplot_plot_', svg)[1:]:
    title = re.search(r"<title>([^<]*)</title>", g).group(1)
    for d in re.findall(r" d='M([\d.]+),([\d.]+) L([\d.]+),([\d.]+) L([\d.]+),([\d.]+)", g):
        x0, y0, x1, y1, x2, y2 = map(float, d)
        if x0 == x1 and y1 == y2 and x2 - x0 > 40:  # a bar's box, drawn up from its bottom (not the legend's)
            boxes.setdefault(title, []).append((x0, x2, y0, y1))
    points[title] = [(float(x), float(y)) for x, y in re.findall(r"#gpPt\d+' transform='translate\(([\d.]+),([\d.]+)\)", g)]
segs = [k[len("acct_"):-len("_mean_us")] for k in rows[0] if k.startswith("acct_") and k.endswith("_mean_us")]
meas = [t for t in points if t.startswith("measured (")]
assert len(meas) == 1, points.keys()
pts = sorted(points[meas[0]][:-1])  # the legend's sample is the last
assert len(pts) == len(rows), pts
drawn, bottom, top = [], {}, {}
for (x, _), r in zip(pts, rows):
    for s in segs:
        v = float(r["acct_%s_mean_us" % s])
        b = [b for b in boxes.get(s.replace("_", " "), []) if b[0] < x < b[1]]
        assert len(b) == (1 if v > 0 else 0), (s, v, b)  # each segment once a bar, in its legend's name
        if b:
            b = b[0]
            # stacked in the protocol's order: each box begins where the one below ended
            assert x not in top or abs(top[x] - b[2]) < 0.6, (s, b, top[x])
            bottom.setdefault(x, b[2])
            top[x] = b[3]
            drawn.append((v, b[2] - b[3], s))
# one scale for every box: the largest's (edges rounded to 0.01 px, a border of 1 px)
v, h, _ = max(drawn)
scale = h / v
for v, h, s in drawn:
    assert abs(h - v * scale) <= 0.01 * v * scale + 2, (s, v, h, scale)
# the measured figure: a point above its bar's middle, at sum + unexplained on that scale
for (x, y), r in zip(pts, rows):
    want = bottom[x] - (float(r["acct_sum_of_means_us"]) + float(r["acct_unexplained_us"])) * scale
    assert abs(y - want) < 1.0, (x, y, want)
print("%s: %d bars of %d segments, %.4f px per us" % (sys.argv[1].split("/")[-1], len(rows), len(segs), scale))
PY
done
pass "tools/plot: --account's segments as stacked bars, each box its mean on one scale, the measured figure above"

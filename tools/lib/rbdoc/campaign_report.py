# SPDX-License-Identifier: BSD-2-Clause
"""The campaign's report: one self-contained HTML page (no script, no link outside it).

At the top the triage verdict of every host, then the cases that need a look (failed,
unstable, below the perftest baseline, abnormal port counters), then a plot per tool
and host (bandwidth over message size, one line per variant, P5-P95 bars where the
case repeated, the baseline dashed), then every case. The plots are inline SVG drawn
here, so the page opens offline in any browser.
"""
import datetime
import html
import math
import os

from .files import write_text
from .plotdata import size_label

UNSTABLE_CV_PCT = 5.0  # a repeated case whose bandwidth varies more than this needs a look
BELOW_BASELINE = 0.9   # a case under 90 % of ib_write_bw's rate at its size needs a look
PACKET_COUNTERS = ("pkts", "packets")
COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf")

STYLE = """
body{font:14px/1.4 sans-serif;margin:24px;color:#222}
h1{font-size:20px}h2{font-size:16px;margin-top:28px}
table{border-collapse:collapse;margin:8px 0}td,th{border:1px solid #ccc;padding:3px 8px;text-align:left}
th{background:#f2f2f2}td.n{text-align:right;font-variant-numeric:tabular-nums}
.ok{background:#e8f5e9}.fail{background:#ffebee}.warn{background:#fff8e1}
.verdict{padding:8px 12px;margin:6px 0;border-radius:4px}
svg{background:#fff;border:1px solid #ddd;margin:6px 12px 6px 0}
"""


def _num(v):
    try:
        f = float(v)
        return f if math.isfinite(f) else None
    except (TypeError, ValueError):
        return None


def summaries(rows):
    """The rows that stand for a size: a repeated case's "all" row, or the only one."""
    return [r for r in rows if str(r.get("repeat", "") or "all") == "all" and _num(r.get("size_bytes"))
            and not r.get("interval")]


def abnormal(row):
    moved = []
    for k, v in row.items():
        if k.startswith("ctr_") and not any(p in k for p in PACKET_COUNTERS) and (_num(v) or 0) > 0:
            moved.append("%s +%d" % (k[4:], _num(v)))
    return ", ".join(moved)


def _verified(row):
    """--verify writes in lockstep windows and checks every byte: slower by design, never held
    against the baseline (plan "verify = off" for cases that are)."""
    return str(row.get("verify", "")).lower() in ("1", "true")


def _cv(row):
    return _num(row.get("bw_avg_gbps_cv_pct"))


def _base(row, baselines):
    if row.get("tool") != "rc_write_bw":
        return None
    return baselines.get(row.get("host"), ({}, ""))[0].get(int(_num(row["size_bytes"])))


def plot(title, series, base):
    """An SVG: series {name: [(size, median, p5, p95)]}, base [(size, Gb/s)] dashed; log2 sizes."""
    pts = [p for s in series.values() for p in s] + [(s, g, None, None) for s, g in base]
    if not pts:
        return ""
    w, h, l, r, t, b = 620, 300, 64, 170, 28, 44
    xs = [math.log2(p[0]) for p in pts]
    x0, x1 = min(xs), max(xs) if max(xs) > min(xs) else min(xs) + 1
    y1 = max(max(v for p in pts for v in (p[1], p[3]) if v is not None), 1e-9) * 1.1

    def px(size):
        return l + (math.log2(size) - x0) / (x1 - x0) * (w - l - r)

    def py(v):
        return t + (1 - v / y1) * (h - t - b)

    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" role="img"><title>%s</title>'
           % (w, h, html.escape(title)),
           '<text x="%d" y="18" font-size="13" font-weight="bold">%s</text>' % (l, html.escape(title))]
    for i in range(5):
        v = y1 * i / 4
        out.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#eee"/>' % (l, w - r, py(v), py(v)))
        out.append('<text x="%d" y="%.1f" font-size="11" text-anchor="end">%.3g</text>' % (l - 6, py(v) + 4, v))
    sizes = sorted({p[0] for p in pts})
    step = max(1, len(sizes) // 8)
    for s in sizes[::step]:
        out.append('<text x="%.1f" y="%d" font-size="11" text-anchor="middle">%s</text>'
                   % (px(s), h - b + 16, size_label(int(s))))
    out.append('<text x="%d" y="%d" font-size="11">message size</text>' % ((l + w - r) // 2 - 30, h - 8))
    out.append('<text x="14" y="%d" font-size="11" transform="rotate(-90 14 %d)">Gb/s</text>'
               % ((t + h - b) // 2, (t + h - b) // 2))
    legend = []
    for i, (name, s) in enumerate(sorted(series.items())):
        c = COLORS[i % len(COLORS)]
        s = sorted(s)
        out.append('<polyline fill="none" stroke="%s" stroke-width="2" points="%s"/>'
                   % (c, " ".join("%.1f,%.1f" % (px(p[0]), py(p[1])) for p in s)))
        for p in s:
            out.append('<circle cx="%.1f" cy="%.1f" r="3" fill="%s"/>' % (px(p[0]), py(p[1]), c))
            if p[2] is not None and p[3] is not None:
                out.append('<line x1="%.1f" x2="%.1f" y1="%.1f" y2="%.1f" stroke="%s"/>'
                           % (px(p[0]), px(p[0]), py(p[2]), py(p[3]), c))
        legend.append((c, name or "(as planned)", ""))
    if base:
        base = sorted(base)
        out.append('<polyline fill="none" stroke="#555" stroke-dasharray="5,4" points="%s"/>'
                   % " ".join("%.1f,%.1f" % (px(s), py(g)) for s, g in base))
        legend.append(("#555", "ib_write_bw", "5,4"))
    for i, (c, name, dash) in enumerate(legend):
        y = t + 12 + 18 * i
        out.append('<line x1="%d" x2="%d" y1="%d" y2="%d" stroke="%s" stroke-width="2" stroke-dasharray="%s"/>'
                   % (w - r + 10, w - r + 30, y, y, c, dash or "none"))
        out.append('<text x="%d" y="%d" font-size="11">%s</text>' % (w - r + 36, y + 4, html.escape(name)))
    out.append("</svg>")
    return "\n".join(out)


def _table(head, body, numeric=()):
    out = ["<table><tr>%s</tr>" % "".join("<th>%s</th>" % html.escape(h) for h in head)]
    for cls, cells in body:
        out.append("<tr%s>%s</tr>" % (' class="%s"' % cls if cls else "", "".join(
            '<td%s>%s</td>' % (' class="n"' if i in numeric else "", html.escape(str(c)))
            for i, c in enumerate(cells))))
    out.append("</table>")
    return "\n".join(out)


def _fmt(v, spec="%.3f"):
    return "" if v is None else spec % v


def write_report(out, plan, hosts, verdicts, baselines, status, rows, todo):
    """Writes OUT/report.html atomically; returns its path."""
    rows = [dict(r) for r in rows]
    tool_of = {s["case"]: s["tool"] for s in status}
    for r in rows:
        r.setdefault("tool", tool_of.get(r.get("case")))
    summ = summaries(rows)
    p = ['<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>rdmabench campaign: %s</title>'
         '<style>%s</style></head><body>' % (html.escape(plan), STYLE)]
    p.append("<h1>rdmabench campaign: %s</h1>" % html.escape(plan))
    p.append("<p>Hosts: %s. Written %s. %d of %d cases run, %d failed.</p>" % (
        html.escape(", ".join(hosts)), datetime.datetime.now().strftime("%Y-%m-%d %H:%M:%S"), len(status),
        len(todo), sum(1 for s in status if str(s["rc"]) != "0")))

    p.append('<h2 id="verdict">Triage verdict</h2>')
    for host in hosts:
        v = verdicts.get(host)
        if not v:
            p.append('<div class="verdict warn">%s: not walked (interrupted)</div>' % html.escape(host))
            continue
        cls = "ok" if v.get("healthy") else "fail"
        p.append('<div class="verdict %s"><b>%s</b>: %s</div>' % (cls, html.escape(host),
                                                                  html.escape(str(v.get("conclusion")))))
        steps = [(s["verdict"] if s["verdict"] != "ok" else "",
                  (s["verdict"], s["layer"], s.get("check", ""), s.get("text", "")))
                 for s in v.get("steps", [])]
        p.append("<details><summary>the triage's steps</summary>%s</details>"
                 % _table(["verdict", "layer", "check", "evidence"], steps))
        why = baselines.get(host, ({}, ""))[1]
        if why:
            p.append("<p>No perftest baseline for %s: %s.</p>" % (html.escape(host), html.escape(why)))

    look = []
    for s in status:
        if str(s["rc"]) != "0":
            look.append(("fail", (s["case"], "", "failed (exit %s): %s" % (s["rc"], s["error"]))))
    for r in summ:
        size = size_label(int(_num(r["size_bytes"])))
        cv, base, bw = _cv(r), _base(r, baselines), _num(r.get("bw_avg_gbps"))
        if str(r.get("unstable", "")).lower() in ("1", "true") or (cv is not None and cv > UNSTABLE_CV_PCT):
            look.append(("warn", (r["case"], size, "unstable: bandwidth CV %s %% over %s repeats"
                                  % (_fmt(cv, "%.1f"), r.get("repeats", "?")))))
        if base and bw is not None and bw < BELOW_BASELINE * base and not _verified(r):
            look.append(("warn", (r["case"], size, "%.3f Gb/s is %.0f %% of ib_write_bw's %.3f Gb/s"
                                  % (bw, 100 * bw / base, base))))
        moved = abnormal(r)
        if moved:
            look.append(("warn", (r["case"], size, "abnormal port counters: " + moved)))
    p.append('<h2 id="look">Needs a look (%d)</h2>' % len(look))
    p.append(_table(["case", "size", "why"], look) if look else "<p>Nothing: every case completed, steady, at "
             "or above its baseline, with no abnormal counter.</p>")

    p.append('<h2 id="plots">Bandwidth over message size</h2>')
    groups = {}
    for r in summ:
        bw = _num(r.get("bw_avg_gbps"))
        if bw is None:
            continue
        series = groups.setdefault((r.get("tool"), r.get("host")), {}).setdefault(r.get("variant", ""), [])
        series.append((_num(r["size_bytes"]), bw, _num(r.get("bw_avg_gbps_p5")), _num(r.get("bw_avg_gbps_p95"))))
    for (tool, host), series in sorted(groups.items(), key=lambda g: (str(g[0][0]), str(g[0][1]))):
        base = sorted(baselines.get(host, ({}, ""))[0].items()) if tool == "rc_write_bw" else []
        sizes = [p[0] for s in series.values() for p in s]
        base = [(s, g) for s, g in base if sizes and min(sizes) <= s <= max(sizes)]
        p.append(plot("%s to %s" % (tool, host), series, base))

    p.append('<h2 id="cases">Every case</h2>')
    body = []
    for r in summ:
        base = _base(r, baselines)
        bw = _num(r.get("bw_avg_gbps"))
        body.append(("", (r["case"], size_label(int(_num(r["size_bytes"]))), _fmt(bw),
                          _fmt(_num(r.get("bw_avg_gbps_p5"))), _fmt(_num(r.get("bw_avg_gbps_p95"))),
                          _fmt(_cv(r), "%.1f"), _fmt(base), _fmt(bw / base if base and bw is not None else None,
                                                                 "%.2f"),
                          r.get("verify", ""), r.get("mtu_bytes", ""), abnormal(r))))
    p.append(_table(["case", "size", "Gb/s", "P5", "P95", "CV %", "ib_write_bw", "ratio", "verify", "MTU",
                     "abnormal counters"], body, numeric=(2, 3, 4, 5, 6, 7)))
    p.append("<p>A verified case (verify 1) writes in lockstep windows and checks every byte on the receiver: "
             "its rate is shown beside ib_write_bw's but not held against it. A plan section with "
             "\"verify = off\" measures the rate that is.</p>")
    p.append("<p>Files: cases.csv (every row), status.csv, docs/ (each case's JSON), triage-HOST.json, "
             "baseline-HOST.csv.</p></body></html>\n")
    path = os.path.join(out, "report.html")
    write_text(path, "\n".join(p))
    return path

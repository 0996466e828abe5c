# SPDX-License-Identifier: BSD-2-Clause
"""The campaign's verdict and its report: one self-contained HTML page (no script, no
link outside it).

The verdict (verdict()) is one line, "campaign: ACCEPT" or "campaign: REJECT: REASONS",
and it rejects whenever the report asks for a look at anything:
  - a host whose triage failed and ruled out cases of the plan (they are skipped,
    never run: "skipped: triage of HOST failed (...)"), or whose triage was not walked;
  - a case that failed (its exit code was not 0), or one not run (interrupted);
  - a case that needs a look: unstable (its repeats' bandwidth CV above 5 %, or the
    tool marked it so), below 90 % of ib_write_bw's rate at its size (slow), abnormal
    port counters (any counter but the packet counts moved);
  - a baseline that was due (an RDMA case to compare) but whose ib_write_bw run failed.
A failed triage that rules out no case of the plan (socket_bw needs only the
out-of-band path: its cases run after an RDMA layer failed) is shown, and is no reason.

At the top of the page the verdict line, then the triage verdict of every host, then
the cases that need a look (each reason of the verdict, one row per case and cause),
then a plot per tool and host (bandwidth over message size, one line per variant,
P5-P95 bars where the case repeated, the baseline dashed; round ticks, titled with
the tool, host and date), then every case and the files the campaign wrote. The
plots are inline SVG drawn here, so the page opens offline in any browser.
"""
import datetime
import html
import math
import os

from .files import write_text
from .plotdata import round_axis, size_label, size_ticks, when

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
            and not r.get("interval") and r.get("stream", "") in ("", "sum")]


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


def _rates(baselines, host):
    return (baselines.get(host) or {}).get("rates") or {}


def _base(row, baselines):
    if row.get("tool") != "rc_write_bw":
        return None
    return _rates(baselines, row.get("host")).get(int(_num(row["size_bytes"])))


def plot(title, series, base):
    """An SVG: series {name: [(size, median, p5, p95)]}, base [(size, Gb/s)] dashed; log2 sizes."""
    pts = [p for s in series.values() for p in s] + [(s, g, None, None) for s, g in base]
    if not pts:
        return ""
    w, h, l, r, t, b = 620, 300, 64, 170, 28, 44
    lo, hi = min(p[0] for p in pts), max(p[0] for p in pts)
    x0, x1 = math.log2(lo) - 0.5, math.log2(hi) + 0.5
    step, y1 = round_axis(max(max(v for p in pts for v in (p[1], p[3]) if v is not None), 1e-9) * 1.05)

    def px(size):
        return l + (math.log2(size) - x0) / (x1 - x0) * (w - l - r)

    def py(v):
        return t + (1 - v / y1) * (h - t - b)

    out = ['<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" role="img"><title>%s</title>'
           % (w, h, html.escape(title)),
           '<text x="%d" y="18" font-size="13" font-weight="bold">%s</text>' % (l, html.escape(title))]
    for i in range(int(round(y1 / step)) + 1):
        v = step * i
        out.append('<line x1="%d" x2="%d" y1="%.1f" y2="%.1f" stroke="#eee"/>' % (l, w - r, py(v), py(v)))
        out.append('<text x="%d" y="%.1f" font-size="11" text-anchor="end">%s</text>'
                   % (l - 6, py(v) + 4, "%g" % float("%.12g" % v)))
    for name, s in size_ticks(lo, hi):
        if x0 <= math.log2(s) <= x1:
            out.append('<text x="%.1f" y="%d" font-size="11" text-anchor="middle">%s</text>'
                       % (px(s), h - b + 16, name))
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


def _n(count, what):
    """'1 case', '3 cases'."""
    return "%d %s%s" % (count, what, "" if count == 1 else "s")


def outcome(st):
    """ok, failed or skipped: a status.csv row's outcome (older files: by its rc)."""
    return st.get("outcome") or ("ok" if str(st.get("rc")) == "0" else "failed")


def looks(status, rows, baselines):
    """Everything the report asks a look at: [(class, case, size, kind, why)], kind one of
    skipped, failed, unstable, slow, counters, baseline."""
    out = []
    for s in status:
        if outcome(s) == "skipped":
            out.append(("fail", s["case"], "", "skipped", s["error"]))
        elif outcome(s) != "ok":
            out.append(("fail", s["case"], "", "failed", "failed (exit %s): %s" % (s["rc"], s["error"])))
    for r in summaries(rows):
        size = size_label(int(_num(r["size_bytes"])))
        cv, base, bw = _cv(r), _base(r, baselines), _num(r.get("bw_avg_gbps"))
        if str(r.get("unstable", "")).lower() in ("1", "true") or (cv is not None and cv > UNSTABLE_CV_PCT):
            out.append(("warn", r["case"], size, "unstable", "unstable: bandwidth CV %s %% over %s repeats"
                        % (_fmt(cv, "%.1f"), r.get("repeats", "?"))))
        if base and bw is not None and bw < BELOW_BASELINE * base and not _verified(r):
            out.append(("warn", r["case"], size, "slow", "slow: %.3f Gb/s is %.0f %% of ib_write_bw's %.3f Gb/s"
                        % (bw, 100 * bw / base, base)))
        moved = abnormal(r)
        if moved:
            out.append(("warn", r["case"], size, "counters", "abnormal port counters: " + moved))
    for host, b in sorted(baselines.items()):
        if b.get("failed"):
            out.append(("warn", "", "", "baseline", "no ib_write_bw baseline for %s: %s" % (host, b["why"])))
    return out


LOOK_KINDS = (("unstable", "unstable"), ("slow", "below 90 % of ib_write_bw's rate"),
              ("counters", "abnormal port counters"))


def verdict(hosts, verdicts, status, todo, look, ruled):
    """(accepted, the verdict line, its reasons): ACCEPT when nothing asks for a look.
    RULED: {host: how many of the plan's cases its triage rules out}."""
    reasons = []
    for host in hosts:
        v = verdicts.get(host)
        skipped = sum(1 for s in status if s["host"] == host and outcome(s) == "skipped")
        if not v:
            reasons.append("triage of %s not walked (interrupted)" % host)
        elif ruled.get(host):
            reasons.append("triage of %s failed (%s): %s skipped%s" % (
                host, v.get("failed_layer") or "?", _n(skipped, "case"),
                "" if skipped == ruled[host] else " (it rules out %d, which completed before)" % ruled[host]))
    failed = sum(1 for s in status if outcome(s) == "failed")
    if failed:
        reasons.append("%s failed" % _n(failed, "case"))
    missing = len(set(todo) - {s["case"] for s in status})
    if missing:
        reasons.append("%d of %s not run (interrupted)" % (missing, _n(len(todo), "case")))
    kinds = [(n, sum(1 for lk in look if lk[3] == k)) for k, n in LOOK_KINDS]
    cases = {lk[1] for lk in look if lk[3] in dict(LOOK_KINDS)}
    if cases:
        reasons.append("%s need%s a look (%s)" % (_n(len(cases), "case"), "s" if len(cases) == 1 else "",
                                                 ", ".join("%d %s" % (c, n) for n, c in kinds if c)))
    reasons += [lk[4] for lk in look if lk[3] == "baseline"]
    return not reasons, "campaign: " + ("REJECT: " + "; ".join(reasons) if reasons else "ACCEPT"), reasons


def write_report(out, plan, hosts, verdicts, baselines, status, rows, todo, ruled):
    """Writes OUT/report.html and OUT/verdict.txt (the verdict line) atomically; returns
    (the report's path, whether accepted, the verdict line). RULED: {host: how many of
    the plan's cases its triage rules out}."""
    rows = [dict(r) for r in rows]
    tool_of = {s["case"]: s["tool"] for s in status}
    for r in rows:
        r.setdefault("tool", tool_of.get(r.get("case")))
    summ = summaries(rows)
    look = looks(status, rows, baselines)
    accepted, line, _ = verdict(hosts, verdicts, status, todo, look, ruled)
    write_text(os.path.join(out, "verdict.txt"), line + "\n")
    p = ['<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>rdmabench campaign: %s: %s</title>'
         '<style>%s</style></head><body>' % (html.escape(plan), "ACCEPT" if accepted else "REJECT", STYLE)]
    p.append('<p id="campaign-verdict" class="verdict %s"><b>%s</b></p>' % ("ok" if accepted else "fail",
                                                                            html.escape(line)))
    p.append("<h1>rdmabench campaign: %s</h1>" % html.escape(plan))
    counts = {k: sum(1 for s in status if outcome(s) == k) for k in ("ok", "failed", "skipped")}
    p.append("<p>Hosts: %s. Written %s. %d of %d cases run (%d failed), %d skipped.</p>" % (
        html.escape(", ".join(hosts)), datetime.datetime.now().strftime("%Y-%m-%d %H:%M:%S"),
        counts["ok"] + counts["failed"], len(todo), counts["failed"], counts["skipped"]))

    p.append('<h2 id="verdict">Triage verdict</h2>')
    for host in hosts:
        v = verdicts.get(host)
        if not v:
            p.append('<div class="verdict fail">%s: not walked (interrupted)</div>' % html.escape(host))
            continue
        skipped = sum(1 for s in status if s["host"] == host and outcome(s) == "skipped")
        cls = "ok" if v.get("healthy") else "fail" if ruled.get(host) else "warn"
        note = ""
        if not v.get("healthy"):
            note = (" It rules out %s of this plan, those that need that layer: %d skipped, not run."
                    % (_n(ruled[host], "case"), skipped) if ruled.get(host)
                    else " It rules out no case of this plan: socket_bw needs only the out-of-band path, "
                         "which passed.")
        said = str(v.get("conclusion"))
        said += "" if not note or said.endswith(".") else "."
        p.append('<div class="verdict %s"><b>%s</b>: %s</div>' % (cls, html.escape(host), html.escape(said + note)))
        steps = [(s["verdict"] if s["verdict"] != "ok" else "",
                  (s["verdict"], s["layer"], s.get("check", ""), s.get("text", "")))
                 for s in v.get("steps", [])]
        p.append("<details><summary>the triage's steps</summary>%s</details>"
                 % _table(["verdict", "layer", "check", "evidence"], steps))
        why = (baselines.get(host) or {}).get("why")
        if why:
            p.append("<p>No perftest baseline for %s: %s.</p>" % (html.escape(host), html.escape(why)))

    p.append('<h2 id="look">Needs a look (%d)</h2>' % len(look))
    p.append(_table(["case", "size", "why"], [(c, (case, size, why)) for c, case, size, _, why in look]) if look
             else "<p>Nothing: every case ran and completed, steady, at or above its baseline, with no "
                  "abnormal counter.</p>")

    p.append('<h2 id="plots">Bandwidth over message size</h2>')
    groups = {}
    for r in summ:
        bw = _num(r.get("bw_avg_gbps"))
        if bw is None:
            continue
        series = groups.setdefault((r.get("tool"), r.get("host")), {}).setdefault(r.get("variant", ""), [])
        series.append((_num(r["size_bytes"]), bw, _num(r.get("bw_avg_gbps_p5")), _num(r.get("bw_avg_gbps_p95"))))
    for (tool, host), series in sorted(groups.items(), key=lambda g: (str(g[0][0]), str(g[0][1]))):
        base = sorted(_rates(baselines, host).items()) if tool == "rc_write_bw" else []
        sizes = [p[0] for s in series.values() for p in s]
        base = [(s, g) for s, g in base if sizes and min(sizes) <= s <= max(sizes)]
        date = when(r.get("date") for r in summ if r.get("tool") == tool and r.get("host") == host)
        p.append(plot(", ".join(w for w in ("%s to %s" % (tool, host), date) if w), series, base))

    p.append('<h2 id="cases">Every case</h2>')
    body = []
    state = {s["case"]: s for s in status}

    def said(case):
        s = state.get(case)
        if not s:
            return "not run (interrupted)"
        return {"ok": "ok", "skipped": s["error"]}.get(outcome(s), "failed (exit %s)" % s["rc"])

    for r in summ:
        base = _base(r, baselines)
        bw = _num(r.get("bw_avg_gbps"))
        body.append(("" if said(r["case"]) == "ok" else "fail", (
            r["case"], size_label(int(_num(r["size_bytes"]))), _fmt(bw),
            _fmt(_num(r.get("bw_avg_gbps_p5"))), _fmt(_num(r.get("bw_avg_gbps_p95"))),
            _fmt(_cv(r), "%.1f"), _fmt(base), _fmt(bw / base if base and bw is not None else None, "%.2f"),
            r.get("verify", ""), r.get("mtu_bytes", ""), abnormal(r), said(r["case"]))))
    measured = {r["case"] for r in summ}
    for s in status:
        if s["case"] not in measured:
            body.append(("fail", (s["case"],) + ("",) * 10 + (said(s["case"]),)))
    for case in todo:
        if case not in state:
            body.append(("warn", (case,) + ("",) * 10 + (said(case),)))
    p.append(_table(["case", "size", "Gb/s", "P5", "P95", "CV %", "ib_write_bw", "ratio", "verify", "MTU",
                     "abnormal counters", "outcome"], body, numeric=(2, 3, 4, 5, 6, 7)))
    p.append("<p>A verified case (verify 1) writes in lockstep windows and checks every byte on the receiver: "
             "its rate is shown beside ib_write_bw's but not held against it. A plan section with "
             "\"verify = off\" measures the rate that is.</p>")

    # The files this run wrote: none named that is not there.
    docs = sorted({s["doc"] for s in status if s.get("doc")})
    files = [("verdict.txt", "this verdict's line"), ("cases.csv", "every row"),
             ("status.csv", "each case's outcome, exit code, error and time")]
    files += [("docs/", "%s, as status.csv names them" % _n(len(docs), "JSON document"))] if docs else []
    files += [("triage-%s.json" % h, "the triage of %s" % h) for h in hosts
              if os.path.exists(os.path.join(out, "triage-%s.json" % h))]
    files += [(b["file"], "ib_write_bw's rate at each size, against %s" % h) for h, b in sorted(baselines.items())
              if b.get("file")]
    p.append('<h2 id="files">Files</h2><ul id="files-list">%s</ul></body></html>\n' % "".join(
        "<li><code>%s</code>: %s</li>" % (html.escape(f), html.escape(what)) for f, what in files))
    path = os.path.join(out, "report.html")
    write_text(path, "\n".join(p))
    return path, accepted, line

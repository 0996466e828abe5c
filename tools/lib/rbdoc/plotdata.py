# SPDX-License-Identifier: BSD-2-Clause
"""A document's rows as the series a chart draws (tools/plot): one series per value of
the parameters the document varies, each size one point (the median of its repeats,
with P5 and P95), the bandwidth over time of its --interval rows, and fifo_pingpong
--account's segments as stacked bars.

Varied parameters: a column is a parameter unless it holds a figure (measured, see
measured()) or run metadata; the parameters whose value differs among the rows of one
size split the document into series, named "nsocks=4" or "nsocks=4 qps=2". A column
whose every value is seen at one size only (a date, a QP number, a new counter) is
no parameter: a parameter's value recurs across the sweep's sizes (unless the document
has one size).

Rows are strings as document.size_rows() gives them. A row with partial = 1 (a size
cut short, by Ctrl-C) is kept out of the line and of the fit: its point is drawn
apart. Percentiles are the tools' own (linear between the sorted values,
rb_quantile_sorted).
"""
import math

from .document import number

# Columns that are never a parameter: figures, their spread, counters, the link, and metadata.
# host and peer are parameters: a sweep over two hosts draws a line per host.
_MEASURED_PREFIXES = ("bw_", "lat_", "msg_rate", "cpu_", "ctr_", "link_", "wire_", "tcp_", "rep_", "idle_",
                      "reg_", "dereg_", "load_bw", "load_msgs", "rdma_core", "cuda_driver", "acct_")
_MEASURED_SUFFIXES = ("_gbps", "_mpps", "_us", "_pct", "_p5", "_p95", "_min", "_max", "_wakeups", "_qpns")
_MEASURED = {"size_bytes", "iterations", "msgs", "bytes", "elapsed_s", "interval", "t_start_s", "t_end_s",
             "repeat", "repeats", "unstable", "partial", "error", "point", "date", "version", "schema",
             "command", "kind", "epoch_s", "duration_s", "registrations", "gid", "address", "git_rev",
             "kernel", "percentile_method", "verdict", "detail", "event", "peak", "arrival", None}


def measured(col):
    """Whether COL holds a figure or metadata, never a parameter of the run."""
    return col in _MEASURED or col.startswith(_MEASURED_PREFIXES) or col.endswith(_MEASURED_SUFFIXES)


def quantile(vals, q):
    """The Q-quantile of VALS, linear between the sorted values (as the tools)."""
    v = sorted(vals)
    pos = q * (len(v) - 1)
    lo = int(pos)
    return v[-1] if lo >= len(v) - 1 else v[lo] + (v[lo + 1] - v[lo]) * (pos - lo)


def varied(rows):
    """The parameter columns whose value differs among ROWS of one size, in column order."""
    by_size = {}
    for r in rows:
        by_size.setdefault(r.get("size_bytes"), []).append(r)
    cols = []
    for c in (rows[0].keys() if rows else ()):
        if measured(c):
            continue
        if not any(len({r.get(c) for r in rs}) > 1 for rs in by_size.values()):
            continue
        sizes_of = {}
        for r in rows:
            sizes_of.setdefault(r.get(c), set()).add(r.get("size_bytes"))
        if len(by_size) == 1 or any(len(s) > 1 for s in sizes_of.values()):
            cols.append(c)
    return cols


def split(rows, cols):
    """{the values of COLS: the rows with them}, in the order first seen."""
    out = {}
    for r in rows:
        out.setdefault(tuple(r.get(c, "") for c in cols), []).append(r)
    return out


def name(cols, values):
    """'nsocks=4 qps=2': a series' name by the parameters it has ('' for none)."""
    return " ".join("%s=%s" % (c, v) for c, v in zip(cols, values))


def partial(r):
    return r.get("partial", "") not in ("", "0", "false")


def point(rows, key):
    """One size's point of KEY: (median, P5, P95) or None when no row has it; P5 and P95
    None without a spread. A summary row (repeat = all) gives the median and, when it
    has them, K_p5 and K_p95; else the repeats' own rows (or rows of the same
    parameters measured twice) give them."""
    summ = [r for r in rows if r.get("repeat") == "all" and number(r.get(key)) is not None]
    reps = [number(r.get(key)) for r in rows if r.get("repeat", "") != "all"]
    reps = [v for v in reps if v is not None]
    if summ:
        v, lo, hi = (number(summ[0].get(k)) for k in (key, key + "_p5", key + "_p95"))
        if lo is not None and hi is not None:
            return v, lo, hi
        return (v,) + ((quantile(reps, 0.05), quantile(reps, 0.95)) if len(reps) > 1 else (None, None))
    if not reps:
        return None
    if len(reps) == 1:
        return reps[0], None, None
    return quantile(reps, 0.5), quantile(reps, 0.05), quantile(reps, 0.95)


def points(rows, key):
    """The series' points of KEY by size: ([(size, median, P5, P95)], [(size, value)] of
    the sizes cut short), each sorted by size. A size with a whole row is drawn by its
    whole rows; one whose rows are all partial is a point apart."""
    by_size = {}
    for r in rows:
        n = number(r.get("size_bytes"))
        if n:
            by_size.setdefault(n, []).append(r)
    line, cut = [], []
    for n, rs in sorted(by_size.items()):
        whole = [r for r in rs if not partial(r)]
        p = point(whole or rs, key)
        if p is None or p[0] is None:
            continue
        if whole:
            line.append((n,) + p)
        else:
            cut.append((n, p[0]))
    return line, cut


def fit_rows(rows):
    """The rows a model of the series is fitted on: per size its medians of bandwidth and
    p50 latency, the sizes cut short left out, link_gbps as the rows have it."""
    out = []
    links = [r.get("link_gbps") for r in rows if number(r.get("link_gbps"))]
    for key in ("bw_avg_gbps", "lat_p50_us"):
        for n, v, _, _ in points(rows, key)[0]:
            out.append({"size_bytes": str(n), key: repr(v), "link_gbps": links[0] if links else ""})
    return out


def link_rates(rows):
    """The distinct link rates (link_gbps) of ROWS, sorted."""
    return sorted({v for v in (number(r.get("link_gbps")) for r in rows) if v and v > 0})


def over_time(rows, key):
    """The interval rows' KEY over time: [(size, repeat, [(t_start, t_end, value)])], one
    entry per size (and repeat, '' without --repeat) in size order, each sorted by time."""
    runs = {}
    for r in rows:
        n, t0, t1, v = (number(r.get(k)) for k in ("size_bytes", "t_start_s", "t_end_s", key))
        if None in (n, t0, t1, v):
            continue
        runs.setdefault((n, r.get("repeat", "")), []).append((t0, t1, v))
    return [(n, rep, sorted(ivl)) for (n, rep), ivl in sorted(runs.items(), key=lambda kv: (kv[0][0], kv[0][1]))]


def size_label(n):
    """'64 B', '4 KiB', '1.5 GiB', '3000 B': N bytes in the largest binary unit that says
    it exactly (a whole number of it, or one with at most two decimals), else in bytes.
    The one label of a size in plots and reports."""
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        v = n / scale
        if n >= scale and v * 100 == int(v * 100):
            return "%s %s" % ("%d" % v if v == int(v) else ("%.2f" % v).rstrip("0"), unit)
    return "%d B" % n


def tick_label(n):
    """'64B', '1K', '64K', '1M', '1G': a power of two N bytes as an axis tick says it, in the
    notation the tools' -s takes (K = 1024)."""
    for unit, scale in (("G", 1 << 30), ("M", 1 << 20), ("K", 1 << 10)):
        if n >= scale and n % scale == 0:
            return "%d%s" % (n // scale, unit)
    return "%dB" % n


def size_ticks(lo, hi, most=7):
    """[(label, size)] at round powers of two from LO to HI (a size axis's ticks), at most
    MOST of them: every power, else every 2nd, 5th, 10th or 20th, the exponents a multiple
    of that step (1K 4K 16K 64K 256K 1M; 1K 32K 1M 32M 1G; 1B 1K 1M 1G),
    labelled as tick_label says; the power nearest LO when none lies within."""
    a, b = math.floor(math.log2(lo)), math.ceil(math.log2(hi))
    for step in (1, 2, 5, 10, 20):
        first = -(-a // step) * step
        exps = list(range(first, b + 1, step))
        if len(exps) <= most:
            break
    exps = [e for e in exps if lo / 1.5 <= 2 ** e <= hi * 1.5] or [round(math.log2(lo))]
    return [(tick_label(2 ** e), 2 ** e) for e in exps]


def round_axis(hi, most=6):
    """(step, top) of a linear axis from 0 that holds HI: a step of 1, 2 or 5 times a power
    of ten, at most MOST steps up to top (a multiple of step, at or above HI)."""
    if not hi or hi <= 0 or not math.isfinite(hi):
        return 1.0, 1.0
    mag = math.floor(math.log10(hi / most))
    for m in (1, 2, 5, 10):
        step = float("%de%d" % (m, mag))
        if math.ceil(hi / step - 1e-9) <= most:
            break
    return step, float("%.12g" % (math.ceil(hi / step - 1e-9) * step))


def when(dates):
    """'2026-12-06 09:26 UTC' for one run's ISO date ('2026-12-06T09:26:35Z'), '2026-12-06' or
    '2025-06-01 .. 2026-12-06' for several; '' for none."""
    dates = sorted({str(d) for d in dates if d})
    if not dates:
        return ""
    if len(dates) == 1:
        d = dates[0]
        return d[:16].replace("T", " ") + (" UTC" if d.endswith("Z") and len(d) > 16 else "")
    days = sorted({d[:10] for d in dates})
    return days[0] if len(days) == 1 else "%s .. %s" % (days[0], days[-1])


def _listed(values, most=3):
    seen = []
    for v in values:
        if v and v not in seen:
            seen.append(v)
    return ", ".join(seen[:most]) + (" +%d more" % (len(seen) - most) if len(seen) > most else "")


def _peer_host(peer):
    """'127.0.0.1' of '127.0.0.1:18520', 'fe80::1' of '[fe80::1]:18520'."""
    peer = str(peer or "")
    if peer.startswith("["):
        return peer[1:].split("]")[0]
    return peer.rsplit(":", 1)[0] if peer.count(":") == 1 else peer


def title(metas):
    """A chart's title from its documents' METAS (dicts with tool, host, peer, date; a JSON
    document's meta, a CSV's first row): 'socket_bw on node-a (peer node-b), 2026-12-06
    09:26 UTC', several values listed; '' when none is known."""
    tools = _listed(m.get("tool") for m in metas)
    hosts = _listed(m.get("host") for m in metas)
    peers = _listed(_peer_host(m.get("peer")) for m in metas)
    date = when(m.get("date") for m in metas)
    head = " ".join(w for w in (tools, "on " + hosts if hosts else "", "(peer %s)" % peers if peers else "") if w)
    return ", ".join(w for w in (head, date) if w)


# fifo_pingpong --account's segments (rdmabench-documents(7)), in the order a message
# (ping-pong) or a credit loop and the sender's post (pipelined) passes them.
ACCOUNT_SEGMENTS = {
    "ping_pong": ("peer_busy", "cts_post", "cts_flight", "sender_post", "data_flight", "rx_completion"),
    "pipelined": ("data_flight", "rx_completion", "cts_post", "sender_posting", "sender_busy", "cts_flight",
                  "sender_post"),
}


def account_bars(rows):
    """fifo_pingpong --account's rows as stacked bars: (mode, segments, [(size, [mean us per
    segment], measured us)]), one bar per size (its last row with an account), or None
    where no row has one. The means add up to acct_sum_of_means_us; the measured figure
    (a ping-pong's one-way mean, a window's time by the engine) is that plus
    acct_unexplained_us."""
    # A row from before the means (p50s only) has no bar that adds up: none is drawn.
    rows = [r for r in rows if number(r.get("acct_sum_of_means_us")) is not None and
            r.get("mode") in ACCOUNT_SEGMENTS and
            all(number(r.get("acct_%s_mean_us" % s)) is not None for s in ACCOUNT_SEGMENTS[r["mode"]])]
    if not rows:
        return None
    mode = rows[-1]["mode"]
    segs = ACCOUNT_SEGMENTS[mode]
    last = {}
    for r in rows:
        if r["mode"] == mode:
            last[number(r["size_bytes"])] = r
    bars = []
    for n in sorted(last):
        r = last[n]
        bars.append((n, [number(r["acct_%s_mean_us" % s]) for s in segs],
                     number(r["acct_sum_of_means_us"]) + (number(r.get("acct_unexplained_us")) or 0.0)))
    return mode, segs, bars

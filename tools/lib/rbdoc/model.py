# SPDX-License-Identifier: BSD-2-Clause
"""The model of a size sweep, T(N) = t_lat + N / B_eff (tools/compare, tools/plot).

T is the time per message of N bytes: t_lat the fixed cost of one message (the
latency intercept), B_eff the rate the bytes move at once that cost is paid. From
them: n_1/2 = t_lat * B_eff, the size that reaches half of B_eff; eta = B_eff / the
link's rate (the link_gbps column), when the link is known. The tools fit it
themselves (a JSON document's "model", a CSV's "# model:" line) and so does fit()
here, for documents without one, the same way: least squares on the size rows (the
summary rows of a --repeat run), weighted by 1/T^2 so that every size counts by its
relative error, with T = N * 8 / (bw_avg_gbps * 1e3) us for bandwidth rows and T =
lat_p50_us for latency rows. rel_rms_residual says how well the line fits (0.012: the
sizes sit 1.2 % RMS off it). A sweep has no model with fewer than 3 sizes (two fit any
line), or when the fitted t_lat is negative (then the JSON has no "model").
"""
import math
import statistics

from .document import number


def fit(rows):
    """The model of ROWS (size rows, strings) as a dict: metric (bw_avg_gbps, or
    lat_p50_us when no row has a bandwidth), t_lat_us, b_eff_gbps, eta (None when no
    row has link_gbps), n_half_bytes, rel_rms_residual and sizes; None when the sweep
    has no model (see fitted())."""
    return fitted(rows)[0]


def fitted(rows):
    """(the model of ROWS, None) or (None, why there is none), as the tools decide: fewer
    than 3 sizes (two fit any line), T not growing with N, or a negative t_lat (the time
    per byte grows with size, as when large messages overrun a queue: no latency plus a
    bandwidth)."""
    metric = "bw_avg_gbps" if any(number(r.get("bw_avg_gbps")) for r in rows) else "lat_p50_us"
    pts = []
    for r in rows:
        n, v = number(r.get("size_bytes")), number(r.get(metric))
        if n is None or n <= 0 or not v or v < 0:
            continue
        pts.append((n, n * 8 / (v * 1e3) if metric == "bw_avg_gbps" else v))
    if len(pts) < 3:
        return None, "fewer than 3 sizes to fit"
    sw = sx = sy = sxx = sxy = 0.0
    for n, t in pts:
        w = 1.0 / (t * t)
        sw += w
        sx += w * n
        sy += w * t
        sxx += w * n * n
        sxy += w * n * t
    det = sw * sxx - sx * sx
    slope = (sw * sxy - sx * sy) / det if det else 0.0  # us per byte: 1 / B_eff
    if not slope > 0:
        return None, "does not fit: the time per message does not grow with size"
    t_lat, b_eff = (sy - slope * sx) / sw, 8 / (slope * 1e3)
    if t_lat < 0:
        return None, "does not fit: t_lat would be %.3g us, B_eff %.4g Gb/s (the time per byte grows with size)" % (
            t_lat, b_eff)
    resid = math.sqrt(sum(((t_lat + slope * n) - t) ** 2 / (t * t) for n, t in pts) / len(pts))
    links = [x for x in (number(r.get("link_gbps")) for r in rows) if x and x > 0]
    return {"metric": metric, "t_lat_us": t_lat, "b_eff_gbps": b_eff,
            "eta": b_eff / statistics.median(links) if links else None, "n_half_bytes": t_lat / slope,
            "rel_rms_residual": resid, "sizes": len(pts)}, None


def of(doc, rows):
    """(the model, where it comes from): the document's own ("the document's") when it
    has one, else fit(ROWS) ("fitted here"); (None, why) when there is neither."""
    if doc is not None and doc.model:
        return doc.model, "the document's"
    m, why = fitted(rows)
    return (m, "fitted here") if m else (None, why)


def curve(m):
    """The model's T(N) in us as (t_lat_us, us per byte), or None when it has no B_eff."""
    t, b = number(m.get("t_lat_us")), number(m.get("b_eff_gbps"))
    if t is None or not b or b <= 0:
        return None
    return t, 8 / (b * 1e3)


def describe(m, short=False):
    """'model: t_lat 1.25 us, B_eff 9.87 Gb/s (eta 98.7 % of the link), n_1/2 1543 B,
    residual 1.2 % RMS over 23 sizes' (SHORT: the first three only); n/a for what is
    unknown, the eta part only when the link is known."""
    def fmt(key, spec, scale=1.0):
        v = number(m.get(key))
        return spec % (v * scale) if v is not None else "n/a"
    s = "model: t_lat %s us, B_eff %s Gb/s" % (fmt("t_lat_us", "%.3g"), fmt("b_eff_gbps", "%.4g"))
    if number(m.get("eta")) is not None:
        s += " (eta %s %% of the link)" % fmt("eta", "%.1f", 100)
    s += ", n_1/2 %s B" % fmt("n_half_bytes", "%.0f")
    if short:
        return s
    return s + ", residual %s %% RMS over %s sizes" % (fmt("rel_rms_residual", "%.1f", 100), fmt("sizes", "%d"))

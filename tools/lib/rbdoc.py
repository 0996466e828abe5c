"""Reading rdmabench CSV and JSON documents, and the alpha-beta fit of a sweep (tools/compare, tools/plot)."""
import csv
import json
import math
import os
import sys


def fail(msg):
    print("%s: %s" % (os.path.basename(sys.argv[0]), msg), file=sys.stderr)
    sys.exit(2)


def load(path):
    """The document's size rows (interval rows skipped) as dicts of strings."""
    try:
        with open(path, newline="") as f:
            text = f.read()
    except OSError as e:
        fail("cannot read %s: %s" % (path, e.strerror))
    if text.lstrip().startswith("{"):
        try:
            rows = json.loads(text)["results"]
        except (ValueError, KeyError, TypeError):
            fail("%s is not an rdmabench JSON document (no results)" % path)
        rows = [{k: ("" if v is None else str(v)) for k, v in r.items()} for r in rows]
    else:
        rows = [r for r in csv.DictReader(text.splitlines()) if not r.get("error")]
    rows = [r for r in rows if r.get("interval", "total") in ("total", "")]
    if not rows or "size_bytes" not in rows[0]:
        fail("%s has no rows with size_bytes (not an rdmabench document?)" % path)
    return rows


def number(s):
    try:
        v = float(s)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


def fit(rows):
    """alpha-beta on time per message t(n) = alpha + n * beta, from bandwidth or latency rows."""
    pts = []
    for r in rows:
        n = number(r.get("size_bytes"))
        bw = number(r.get("bw_avg_gbps"))
        lat = number(r.get("lat_p50_us"))
        if n is None or n <= 0:
            continue
        if bw:
            pts.append((n, n * 8 / (bw * 1e3)))  # us per message at that bandwidth
        elif lat:
            pts.append((n, lat))
    if len(pts) < 2:
        return None
    # least squares weighted by 1/t^2: each size counts by its relative error
    sw = sx = sy = sxx = sxy = 0.0
    for n, t in pts:
        w = 1.0 / (t * t)
        sw += w
        sx += w * n
        sy += w * t
        sxx += w * n * n
        sxy += w * n * t
    det = sw * sxx - sx * sx
    if det == 0:
        return None
    beta = (sw * sxy - sx * sy) / det
    alpha = (sy - beta * sx) / sw
    resid = math.sqrt(sum(((alpha + beta * n) - t) ** 2 / (t * t) for n, t in pts) / len(pts))
    return {"alpha_us": alpha, "beta_us_per_byte": beta, "bw_gbps": 8 / (beta * 1e3) if beta > 0 else float("inf"),
            "n_half_bytes": alpha / beta if beta > 0 else float("inf"), "rms_rel_residual": resid, "points": len(pts)}


def fit_line(name, f):
    if not f:
        return "%s: too few sizes for an alpha-beta fit" % name
    return ("%s: alpha %.3f us, 1/beta %.3f Gb/s, n_1/2 %.0f B, residual %.1f %% RMS over %d sizes"
            % (name, f["alpha_us"], f["bw_gbps"], f["n_half_bytes"], 100 * f["rms_rel_residual"], f["points"]))



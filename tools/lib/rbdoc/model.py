"""The alpha-beta fit of a size sweep (tools/compare, tools/plot)."""
import math

from .document import number


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

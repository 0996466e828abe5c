/* SPDX-License-Identifier: BSD-2-Clause */
#include "model.h"

#include "base/base.h"

#include <errno.h>
#include <math.h>
#include <string.h>

void rb_model_reset(struct rb_model *m)
{
	memset(m, 0, sizeof(*m));
	m->link_gbps = NAN;
}

static double dbl_of(const struct rb_row *row, const char *key)
{
	const struct rb_field *f = rb_row_find(row, key);

	return f && f->type == RB_F_DBL ? f->v.d : NAN;
}

void rb_model_add(struct rb_model *m, const struct rb_row *row)
{
	const struct rb_field *sz = rb_row_find(row, "size_bytes");
	double bw = dbl_of(row, "bw_avg_gbps"), lat = dbl_of(row, "lat_p50_us"),
	       link = dbl_of(row, "link_gbps");
	double n, t;

	if (!sz || sz->type != RB_F_U64 || !sz->v.u || m->n == RB_SIZES_MAX)
		return;
	n = (double)sz->v.u;
	if (bw > 0 && isfinite(bw)) {
		t = n * 8.0 / (bw * 1e3);
		if (!m->metric)
			m->metric = "bw_avg_gbps";
	} else if (lat > 0 && isfinite(lat)) {
		t = lat;
		if (!m->metric)
			m->metric = "lat_p50_us";
	} else {
		return;
	}
	if (link > 0)
		m->link_gbps = link;
	m->size[m->n] = n;
	m->t_us[m->n++] = t;
}

int rb_model_fit(const struct rb_model *m, double link_gbps, struct rb_model_fit *f)
{
	double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0, det, beta, alpha, sq = 0;
	double link = m->link_gbps > 0 ? m->link_gbps : link_gbps;

	memset(f, 0, sizeof(*f));
	if (m->n < 3) /* two points fit any line: no evidence of the model */
		return -EDOM;
	for (unsigned i = 0; i < m->n; i++) {
		double x = m->size[i], y = m->t_us[i], w = 1.0 / (y * y);
		sw += w;
		sx += w * x;
		sy += w * y;
		sxx += w * x * x;
		sxy += w * x * y;
	}
	det = sw * sxx - sx * sx;
	if (!(fabs(det) > 0))
		return -EDOM;
	beta = (sw * sxy - sx * sy) / det; /* us per byte */
	alpha = (sy - beta * sx) / sw;
	if (!(beta > 0))
		return -EDOM;
	f->t_lat_us = alpha;
	f->b_eff_gbps = 8.0 / (beta * 1e3);
	if (alpha < 0) /* the time per byte grows with size: not a latency plus a bandwidth */
		return -ERANGE;
	for (unsigned i = 0; i < m->n; i++) {
		double e = (alpha + beta * m->size[i] - m->t_us[i]) / m->t_us[i];
		sq += e * e;
	}
	f->metric = m->metric;
	f->eta = link > 0 ? f->b_eff_gbps / link : NAN;
	f->n_half_bytes = alpha / beta;
	f->rel_rms_residual = sqrt(sq / m->n);
	f->sizes = m->n;
	return 0;
}

void rb_model_text(const struct rb_model_fit *f, char *buf, size_t len)
{
	char eta[48] = "";

	if (isfinite(f->eta))
		snprintf(eta, sizeof(eta), " (eta %.1f %% of the link)", f->eta * 100.0);
	snprintf(buf, len,
	         "t_lat %.3g us, B_eff %.4g Gb/s%s, n_1/2 %.0f B, residual %.1f %% RMS over %u sizes",
	         f->t_lat_us, f->b_eff_gbps, eta, f->n_half_bytes, f->rel_rms_residual * 100.0, f->sizes);
}

static void json_num(FILE *out, const char *key, double v, bool last)
{
	fprintf(out, "\"%s\": ", key);
	if (isfinite(v))
		rb_dbl_full(out, v);
	else
		fputs("null", out);
	fputs(last ? "}" : ", ", out);
}

void rb_model_json(FILE *out, const struct rb_model_fit *f)
{
	fprintf(out, "{\"metric\": \"%s\", \"sizes\": %u, ", f->metric ? f->metric : "", f->sizes);
	json_num(out, "t_lat_us", f->t_lat_us, false);
	json_num(out, "b_eff_gbps", f->b_eff_gbps, false);
	json_num(out, "eta", f->eta, false);
	json_num(out, "n_half_bytes", f->n_half_bytes, false);
	json_num(out, "rel_rms_residual", f->rel_rms_residual, true);
}

/* SPDX-License-Identifier: BSD-2-Clause */
#include "spread.h"

#include "base/base.h"

#include <math.h>
#include <stdlib.h>

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double rb_quantile_sorted(const double *v, unsigned n, double q)
{
	double pos, frac;
	unsigned lo;

	if (!n)
		return NAN;
	pos = q * (double)(n - 1);
	lo = (unsigned)pos;
	if (lo >= n - 1)
		return v[n - 1];
	frac = pos - (double)lo;
	return v[lo] + (v[lo + 1] - v[lo]) * frac;
}

void rb_spread_of(double *v, unsigned n, struct rb_spread *s)
{
	unsigned k = 0;
	double sum = 0, sq = 0;

	/* The finite values first, in order. */
	for (unsigned i = 0; i < n; i++)
		if (isfinite(v[i])) {
			double x = v[i];
			v[i] = v[k];
			v[k++] = x;
		}
	qsort(v, k, sizeof(*v), cmp_dbl);
	s->n = k;
	s->median = rb_quantile_sorted(v, k, 0.5);
	s->p5 = rb_quantile_sorted(v, k, 0.05);
	s->p95 = rb_quantile_sorted(v, k, 0.95);
	s->min = k ? v[0] : NAN;
	s->max = k ? v[k - 1] : NAN;
	for (unsigned i = 0; i < k; i++)
		sum += v[i];
	s->mean = k ? sum / k : NAN;
	for (unsigned i = 0; i < k; i++)
		sq += (v[i] - s->mean) * (v[i] - s->mean);
	if (k < 2 || s->mean == 0) /* one value has no spread to speak of, not a spread of 0 */
		s->cv_pct = NAN;
	else
		s->cv_pct = sqrt(sq / (k - 1)) / fabs(s->mean) * 100.0;
}

const char *rb_primary_metric(const struct rb_row *row)
{
	if (rb_row_find(row, "bw_avg_gbps"))
		return "bw_avg_gbps";
	if (rb_row_find(row, "lat_p50_us"))
		return "lat_p50_us";
	return NULL;
}

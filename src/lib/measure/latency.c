/* SPDX-License-Identifier: BSD-2-Clause */
#include "latency.h"

#include "base/base.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int rb_samples_init(struct rb_samples *s, size_t expected, size_t limit)
{
	memset(s, 0, sizeof(*s));
	s->limit = limit;
	s->cap = expected ? expected : 4096;
	if (s->cap > limit)
		s->cap = limit;
	s->v = malloc(s->cap * sizeof(*s->v));
	return s->v ? 0 : -ENOMEM;
}

int rb_samples_push(struct rb_samples *s, uint64_t ns)
{
	if (s->n == s->cap) {
		size_t cap = s->cap * 2;
		uint64_t *v;
		if (s->n >= s->limit)
			return -E2BIG;
		if (cap > s->limit)
			cap = s->limit;
		v = realloc(s->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		s->v = v;
		s->cap = cap;
	}
	s->v[s->n++] = ns;
	return 0;
}

void rb_samples_free(struct rb_samples *s)
{
	free(s->v);
	memset(s, 0, sizeof(*s));
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

uint64_t rb_percentile(const uint64_t *sorted, size_t n, double p)
{
	/* ceil(p * n / 100) in exact arithmetic: p has at most 3 decimals here. */
	uint64_t scaled = (uint64_t)llround(p * 1000.0);
	uint64_t rank = (scaled * n + 100000 - 1) / 100000;

	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return sorted[rank - 1];
}

void rb_lat_summarize(uint64_t *v, size_t n, struct rb_lat_summary *out)
{
	long double sum = 0, sq = 0, mean;

	memset(out, 0, sizeof(*out));
	out->count = n;
	if (n == 0)
		return;
	qsort(v, n, sizeof(*v), cmp_u64);
	for (size_t i = 0; i < n; i++)
		sum += v[i];
	mean = sum / n;
	/* Second pass around the mean: no cancellation with huge outliers. */
	for (size_t i = 0; i < n; i++)
		sq += ((long double)v[i] - mean) * ((long double)v[i] - mean);
	out->min = v[0] / 1e3;
	out->max = v[n - 1] / 1e3;
	out->mean = (double)(mean / 1e3L);
	out->stdev = n > 1 ? (double)(sqrtl(sq / (n - 1)) / 1e3L) : 0.0;
	out->p50 = rb_percentile(v, n, 50) / 1e3;
	out->p90 = rb_percentile(v, n, 90) / 1e3;
	out->p99 = rb_percentile(v, n, 99) / 1e3;
	out->p999 = rb_percentile(v, n, 99.9) / 1e3;
}

void rb_lat_scale(struct rb_lat_summary *s, double k)
{
	s->min *= k;
	s->p50 *= k;
	s->mean *= k;
	s->stdev *= k;
	s->p90 *= k;
	s->p99 *= k;
	s->p999 *= k;
	s->max *= k;
}

void rb_lat_histogram(FILE *f, const uint64_t *v, size_t n, unsigned divisor)
{
	size_t counts[64] = {0}, most = 0;
	int lo = 63, hi = 0;

	if (n == 0)
		return;
	for (size_t i = 0; i < n; i++) {
		uint64_t x = v[i] / (divisor ? divisor : 1);
		int k = x ? 63 - __builtin_clzll(x) : 0;
		counts[k]++;
		if (k < lo)
			lo = k;
		if (k > hi)
			hi = k;
	}
	for (int k = lo; k <= hi; k++)
		if (counts[k] > most)
			most = counts[k];
	fprintf(f, " histogram (%zu samples, log2 buckets):\n", n);
	for (int k = lo; k <= hi; k++) {
		int bar = (int)((counts[k] * 40 + most - 1) / most);
		fprintf(f, "  [%10.3f, %10.3f) us %10zu %5.1f%% %.*s\n", ldexp(1.0, k) / 1e3,
		        ldexp(1.0, k + 1) / 1e3, counts[k], 100.0 * (double)counts[k] / (double)n,
		        counts[k] ? bar : 0, "########################################");
	}
}

/* perftest's columns and header strings first (a script's column 8 is the p99), ours after. */
const struct rb_col rb_lat_cols[] = {
    {"lat_min_us", "t_min", "usec", 3},
    {"lat_max_us", "t_max", "usec", 3},
    {"lat_p50_us", "t_typical", "usec", 3},
    {"lat_mean_us", "t_avg", "usec", 3},
    {"lat_stdev_us", "t_stdev", "usec", 3},
    {"lat_p99_us", "99% percentile", "usec", 3},
    {"lat_p999_us", "99.9% percentile", "usec", 3},
    {"lat_p90_us", "90% percentile", "usec", 3},
};

void rb_lat_row(struct rb_row *r, const struct rb_lat_summary *m)
{
	const double v[RB_LAT_NCOLS] = {m->min, m->max, m->p50, m->mean, m->stdev, m->p99, m->p999, m->p90};

	for (unsigned i = 0; i < RB_LAT_NCOLS; i++)
		rb_row_put_dbl(r, &rb_lat_cols[i], v[i]);
}

double rb_lat_tps(const struct rb_lat_summary *s)
{
	return s->elapsed_s > 0 ? (double)s->count / s->elapsed_s : NAN;
}

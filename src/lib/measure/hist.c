/* SPDX-License-Identifier: BSD-2-Clause */
#include "hist.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int rb_hist_init(struct rb_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->counts = calloc(RB_HIST_BUCKETS, sizeof(*h->counts));
	if (!h->counts)
		return -ENOMEM;
	h->min = UINT64_MAX;
	return 0;
}

void rb_hist_free(struct rb_hist *h)
{
	free(h->counts);
	memset(h, 0, sizeof(*h));
}

void rb_hist_reset(struct rb_hist *h)
{
	memset(h->counts, 0, RB_HIST_BUCKETS * sizeof(*h->counts));
	h->n = h->max = 0;
	h->min = UINT64_MAX;
	h->mean = h->m2 = 0;
}

void rb_hist_bucket_range(unsigned b, uint64_t *lo, uint64_t *width)
{
	const unsigned s = RB_HIST_SUB_BITS, half = 1u << (s - 1);
	unsigned e, shift;

	if (b < (1u << s)) {
		*lo = b;
		*width = 1;
		return;
	}
	e = s + (b - (1u << s)) / half;
	shift = e - (s - 1);
	*lo = (uint64_t)(half + (b - (1u << s)) % half) << shift;
	*width = 1ull << shift;
}

double rb_hist_percentile(const struct rb_hist *h, double p)
{
	/* rank = ceil(p * n / 100) exactly (p has at most 3 decimals), in 128 bits: n may be near 2^64. */
	unsigned __int128 scaled = (unsigned __int128)llround(p * 1000.0) * h->n;
	uint64_t rank = (uint64_t)((scaled + 100000 - 1) / 100000), seen = 0;

	if (h->n == 0)
		return 0;
	if (rank < 1)
		rank = 1;
	if (rank > h->n)
		rank = h->n;
	for (unsigned b = 0; b < RB_HIST_BUCKETS; b++) {
		uint64_t lo, width;
		double mid;

		if (h->counts[b] < rank - seen) {
			seen += h->counts[b];
			continue;
		}
		rb_hist_bucket_range(b, &lo, &width);
		if (width == 1)
			return (double)lo;
		mid = (double)lo + (double)(width - 1) / 2.0;
		/* The extremes are known exactly: never report outside them. */
		if (mid < (double)h->min)
			mid = (double)h->min;
		if (mid > (double)h->max)
			mid = (double)h->max;
		return mid;
	}
	return (double)h->max;
}

int rb_hist_merge(struct rb_hist *dst, const struct rb_hist *src)
{
	uint64_t n = dst->n + src->n;
	double delta;

	if (n < dst->n)
		return -EOVERFLOW;
	for (unsigned b = 0; b < RB_HIST_BUCKETS; b++)
		if (dst->counts[b] + src->counts[b] < dst->counts[b])
			return -EOVERFLOW;
	if (src->n == 0)
		return 0;
	for (unsigned b = 0; b < RB_HIST_BUCKETS; b++)
		dst->counts[b] += src->counts[b];
	/* Chan et al.: the two sets' means and squared deviations combine exactly. */
	delta = src->mean - dst->mean;
	dst->mean += delta * ((double)src->n / (double)n);
	dst->m2 += src->m2 + delta * delta * ((double)dst->n * (double)src->n / (double)n);
	dst->n = n;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	return 0;
}

void rb_hist_summary(const struct rb_hist *h, struct rb_lat_summary *out)
{
	memset(out, 0, sizeof(*out));
	out->count = h->n;
	if (h->n == 0)
		return;
	out->min = (double)h->min / 1e3;
	out->max = (double)h->max / 1e3;
	out->mean = h->mean / 1e3;
	out->stdev = h->n > 1 ? sqrt(h->m2 / (double)(h->n - 1)) / 1e3 : 0.0;
	out->p50 = rb_hist_percentile(h, 50) / 1e3;
	out->p90 = rb_hist_percentile(h, 90) / 1e3;
	out->p99 = rb_hist_percentile(h, 99) / 1e3;
	out->p999 = rb_hist_percentile(h, 99.9) / 1e3;
}

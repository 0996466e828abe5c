/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A log-linear latency histogram (the HdrHistogram idea): constant memory whatever
 * the run's length or rate, exact counts for small values, bounded relative error
 * above them.
 *
 * Values are nanoseconds. Below 2^RB_HIST_SUB_BITS (2048 ns) every value has its
 * own bucket: exact. Above, each power of two [2^e, 2^(e+1)) is cut into 2^(SUB_BITS-1)
 * equal buckets, so a bucket is 1/1024 of its lower bound wide; a percentile is
 * reported as its bucket's midpoint (clamped to the exact min and max), off by at
 * most 1/2048 (0.049 %) of the true nearest-rank value. Values from 2^RB_HIST_MAX_BITS
 * ns (about 4.9 hours) on share the top bucket; min and max stay exact. Mean and
 * standard deviation come from running sums (Welford), not from the buckets.
 */
#ifndef RB_HIST_H
#define RB_HIST_H

#include <stdint.h>

#include "latency.h"

#define RB_HIST_SUB_BITS 11
#define RB_HIST_MAX_BITS 44
#define RB_HIST_BUCKETS                                                                                      \
	((1u << RB_HIST_SUB_BITS) + (RB_HIST_MAX_BITS - RB_HIST_SUB_BITS) * (1u << (RB_HIST_SUB_BITS - 1)))
/* The guaranteed bound on a percentile's relative error. */
#define RB_HIST_REL_ERROR (1.0 / (1u << RB_HIST_SUB_BITS))

struct rb_hist {
	uint64_t *counts; /* RB_HIST_BUCKETS */
	uint64_t n, min, max;
	double mean, m2; /* Welford: running mean and sum of squared deviations (ns) */
};

int rb_hist_init(struct rb_hist *h);
void rb_hist_free(struct rb_hist *h);
/* Empties h, keeping its memory (interval rows). */
void rb_hist_reset(struct rb_hist *h);

/* Bucket of value v, and the range [lo, lo + width) it stands for. */
static inline unsigned rb_hist_bucket(uint64_t v)
{
	const unsigned s = RB_HIST_SUB_BITS, half = 1u << (s - 1);
	unsigned e, shift;

	if (v < (1ull << s))
		return (unsigned)v;
	if (v >= (1ull << RB_HIST_MAX_BITS))
		return RB_HIST_BUCKETS - 1;
	e = 63u - (unsigned)__builtin_clzll(v);
	shift = e - (s - 1);
	return (1u << s) + (e - s) * half + (unsigned)(v >> shift) - half;
}
void rb_hist_bucket_range(unsigned b, uint64_t *lo, uint64_t *width);

/* Adds one sample: a few instructions, no branch on the common path but min/max. */
static inline void rb_hist_add(struct rb_hist *h, uint64_t v)
{
	double d = (double)v - h->mean;

	h->counts[rb_hist_bucket(v)]++;
	h->n++;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	h->mean += d / (double)h->n;
	h->m2 += d * ((double)v - h->mean);
}

/*
 * Nearest rank, as rb_percentile defines it (the smallest value with at least p %
 * of the samples at or below it), within RB_HIST_REL_ERROR; p in (0, 100]. 0 when empty.
 */
double rb_hist_percentile(const struct rb_hist *h, double p);
/* Adds src into dst (both sides' samples, or an interval into the run's total); -EOVERFLOW when a count would
 * wrap. */
int rb_hist_merge(struct rb_hist *dst, const struct rb_hist *src);
/* min, percentiles, mean, sample standard deviation and max, in microseconds. */
void rb_hist_summary(const struct rb_hist *h, struct rb_lat_summary *out);

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Latency statistics over a set of samples (ns): min, nearest-rank percentiles,
 * mean, sample standard deviation, max, and a compact log2 histogram.
 */
#ifndef RB_LATENCY_H
#define RB_LATENCY_H

#include "base/base.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* All figures in microseconds. */
struct rb_lat_summary {
	uint64_t count, warmup;
	double min, p50, mean, stdev, p90, p99, p999, max;
	double elapsed_s; /* measured time (after warm-up), set by the tool */
};

/* Round trips per second over the measured time; NaN when unknown. */
double rb_lat_tps(const struct rb_lat_summary *s);

/* A growable sample buffer. */
struct rb_samples {
	uint64_t *v;
	size_t n, cap, limit;
};

int rb_samples_init(struct rb_samples *s, size_t expected, size_t limit);
/* Returns 0, or -E2BIG once limit samples are stored (the sample is dropped). */
int rb_samples_push(struct rb_samples *s, uint64_t ns);
void rb_samples_free(struct rb_samples *s);

/*
 * Nearest rank on sorted data: the smallest sample with at least p% of the samples
 * at or below it, i.e. sorted[ceil(p/100 * n) - 1]; p in (0, 100], n >= 1.
 */
uint64_t rb_percentile(const uint64_t *sorted, size_t n, double p);

/* Sorts the samples in place and summarises them; n == 0 gives all zeros. */
void rb_lat_summarize(uint64_t *samples, size_t n, struct rb_lat_summary *out);

/* Multiplies every figure by k (round trip -> one way: 0.5). */
void rb_lat_scale(struct rb_lat_summary *s, double k);

/*
 * Buckets [2^k, 2^(k+1)) ns of sample/divisor, from the first to the last non-empty
 * one, with counts, shares and bars.
 */
void rb_lat_histogram(FILE *f, const uint64_t *samples, size_t n, unsigned divisor);

struct rb_row;
/* Their keys, in that order (NULL-terminated), for the documents' schema. */
#define RB_LAT_NCOLS 8
extern const struct rb_col rb_lat_cols[RB_LAT_NCOLS];
/* The latency columns of a result row (keys lat_*_us, perftest's table labels). */
void rb_lat_row(struct rb_row *r, const struct rb_lat_summary *m);

#endif

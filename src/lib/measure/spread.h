/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The spread of a handful of independent measurements of one thing (--repeat):
 * median, P5, P95, min, max and the coefficient of variation.
 */
#ifndef RB_SPREAD_H
#define RB_SPREAD_H

struct rb_row;

struct rb_spread {
	unsigned n; /* the finite values counted */
	double median, p5, p95, min, max, mean;
	double
	    cv_pct; /* sample standard deviation / mean x 100; NaN for fewer than 2 values or a mean of 0 */
};

/*
 * v[0..n) is reordered (NaN and infinities moved out and left out, the rest sorted).
 * Percentiles interpolate linearly between the two nearest ranks (position q x (n - 1)
 * of the sorted values), so with 5 repeats P5 lies between the lowest two and P95
 * between the highest two. Every figure is NaN when no value is finite.
 */
void rb_spread_of(double *v, unsigned n, struct rb_spread *s);
/* The q-quantile (0..1) of n sorted values, interpolated as above; NaN when n is 0. */
double rb_quantile_sorted(const double *v, unsigned n, double q);

/* A row's primary metric, the one a size's stability is judged by: bw_avg_gbps, else lat_p50_us (NULL). */
const char *rb_primary_metric(const struct rb_row *row);

#endif

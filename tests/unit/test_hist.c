/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The log-linear histogram against exact nearest-rank percentiles on generated
 * distributions, merging, counts near 2^64, and (with the argument "long") a
 * simulated soak run past the old 64 Mi-sample cap.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "measure/hist.h"
#include "measure/latency.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}
static double unit(void)
{
	return (double)(next() >> 11) / 9007199254740992.0;
}

enum dist { UNIFORM, BIMODAL, HEAVY_TAIL, CONSTANT, TINY };

static uint64_t draw(enum dist d)
{
	switch (d) {
	case UNIFORM: return 1000 + next() % 99000; /* 1..100 us */
	case BIMODAL: return next() % 4 ? 1800 + next() % 200 : 45000 + next() % 5000;
	case HEAVY_TAIL:
		/* 1.2..3 us, and one in ~5000 a 1000x outlier (a stall). */
		return next() % 5000 == 0 ? 1500000 + next() % 1500000
		                          : 1200 + (uint64_t)(1800 * unit() * unit());
	case CONSTANT: return 2345;
	case TINY: return next() % 2048; /* entirely in the exact region */
	}
	return 0;
}

static int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void against_exact(enum dist d, size_t n)
{
	static const double ps[] = {0.1, 1, 25, 50, 90, 99, 99.9, 99.99, 100};
	uint64_t *v = malloc(n * sizeof(*v));
	struct rb_hist h;
	long double sum = 0, sq = 0, mean;

	assert_non_null(v);
	assert_int_equal(rb_hist_init(&h), 0);
	for (size_t i = 0; i < n; i++) {
		v[i] = draw(d);
		rb_hist_add(&h, v[i]);
		sum += v[i];
	}
	qsort(v, n, sizeof(*v), cmp);
	for (unsigned i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
		double exact = (double)rb_percentile(v, n, ps[i]), got = rb_hist_percentile(&h, ps[i]);
		if (fabs(got - exact) > exact * RB_HIST_REL_ERROR) {
			print_error("dist %d p%g: histogram %.3f, exact %.0f\n", d, ps[i], got, exact);
			fail();
		}
		if (d == TINY || d == CONSTANT)
			assert_true(got == exact); /* the exact region is exact */
	}
	mean = sum / n;
	for (size_t i = 0; i < n; i++)
		sq += (v[i] - mean) * (v[i] - mean);
	assert_true(h.min == v[0] && h.max == v[n - 1]);
	assert_true(fabs(h.mean - (double)mean) <= 1e-9 * (double)mean);
	if (sq > 0)
		assert_true(fabs(sqrt(h.m2 / (double)(n - 1)) - (double)sqrtl(sq / (n - 1))) <=
		            1e-9 * (double)sqrtl(sq / (n - 1)));
	else
		assert_true(h.m2 == 0);
	rb_hist_free(&h);
	free(v);
}

static void uniform(void **state)
{
	(void)state;
	against_exact(UNIFORM, 200000);
}
static void bimodal(void **state)
{
	(void)state;
	against_exact(BIMODAL, 200000);
}
static void heavy_tail(void **state)
{
	(void)state;
	against_exact(HEAVY_TAIL, 500000);
}
static void constant(void **state)
{
	(void)state;
	against_exact(CONSTANT, 1000);
	against_exact(CONSTANT, 1);
}
static void tiny(void **state)
{
	(void)state;
	against_exact(TINY, 100000);
}

/* Every bucket's range holds exactly the values that map to it, with the stated width. */
static void buckets_tile_the_line(void **state)
{
	uint64_t expect = 0;
	(void)state;
	for (unsigned b = 0; b + 1 < RB_HIST_BUCKETS; b++) {
		uint64_t lo, width;
		rb_hist_bucket_range(b, &lo, &width);
		assert_true(lo == expect);
		assert_int_equal(rb_hist_bucket(lo), b);
		assert_int_equal(rb_hist_bucket(lo + width - 1), b);
		assert_true(width == 1 || (double)width / (double)lo <= 2 * RB_HIST_REL_ERROR);
		expect = lo + width;
	}
	{
		uint64_t lo, width;
		rb_hist_bucket_range(RB_HIST_BUCKETS - 1, &lo, &width);
		assert_true(lo == expect && lo + width == 1ull << RB_HIST_MAX_BITS);
	}
	assert_int_equal(rb_hist_bucket(UINT64_MAX), RB_HIST_BUCKETS - 1);
}

/* Both sides' histograms merge into what one histogram of all the samples holds. */
static void merge(void **state)
{
	struct rb_hist a, b, all;
	(void)state;
	assert_int_equal(rb_hist_init(&a), 0);
	assert_int_equal(rb_hist_init(&b), 0);
	assert_int_equal(rb_hist_init(&all), 0);
	for (unsigned i = 0; i < 100000; i++) {
		uint64_t v = draw(i % 2 ? HEAVY_TAIL : BIMODAL);
		rb_hist_add(i % 3 ? &a : &b, v);
		rb_hist_add(&all, v);
	}
	assert_int_equal(rb_hist_merge(&a, &b), 0);
	assert_true(a.n == all.n && a.min == all.min && a.max == all.max);
	assert_memory_equal(a.counts, all.counts, RB_HIST_BUCKETS * sizeof(uint64_t));
	assert_true(fabs(a.mean - all.mean) <= 1e-9 * all.mean);
	assert_true(fabs(a.m2 - all.m2) <= 1e-9 * all.m2);
	assert_true(rb_hist_percentile(&a, 99.9) == rb_hist_percentile(&all, 99.9));
	/* An empty side changes nothing; reset empties. */
	rb_hist_reset(&b);
	assert_int_equal(rb_hist_merge(&a, &b), 0);
	assert_true(a.n == all.n);
	rb_hist_free(&a);
	rb_hist_free(&b);
	rb_hist_free(&all);
}

/* Counts near 2^64: ranks computed without overflow, merges that would wrap refused. */
static void counts_near_2_64(void **state)
{
	struct rb_hist a, b;
	(void)state;
	assert_int_equal(rb_hist_init(&a), 0);
	assert_int_equal(rb_hist_init(&b), 0);
	a.counts[rb_hist_bucket(1000)] = UINT64_MAX / 2;
	a.counts[rb_hist_bucket(500000)] = UINT64_MAX / 2;
	a.n = UINT64_MAX - 1;
	a.min = 1000;
	a.max = 500000;
	assert_true(rb_hist_percentile(&a, 50) == 1000.0);
	assert_true(fabs(rb_hist_percentile(&a, 50.001) - 500000.0) <= 500000.0 * RB_HIST_REL_ERROR);
	assert_true(rb_hist_percentile(&a, 100) == rb_hist_percentile(&a, 99.999));
	b.counts[rb_hist_bucket(1000)] = 2;
	b.n = 2;
	b.min = b.max = 1000;
	assert_int_equal(rb_hist_merge(&a, &b), -EOVERFLOW);
	assert_true(a.n == UINT64_MAX - 1); /* untouched */
	b.counts[rb_hist_bucket(1000)] = 1;
	b.n = 1;
	assert_int_equal(rb_hist_merge(&a, &b), 0);
	assert_true(a.n == UINT64_MAX);
	rb_hist_free(&a);
	rb_hist_free(&b);
}

/*
 * A soak run at a real fabric's rate: 1.1-1.6 us half round trips for far more
 * samples than the old 64 Mi cap held, with one 250 us stall in 10 million. Memory
 * stays the histogram's; the rare stall shows in p99.999 and max, exactly.
 */
static void long_soak(void **state)
{
	const uint64_t n = 100000000ull; /* 100 M > 64 Mi */
	struct rb_hist h;
	uint64_t stalls = 0;
	(void)state;
	assert_int_equal(rb_hist_init(&h), 0);
	for (uint64_t i = 0; i < n; i++) {
		uint64_t v = 1100 + (next() & 511);
		if (i % 10000000 == 4321) {
			v = 250000;
			stalls++;
		}
		rb_hist_add(&h, v);
	}
	assert_true(h.n == n && h.max == 250000);
	assert_true(rb_hist_percentile(&h, 50) >= 1100 && rb_hist_percentile(&h, 50) <= 1611);
	assert_true(rb_hist_percentile(&h, 99.99) <= 1611);
	assert_true(stalls == 10);
	rb_hist_free(&h);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(uniform),    cmocka_unit_test(bimodal),
	    cmocka_unit_test(heavy_tail), cmocka_unit_test(constant),
	    cmocka_unit_test(tiny),       cmocka_unit_test(buckets_tile_the_line),
	    cmocka_unit_test(merge),      cmocka_unit_test(counts_near_2_64),
	};
	const struct CMUnitTest soak[] = {cmocka_unit_test(long_soak)};

	if (argc > 1 && !strcmp(argv[1], "long"))
		return cmocka_run_group_tests(soak, NULL, NULL);
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* Latency statistics against hand-computed sets; LATSTATS frame validation. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "measure/latency.h"
#include "run/pingpong.h"
#include "oob/wire.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NEAR(a, b) assert_true(fabs((a) - (b)) <= 1e-9 * (fabs(b) + 1))

static void one_sample(void **state)
{
	uint64_t v[] = {5000};
	struct rb_lat_summary s;
	(void)state;
	rb_lat_summarize(v, 1, &s);
	assert_int_equal(s.count, 1);
	NEAR(s.min, 5.0);
	NEAR(s.p50, 5.0);
	NEAR(s.p999, 5.0);
	NEAR(s.max, 5.0);
	NEAR(s.mean, 5.0);
	NEAR(s.stdev, 0.0);
}

static void two_samples(void **state)
{
	uint64_t v[] = {3000, 1000}; /* unsorted on purpose */
	struct rb_lat_summary s;
	(void)state;
	rb_lat_summarize(v, 2, &s);
	NEAR(s.min, 1.0);
	NEAR(s.p50, 1.0); /* nearest rank: ceil(0.5 * 2) = 1st */
	NEAR(s.p90, 3.0); /* ceil(1.8) = 2nd */
	NEAR(s.max, 3.0);
	NEAR(s.mean, 2.0);
	NEAR(s.stdev, sqrt(2.0)); /* sample stdev: sqrt((1 + 1) / 1) us */
}

static void odd_set(void **state)
{
	uint64_t v[] = {50000, 10000, 40000, 20000, 30000};
	struct rb_lat_summary s;
	(void)state;
	rb_lat_summarize(v, 5, &s);
	NEAR(s.p50, 30.0); /* ceil(2.5) = 3rd */
	NEAR(s.p90, 50.0); /* ceil(4.5) = 5th */
	NEAR(s.mean, 30.0);
	NEAR(s.stdev, sqrt(250.0));    /* (400 + 100 + 0 + 100 + 400) / 4 */
	assert_int_equal(v[0], 10000); /* sorted in place */
}

static void ties(void **state)
{
	uint64_t v[] = {7000, 7000, 7000, 7000};
	struct rb_lat_summary s;
	(void)state;
	rb_lat_summarize(v, 4, &s);
	NEAR(s.min, 7.0);
	NEAR(s.p99, 7.0);
	NEAR(s.max, 7.0);
	NEAR(s.stdev, 0.0);
}

static void hundred(void **state)
{
	uint64_t v[100];
	struct rb_lat_summary s;
	(void)state;
	for (int i = 0; i < 100; i++)
		v[i] = (uint64_t)(100 - i) * 1000; /* 100..1 us */
	rb_lat_summarize(v, 100, &s);
	NEAR(s.p50, 50.0);
	NEAR(s.p90, 90.0);
	NEAR(s.p99, 99.0);
	NEAR(s.p999, 100.0); /* ceil(99.9) = 100th */
	NEAR(s.mean, 50.5);
	NEAR(s.stdev, sqrt(841.6666666666666)); /* sum (i - 50.5)^2 / 99 */
	assert_int_equal(rb_percentile(v, 100, 100), 100000);
	assert_int_equal(rb_percentile(v, 100, 0.5), 1000);
}

static void huge_outlier(void **state)
{
	static uint64_t v[1000];
	struct rb_lat_summary s;
	(void)state;
	for (int i = 0; i < 999; i++)
		v[i] = 1000;
	v[999] = 1000000000000ull; /* a 1000 s stall */
	rb_lat_summarize(v, 1000, &s);
	NEAR(s.p50, 1.0);
	NEAR(s.p99, 1.0);
	NEAR(s.p999, 1.0); /* ceil(999) = 999th: still the fast ones */
	NEAR(s.max, 1e9);
	NEAR(s.mean, (999.0 * 1000 + 1e12) / 1000 / 1000);
	/* stdev of {1 x 999, 1e9}: computed around the mean, no cancellation */
	{
		double mean = s.mean, sq = 999 * (1.0 - mean) * (1.0 - mean) + (1e9 - mean) * (1e9 - mean);
		NEAR(s.stdev, sqrt(sq / 999));
	}
}

static void scale_and_empty(void **state)
{
	uint64_t v[] = {2000, 4000};
	struct rb_lat_summary s;
	(void)state;
	rb_lat_summarize(v, 2, &s);
	rb_lat_scale(&s, 0.5);
	NEAR(s.min, 1.0);
	NEAR(s.max, 2.0);
	NEAR(s.mean, 1.5);
	rb_lat_summarize(v, 0, &s);
	assert_int_equal(s.count, 0);
	NEAR(s.max, 0.0);
}

static void histogram(void **state)
{
	uint64_t v[] = {1000, 1100, 1500, 2100, 9000};
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	unsigned lines = 0;
	(void)state;
	rb_lat_histogram(f, v, 5, 1);
	fclose(f);
	for (char *p = text; *p; p++)
		lines += *p == '\n';
	/* title + buckets 2^9 (1000) .. 2^13 (9000) = 5 buckets */
	assert_int_equal(lines, 6);
	assert_non_null(strstr(text, "5 samples"));
	assert_non_null(strstr(text, "40.0%")); /* 1100 and 1500 share [1.024, 2.048) */
	free(text);
}

static void samples_buffer(void **state)
{
	struct rb_samples s;
	(void)state;
	assert_int_equal(rb_samples_init(&s, 2, 5), 0);
	for (int i = 0; i < 5; i++)
		assert_int_equal(rb_samples_push(&s, (uint64_t)i), 0);
	assert_int_equal(rb_samples_push(&s, 9), -E2BIG);
	assert_int_equal(s.n, 5);
	rb_samples_free(&s);
}

static void latstats_frame(void **state)
{
	uint8_t buf[256];
	struct rb_wbuf w = {buf, 0, sizeof(buf), false};
	struct rb_lat_summary a = {1000, 100, 1.0, 2.0, 2.5, 0.5, 3.0, 4.0, 5.0, 6.0, 0.25}, b;
	(void)state;
	rb_latstats_encode(&w, &a);
	assert_int_equal(rb_latstats_decode(buf, w.len, &b), 0);
	assert_memory_equal(&a, &b, sizeof(a));
	a.p99 = 1.5; /* below p90: impossible */
	w.len = 0;
	rb_latstats_encode(&w, &a);
	assert_int_equal(rb_latstats_decode(buf, w.len, &b), -EPROTO);
	a.p99 = 4.0;
	a.min = NAN;
	w.len = 0;
	rb_latstats_encode(&w, &a);
	assert_int_equal(rb_latstats_decode(buf, w.len, &b), -EPROTO);
	assert_int_equal(rb_latstats_decode(buf, w.len - 1, &b), -EPROTO);
	assert_true(fabs(rb_lat_tps(&(struct rb_lat_summary){.count = 1000, .elapsed_s = 0.25}) - 4000) <
	            1e-9);
	assert_true(isnan(rb_lat_tps(&(struct rb_lat_summary){.count = 1000})));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(one_sample),      cmocka_unit_test(two_samples),
	    cmocka_unit_test(odd_set),         cmocka_unit_test(ties),
	    cmocka_unit_test(hundred),         cmocka_unit_test(huge_outlier),
	    cmocka_unit_test(scale_and_empty), cmocka_unit_test(histogram),
	    cmocka_unit_test(samples_buffer),  cmocka_unit_test(latstats_frame),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

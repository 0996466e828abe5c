/* SPDX-License-Identifier: BSD-2-Clause */
/* The spread of repeats (P5/P95/CV on known data) and the summary row of a size's repeats. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/base.h"
#include "measure/spread.h"
#include "report/repeat.h"

#include <math.h>
#include <string.h>

static void known_data(void **state)
{
	double v[] = {5, 1, 4, 2, 3};
	struct rb_spread s;

	(void)state;
	rb_spread_of(v, 5, &s);
	assert_int_equal(s.n, 5);
	assert_float_equal(s.median, 3, 1e-12);
	assert_float_equal(s.p5, 1.2, 1e-12); /* 0.05 x 4 = 0.2 of the way from 1 to 2 */
	assert_float_equal(s.p95, 4.8, 1e-12);
	assert_float_equal(s.min, 1, 0);
	assert_float_equal(s.max, 5, 0);
	assert_float_equal(s.mean, 3, 1e-12);
	assert_float_equal(s.cv_pct, sqrt(2.5) / 3 * 100, 1e-9); /* sample stdev, n - 1 */
}

static void even_count_median(void **state)
{
	double v[] = {10, 40, 20, 30};
	struct rb_spread s;

	(void)state;
	rb_spread_of(v, 4, &s);
	assert_float_equal(s.median, 25, 1e-12);
	assert_float_equal(s.p95, 38.5, 1e-12); /* 0.95 x 3 = 2.85: 30 + 0.85 x 10 */
}

static void not_finite_left_out(void **state)
{
	double v[] = {NAN, 2, INFINITY, 4};
	struct rb_spread s;

	(void)state;
	rb_spread_of(v, 4, &s);
	assert_int_equal(s.n, 2);
	assert_float_equal(s.median, 3, 1e-12);
	assert_float_equal(s.cv_pct, sqrt(2.0) / 3 * 100, 1e-9);
}

static void one_and_none(void **state)
{
	double one[] = {7}, none[1];
	struct rb_spread s;

	(void)state;
	rb_spread_of(one, 1, &s);
	assert_float_equal(s.median, 7, 0);
	assert_float_equal(s.p5, 7, 0);
	assert_float_equal(s.p95, 7, 0);
	assert_true(isnan(s.cv_pct)); /* one value: no spread known, never a CV of 0 that passes --max-cv */
	rb_spread_of(none, 0, &s);
	assert_int_equal(s.n, 0);
	assert_true(isnan(s.median) && isnan(s.cv_pct) && isnan(s.min));
}

static const struct rb_field *get(const struct rb_row *r, const char *key)
{
	const struct rb_field *f = rb_row_find(r, key);

	assert_non_null(f);
	return f;
}

/* Three repeats of one size as a bandwidth tool writes them, marked. */
static void repeats(struct rb_row rows[3])
{
	const double bw[3] = {10, 12, 11};
	const uint64_t msgs[3] = {100, 300, 200};

	for (unsigned k = 0; k < 3; k++) {
		memset(&rows[k], 0, sizeof(rows[k]));
		rb_row_str(&rows[k], "tool", NULL, k ? "later" : "first");
		rb_row_u64(&rows[k], "size_bytes", "#bytes", 4096);
		rb_row_u64(&rows[k], "msgs", NULL, msgs[k]);
		rb_row_u64(&rows[k], "ctr_completer_retry_err", NULL, k == 1 ? 7 : 0);
		rb_row_dbl(&rows[k], "bw_avg_gbps", "BW average[Gb/s]", 3, bw[k]);
		rb_row_dbl(&rows[k], "msg_rate_mpps", NULL, 6, bw[k] / 4096 / 8 * 1e3);
		rb_repeat_mark(&rows[k], k + 1, 3);
	}
}

static void summary_row(void **state)
{
	struct rb_row rows[3], sum;

	(void)state;
	repeats(rows);
	/* The repeat's own row: its number, and the spread columns empty. */
	assert_string_equal(get(&rows[1], "repeat")->s, "2");
	assert_int_equal(get(&rows[1], "repeats")->v.u, 3);
	assert_true(isnan(get(&rows[1], "bw_avg_gbps_cv_pct")->v.d));
	assert_null(rb_row_find(&rows[1], "lat_p50_us_p5"));

	rb_repeat_summary(rows, 3, 5.0, &sum);
	assert_string_equal(get(&sum, "repeat")->s, "all");
	assert_string_equal(get(&sum, "tool")->s, "first");
	assert_int_equal(get(&sum, "msgs")->v.u, 200);
	assert_int_equal(get(&sum, "ctr_completer_retry_err")->v.u,
	                 7); /* summed: one repeat's retries show */
	assert_float_equal(get(&sum, "bw_avg_gbps")->v.d, 11, 1e-12);
	assert_float_equal(get(&sum, "bw_avg_gbps_p5")->v.d, 10.1, 1e-12);
	assert_float_equal(get(&sum, "bw_avg_gbps_p95")->v.d, 11.9, 1e-12);
	assert_float_equal(get(&sum, "bw_avg_gbps_min")->v.d, 10, 0);
	assert_float_equal(get(&sum, "bw_avg_gbps_max")->v.d, 12, 0);
	assert_float_equal(get(&sum, "bw_avg_gbps_cv_pct")->v.d, 100.0 / 11, 1e-9);
	assert_true(get(&sum, "unstable")->v.b); /* 9.1 % > 5 % */
	/* The table shows the primary metric's spread, not every metric's. */
	assert_string_equal(get(&sum, "bw_avg_gbps_cv_pct")->label, "rep_CV[%]");
	assert_null(get(&sum, "msg_rate_mpps_cv_pct")->label);
	/* Every row has the same columns in the same order (CSV). */
	assert_int_equal(sum.n, rows[0].n);
	for (unsigned i = 0; i < sum.n; i++)
		assert_string_equal(sum.f[i].key, rows[0].f[i].key);

	rb_repeat_summary(rows, 3, 10.0, &sum);
	assert_false(get(&sum, "unstable")->v.b);
}

static void primary(void **state)
{
	struct rb_row r = {0};

	(void)state;
	assert_null(rb_primary_metric(&r));
	rb_row_dbl(&r, "lat_p50_us", NULL, 3, 1);
	assert_string_equal(rb_primary_metric(&r), "lat_p50_us");
	rb_row_dbl(&r, "bw_avg_gbps", NULL, 3, 1);
	assert_string_equal(rb_primary_metric(&r), "bw_avg_gbps");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(known_data),          cmocka_unit_test(even_count_median),
	    cmocka_unit_test(not_finite_left_out), cmocka_unit_test(one_and_none),
	    cmocka_unit_test(summary_row),         cmocka_unit_test(primary),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

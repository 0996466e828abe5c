/* SPDX-License-Identifier: BSD-2-Clause */
/* The message-time model T = t_lat + N / B_eff, fitted to synthetic sweeps with noise. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/base.h"
#include "measure/model.h"

#include <errno.h>
#include <stdio.h>
#include <math.h>
#include <string.h>

/* A fixed pseudo-random factor in [1 - a, 1 + a] (the same every run). */
static double noise(uint32_t *x, double a)
{
	*x = *x * 1664525u + 1013904223u;
	return 1.0 + a * (2.0 * (double)(*x >> 8) / (double)(1u << 24) - 1.0);
}

/* A bandwidth sweep 2 B .. 8 MiB of a link with t_lat 2 us and B_eff 80 Gb/s, noise +-a. */
static void bw_sweep(struct rb_model *m, double a, bool link_col)
{
	uint32_t x = 12345;

	rb_model_reset(m);
	for (uint64_t n = 2; n <= (8u << 20); n *= 2) {
		struct rb_row r = {0};
		double t = (2.0 + (double)n * 8 / 80e3) * noise(&x, a);

		rb_row_u64(&r, "size_bytes", NULL, n);
		rb_row_dbl(&r, "bw_avg_gbps", NULL, 3, (double)n * 8 / (t * 1e3));
		if (link_col)
			rb_row_dbl(&r, "link_gbps", NULL, 1, 100);
		rb_model_add(m, &r);
	}
}

static void exact(void **state)
{
	struct rb_model m;
	struct rb_model_fit f;

	(void)state;
	bw_sweep(&m, 0, true);
	assert_int_equal(rb_model_fit(&m, NAN, &f), 0);
	assert_string_equal(f.metric, "bw_avg_gbps");
	assert_int_equal(f.sizes, 23);
	assert_float_equal(f.t_lat_us, 2.0, 1e-9);
	assert_float_equal(f.b_eff_gbps, 80.0, 1e-6);
	assert_float_equal(f.eta, 0.8, 1e-9); /* the rows' link, 100 Gb/s */
	assert_float_equal(f.n_half_bytes, 2.0 * 80e3 / 8, 1e-3);
	assert_true(f.rel_rms_residual < 1e-9);
}

static void with_noise(void **state)
{
	struct rb_model m;
	struct rb_model_fit f;
	char line[256], want[96];

	(void)state;
	bw_sweep(&m, 0.03, false);
	assert_int_equal(rb_model_fit(&m, 200, &f), 0);
	assert_float_equal(f.t_lat_us, 2.0, 0.1);
	assert_float_equal(f.b_eff_gbps, 80.0, 3.0);
	assert_float_equal(f.eta, f.b_eff_gbps / 200, 1e-12); /* no link column: the port's */
	assert_true(f.rel_rms_residual > 0.005 && f.rel_rms_residual < 0.03);
	/* The residual is the root of the mean over the n sizes, from the fitted line itself. */
	{
		double sq = 0, beta = 8.0 / (f.b_eff_gbps * 1e3);
		for (unsigned i = 0; i < m.n; i++) {
			double e = (f.t_lat_us + beta * m.size[i] - m.t_us[i]) / m.t_us[i];
			sq += e * e;
		}
		assert_float_equal(f.rel_rms_residual, sqrt(sq / m.n), 1e-9 * f.rel_rms_residual);
	}
	rb_model_text(&f, line, sizeof(line));
	snprintf(want, sizeof(want), "t_lat %.3g us, B_eff %.4g Gb/s (eta", f.t_lat_us, f.b_eff_gbps);
	assert_non_null(strstr(line, want));
	assert_non_null(strstr(line, "of the link), n_1/2"));
	assert_non_null(strstr(line, "over 23 sizes"));
}

static void latency_rows(void **state)
{
	struct rb_model m;
	struct rb_model_fit f;

	(void)state;
	rb_model_reset(&m);
	for (uint64_t n = 64; n <= 65536; n *= 4) {
		struct rb_row r = {0};
		rb_row_u64(&r, "size_bytes", NULL, n);
		rb_row_dbl(&r, "lat_p50_us", NULL, 3, 1.5 + (double)n * 8 / 25e3);
		rb_model_add(&m, &r);
	}
	assert_int_equal(rb_model_fit(&m, NAN, &f), 0);
	assert_string_equal(f.metric, "lat_p50_us");
	assert_float_equal(f.t_lat_us, 1.5, 1e-9);
	assert_float_equal(f.b_eff_gbps, 25.0, 1e-6);
	assert_true(isnan(f.eta));
}

static void too_few(void **state)
{
	struct rb_model m;
	struct rb_model_fit f;
	struct rb_row r = {0}, empty = {0};

	(void)state;
	rb_model_reset(&m);
	rb_row_u64(&r, "size_bytes", NULL, 4096);
	rb_row_dbl(&r, "bw_avg_gbps", NULL, 3, 10);
	rb_model_add(&m, &r);
	rb_model_add(&m, &empty); /* no size: not a point */
	assert_int_equal(rb_model_fit(&m, 100, &f), -EDOM);
	/* Two sizes fit any line: no evidence. */
	rb_row_u64(&empty, "size_bytes", NULL, 65536);
	rb_row_dbl(&empty, "bw_avg_gbps", NULL, 3, 20);
	rb_model_add(&m, &empty);
	assert_int_equal(m.n, 2);
	assert_int_equal(rb_model_fit(&m, 100, &f), -EDOM);
	/* Flat in size (no positive slope): no bandwidth to speak of. */
	rb_model_reset(&m);
	for (uint64_t n = 64; n <= 4096; n *= 4) {
		struct rb_row l = {0};
		rb_row_u64(&l, "size_bytes", NULL, n);
		rb_row_dbl(&l, "lat_p50_us", NULL, 3, 5.0);
		rb_model_add(&m, &l);
	}
	assert_int_equal(rb_model_fit(&m, 100, &f), -EDOM);
}

/* Bandwidth that falls as messages grow (rxe past its queue): a negative intercept, said, not a model. */
static void time_per_byte_grows(void **state)
{
	struct rb_model m;
	struct rb_model_fit f;
	const double gbps[] = {0.25, 0.2, 0.12};

	(void)state;
	rb_model_reset(&m);
	for (unsigned i = 0; i < 3; i++) {
		struct rb_row r = {0};
		rb_row_u64(&r, "size_bytes", NULL, 65536u << (2 * i));
		rb_row_dbl(&r, "bw_avg_gbps", NULL, 3, gbps[i]);
		rb_model_add(&m, &r);
	}
	assert_int_equal(rb_model_fit(&m, 10, &f), -ERANGE);
	assert_true(f.t_lat_us < 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(exact),   cmocka_unit_test(with_noise),          cmocka_unit_test(latency_rows),
	    cmocka_unit_test(too_few), cmocka_unit_test(time_per_byte_grows),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

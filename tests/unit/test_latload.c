/* SPDX-License-Identifier: BSD-2-Clause */
/* rc_write_lat's --load SIZE[xQPS] (load.h): what is taken, what is refused, the window per size. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "load.h"

#include <errno.h>

static void parse_ok(void **state)
{
	struct lat_load_spec s = {0};

	(void)state;
	assert_int_equal(lat_load_parse("1M", &s), 0);
	assert_int_equal(s.size, 1u << 20);
	assert_int_equal(s.qps, 1); /* QPS left out: one */
	assert_int_equal(lat_load_parse("64Kx3", &s), 0);
	assert_int_equal(s.size, 64u << 10);
	assert_int_equal(s.qps, 3);
	assert_int_equal(lat_load_parse("1X64", &s), 0);
	assert_int_equal(s.size, 1);
	assert_int_equal(s.qps, LAT_LOAD_MAX_QPS);
	assert_int_equal(lat_load_parse("1G", &s), 0);
	assert_int_equal(s.size, LAT_LOAD_MAX_SIZE);
}

static void parse_refused(void **state)
{
	static const char *const bad[] = {"",
	                                  "x",
	                                  "x2",
	                                  "1Mx",
	                                  "M",
	                                  "1Mx2x3",
	                                  "1M x2",
	                                  "-1",
	                                  "1Mx-1",
	                                  "1.5M",
	                                  "1Mx2 ",
	                                  "0x10",
	                                  "123456789012345678901234567890123"};
	static const char *const range[] = {"0", "1Mx0", "1Mx65", "2G", "1025M", "0x1"};
	struct lat_load_spec s = {.size = 7, .qps = 7};

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int ret = lat_load_parse(bad[i], &s);
		if (ret == 0)
			fail_msg("'%s' was taken", bad[i]);
	}
	for (size_t i = 0; i < sizeof(range) / sizeof(range[0]); i++)
		if (lat_load_parse(range[i], &s) != -ERANGE)
			fail_msg("'%s' is not out of range", range[i]);
	/* A refused value leaves the spec alone. */
	assert_int_equal(s.size, 7);
	assert_int_equal(s.qps, 7);
}

static void window(void **state)
{
	(void)state;
	assert_int_equal(lat_load_window(1, 1), 128);
	assert_int_equal(lat_load_window(4096, 1), 128);
	assert_int_equal(lat_load_window(64 << 10, 1), 64);
	assert_int_equal(lat_load_window(1 << 20, 1), 4);
	assert_int_equal(lat_load_window(4 << 20, 1), 2);
	assert_int_equal(lat_load_window(LAT_LOAD_MAX_SIZE, 1), 2);
	/* 4 MiB over all QPs: each queue (and its memory) as deep as its share. */
	assert_int_equal(lat_load_window(64 << 10, 2), 32);
	assert_int_equal(lat_load_window(64 << 10, 64), 2);
	assert_int_equal(lat_load_window(4096, 64), 16);
	assert_int_equal(lat_load_window(LAT_LOAD_MAX_SIZE, LAT_LOAD_MAX_QPS), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(parse_ok),
	    cmocka_unit_test(parse_refused),
	    cmocka_unit_test(window),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

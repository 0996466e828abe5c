/* SPDX-License-Identifier: BSD-2-Clause */
/* HCA filters (NCCL_IB_HCA syntax) and RoCE GID auto-selection on made-up tables. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "verbs/gid.h"
#include "host/hca.h"
#include "verbs/qp.h"

#include <arpa/inet.h>
#include <math.h>
#include <string.h>

static void hca_filters(void **state)
{
	struct rb_hca_filter f;
	(void)state;
	assert_int_equal(rb_hca_filter_parse(NULL, &f), 0);
	assert_true(rb_hca_filter_match(&f, "anything", 1));

	assert_int_equal(rb_hca_filter_parse("mlx5_1", &f), 0);
	assert_true(rb_hca_filter_match(&f, "mlx5_1", 1));
	assert_true(rb_hca_filter_match(&f, "mlx5_10", 1)); /* prefix, as NCCL */
	assert_false(rb_hca_filter_match(&f, "mlx5_2", 1));

	assert_int_equal(rb_hca_filter_parse("=mlx5_1", &f), 0);
	assert_false(rb_hca_filter_match(&f, "mlx5_10", 1));
	assert_true(rb_hca_filter_match(&f, "mlx5_1", 2));

	assert_int_equal(rb_hca_filter_parse("mlx5_0:1,mlx5_3", &f), 0);
	assert_int_equal(f.n, 2);
	assert_true(rb_hca_filter_match(&f, "mlx5_0", 1));
	assert_false(rb_hca_filter_match(&f, "mlx5_0", 2));
	assert_true(rb_hca_filter_match(&f, "mlx5_3", 2));

	assert_int_equal(rb_hca_filter_parse("^=mlx5_3", &f), 0);
	assert_true(f.exclude && f.exact);
	assert_false(rb_hca_filter_match(&f, "mlx5_3", 1));
	assert_true(rb_hca_filter_match(&f, "mlx5_30", 1));
	assert_true(rb_hca_filter_match(&f, "mlx5_0", 1));

	assert_int_not_equal(rb_hca_filter_parse("mlx5_0,", &f), 0);
	assert_int_not_equal(rb_hca_filter_parse("mlx5_0:0", &f), 0);
	assert_int_not_equal(rb_hca_filter_parse("mlx5_0:x", &f), 0);
	assert_int_not_equal(rb_hca_filter_parse(":1", &f), 0);
}

static struct rb_gid mk(int index, enum rb_gid_type t, const char *addr)
{
	struct rb_gid g = {.index = index, .type = t};
	if (strchr(addr, ':')) {
		inet_pton(AF_INET6, addr, g.raw);
	} else {
		g.raw[10] = g.raw[11] = 0xff;
		inet_pton(AF_INET, addr, g.raw + 12);
	}
	return g;
}

static void gid_select(void **state)
{
	struct rb_addr_range r;
	/* A typical mlx5 RoCE table: link-local v1/v2, then IPv4 v1/v2, then a global v6. */
	struct rb_gid t[] = {
	    mk(0, RB_GID_ROCE_V1, "fe80::1"),  mk(1, RB_GID_ROCE_V2, "fe80::1"),
	    mk(2, RB_GID_ROCE_V1, "10.1.2.3"), mk(3, RB_GID_ROCE_V2, "10.1.2.3"),
	    mk(4, RB_GID_ROCE_V2, "fd00::5"),  mk(5, RB_GID_ROCE_V2, "192.168.7.9"),
	};
	struct rb_gid zero = {.index = 0, .type = RB_GID_ROCE_V2};
	struct rb_gid only_ll[] = {mk(0, RB_GID_ROCE_V2, "fe80::abcd"), zero};
	(void)state;
	assert_int_equal(rb_gid_select(t, 6, NULL), 3); /* IPv4 + v2, lowest index */
	assert_int_equal(rb_addr_range_parse("192.168.0.0/16", &r), 0);
	assert_int_equal(rb_gid_select(t, 6, &r), 5);
	assert_int_equal(rb_addr_range_parse("fd00::/8", &r), 0);
	assert_int_equal(rb_gid_select(t, 6, &r), 4);
	assert_int_equal(rb_addr_range_parse("172.16.0.0/12", &r), 0);
	assert_int_equal(rb_gid_select(t, 6, &r), -ENOENT);
	/* Only v1 entries: v1 IPv4 beats v1 link-local. */
	assert_int_equal(rb_gid_select(t, 3, NULL), 2);
	/* rxe without an IPv4 address: the link-local v2 GID, never the zero entry. */
	only_ll[1].index = 1;
	assert_int_equal(rb_gid_select(only_ll, 2, NULL), 0);
	assert_int_equal(rb_gid_select(&zero, 1, NULL), -ENOENT);
}

static void addr_ranges(void **state)
{
	struct rb_addr_range r;
	struct rb_gid g = mk(0, RB_GID_ROCE_V2, "10.200.0.1");
	char buf[64];
	(void)state;
	assert_int_equal(rb_addr_range_parse("10.0.0.0/8", &r), 0);
	assert_true(rb_addr_range_contains(&r, g.raw));
	assert_int_equal(rb_addr_range_parse("10.0.0.0/9", &r), 0);
	assert_false(rb_addr_range_contains(&r, g.raw));
	assert_int_equal(rb_addr_range_parse("0.0.0.0/0", &r), 0);
	assert_true(rb_addr_range_contains(&r, g.raw));
	assert_int_not_equal(rb_addr_range_parse("10.0.0.0/33", &r), 0);
	assert_int_not_equal(rb_addr_range_parse("10.0.0.0", &r), 0);
	assert_int_not_equal(rb_addr_range_parse("bogus/8", &r), 0);
	assert_string_equal(rb_gid_fmt(g.raw, buf, sizeof(buf)), "10.200.0.1");
	g = mk(0, RB_GID_ROCE_V2, "fe80::1");
	assert_string_equal(rb_gid_fmt(g.raw, buf, sizeof(buf)), "fe80::1");
	assert_true(rb_gid_is_link_local(g.raw));
}

static void qp_timeout(void **state)
{
	(void)state;
	assert_true(rb_qp_timeout_seconds(0) == 0); /* infinite */
	assert_true(fabs(rb_qp_timeout_seconds(14) - 0.067108864) < 1e-9);
	assert_true(fabs(rb_qp_timeout_seconds(18) - 1.073741824) < 1e-9);
	assert_true(fabs(rb_qp_timeout_seconds(20) - 4.294967296) < 1e-9);
	assert_true(fabs(rb_qp_timeout_seconds(1) - 8.192e-6) < 1e-12);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(hca_filters),
	    cmocka_unit_test(gid_select),
	    cmocka_unit_test(addr_ranges),
	    cmocka_unit_test(qp_timeout),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* The link share: headers per packet for RoCE v2 (IPv4, IPv6), RoCE v1 and InfiniBand at several MTUs and
 * sizes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/base.h"
#include "measure/wirerate.h"

#include <math.h>

static void overheads(void **state)
{
	(void)state;
	assert_int_equal(rb_wire_packet_overhead(RB_WIRE_ROCE_V2_IPV4), 82);
	assert_int_equal(rb_wire_packet_overhead(RB_WIRE_ROCE_V2_IPV6), 102);
	assert_int_equal(rb_wire_packet_overhead(RB_WIRE_ROCE_V1), 94);
	assert_int_equal(rb_wire_packet_overhead(RB_WIRE_IB), 26);
	assert_int_equal(rb_wire_packet_overhead(RB_WIRE_IB_GRH), 66);
}

static void roce_v2(void **state)
{
	(void)state;
	/* 64 KiB at MTU 4096: 16 packets of 82 bytes of headers, one RETH. */
	assert_int_equal(rb_wire_bytes(RB_WIRE_ROCE_V2_IPV4, 65536, 4096, false), 65536 + 16 * 82 + 16);
	assert_float_equal(rb_wire_max_gbps(RB_WIRE_ROCE_V2_IPV4, 100, 65536, 4096, false),
	                   100.0 * 65536 / 66864, 1e-9);
	/* MTU 1024: four times the packets. */
	assert_int_equal(rb_wire_bytes(RB_WIRE_ROCE_V2_IPV4, 65536, 1024, false), 65536 + 64 * 82 + 16);
	/* One byte: padded to 4, one packet; immediate data adds its 4. */
	assert_int_equal(rb_wire_bytes(RB_WIRE_ROCE_V2_IPV4, 1, 4096, false), 1 + 3 + 82 + 16);
	assert_int_equal(rb_wire_bytes(RB_WIRE_ROCE_V2_IPV4, 1, 4096, true), 1 + 3 + 82 + 16 + 4);
	/* A size one byte past the MTU: a second packet. */
	assert_int_equal(rb_wire_bytes(RB_WIRE_ROCE_V2_IPV6, 4097, 4096, false), 4097 + 3 + 2 * 102 + 16);
}

static void infiniband(void **state)
{
	(void)state;
	assert_int_equal(rb_wire_bytes(RB_WIRE_IB, 4096, 4096, false), 4096 + 26 + 16);
	assert_int_equal(rb_wire_bytes(RB_WIRE_IB_GRH, 4096, 4096, false), 4096 + 66 + 16);
	assert_int_equal(rb_wire_bytes(RB_WIRE_IB, 1 << 20, 2048, false), (1 << 20) + 512 * 26 + 16);
	/* NDR 4x, 1 MiB at 4096: 97.5 % is all the wire can give. */
	assert_float_equal(rb_wire_max_gbps(RB_WIRE_IB, 400, 1 << 20, 4096, false),
	                   400.0 * (1 << 20) / ((1 << 20) + 256 * 26 + 16), 1e-9);
	assert_int_equal(rb_wire_bytes(RB_WIRE_ROCE_V1, 4096, 4096, false), 4096 + 94 + 16);
}

static void unknown(void **state)
{
	(void)state;
	assert_true(isnan(rb_wire_max_gbps(RB_WIRE_IB, 0, 4096, 4096, false)));
	assert_true(isnan(rb_wire_max_gbps(RB_WIRE_IB, NAN, 4096, 4096, false)));
	assert_true(isnan(rb_wire_max_gbps(RB_WIRE_IB, 100, 0, 4096, false)));
	assert_true(isnan(rb_wire_max_gbps(RB_WIRE_IB, 100, 4096, 0, false)));
}

static double cell(const struct rb_row *r, const char *key)
{
	const struct rb_field *f = rb_row_find(r, key);

	assert_non_null(f);
	return f->v.d;
}

static void shares(void **state)
{
	struct rb_row r = {0}, both = {0}, none = {0};

	(void)state;
	rb_wire_row(&r, 45, 50, 48, 1);
	assert_float_equal(cell(&r, "link_gbps"), 50, 0);
	assert_float_equal(cell(&r, "link_eff_pct"), 90, 1e-9);
	assert_float_equal(cell(&r, "wire_max_gbps"), 48, 0);
	assert_float_equal(cell(&r, "wire_eff_pct"), 93.75, 1e-9);
	/* Both directions summed: against two links' worth. */
	rb_wire_row(&both, 90, 50, 48, 2);
	assert_float_equal(cell(&both, "link_gbps"), 100, 0);
	assert_float_equal(cell(&both, "link_eff_pct"), 90, 1e-9);
	assert_float_equal(cell(&both, "wire_eff_pct"), 93.75, 1e-9);
	rb_wire_row(&none, 45, 0, NAN, 1);
	assert_true(isnan(cell(&none, "link_eff_pct")) && isnan(cell(&none, "wire_eff_pct")));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(overheads), cmocka_unit_test(roce_v2), cmocka_unit_test(infiniband),
	    cmocka_unit_test(unknown),   cmocka_unit_test(shares),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* Link rate: every speed code (XDR through active_speed_ex) times every width, as data rate. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "verbs/linkrate.h"

#include <string.h>

/* Per-lane data rate in Gb/s for each speed code (active_speed, active_speed_ex). */
static const struct {
	unsigned speed;
	uint32_t speed_ex;
	const char *name;
	double lane;
} speeds[] = {
    {1, 0, "SDR", 2.0},
    {2, 0, "DDR", 4.0},
    {4, 0, "QDR", 8.0},
    {8, 0, "FDR10", 10.0},
    {16, 0, "FDR", 13.636},
    {32, 0, "EDR", 25.0},
    {64, 0, "HDR", 50.0},
    {128, 0, "NDR", 100.0},
    {0, 256, "XDR", 200.0},
    /* a provider that sets both: active_speed_ex wins */
    {128, 256, "XDR", 200.0},
};

static const struct {
	unsigned code, lanes;
} widths[] = {{1, 1}, {16, 2}, {2, 4}, {4, 8}, {8, 12}};

static void every_speed_and_width(void **state)
{
	(void)state;
	for (size_t s = 0; s < sizeof(speeds) / sizeof(speeds[0]); s++) {
		assert_string_equal(rb_link_speed_name(speeds[s].speed, speeds[s].speed_ex), speeds[s].name);
		for (size_t w = 0; w < sizeof(widths) / sizeof(widths[0]); w++) {
			double got =
			    rb_link_data_gbps(speeds[s].speed, speeds[s].speed_ex, widths[w].code, false);
			assert_float_equal(got, speeds[s].lane * widths[w].lanes, 0.01 * widths[w].lanes);
		}
	}
}

/* What ibv_devinfo and NCCL print for the common ports, not the signalling rate. */
static void data_not_signalling(void **state)
{
	(void)state;
	assert_float_equal(rb_link_data_gbps(128, 0, 2, false), 400.0, 1e-9);  /* NDR 4x, not 425 */
	assert_float_equal(rb_link_data_gbps(64, 0, 2, false), 200.0, 1e-9);   /* HDR 4x, not 212.5 */
	assert_float_equal(rb_link_data_gbps(32, 0, 2, false), 100.0, 1e-9);   /* EDR 4x, not 103.125 */
	assert_float_equal(rb_link_data_gbps(0, 256, 2, false), 800.0, 1e-9);  /* XDR 4x */
	assert_float_equal(rb_link_data_gbps(16, 0, 2, false), 54.545, 0.001); /* FDR 4x, not 56.25 */
	assert_float_equal(rb_link_data_gbps(4, 0, 2, false), 32.0, 1e-9);     /* QDR 4x, not 40 */
}

static void unknown_codes(void **state)
{
	(void)state;
	assert_float_equal(rb_link_data_gbps(0, 0, 2, false), 0, 0);
	assert_float_equal(rb_link_data_gbps(3, 0, 2, false), 0, 0);
	assert_float_equal(rb_link_data_gbps(0, 512, 2, false), 0, 0); /* beyond XDR: not guessed */
	assert_float_equal(rb_link_data_gbps(128, 0, 0, false), 0, 0);
	assert_float_equal(rb_link_data_gbps(128, 0, 3, false), 0, 0);
	assert_string_equal(rb_link_speed_name(0, 0), "?");
}

/*
 * RoCE: the code stands for an Ethernet speed (mlx5: 10GbE QDR 1x, 40GbE QDR 4x, 56GbE
 * FDR 4x, 100GbE EDR 4x; rxe: 10G FDR10 1x, 20G DDR 4x), whose number is a data rate.
 */
static void ethernet_nominal(void **state)
{
	(void)state;
	assert_float_equal(rb_link_data_gbps(4, 0, 1, true), 10.0, 1e-9);    /* 10GbE, not 8 */
	assert_float_equal(rb_link_data_gbps(4, 0, 2, true), 40.0, 1e-9);    /* 40GbE, not 32 */
	assert_float_equal(rb_link_data_gbps(16, 0, 2, true), 56.0, 1e-9);   /* 56GbE, not 54.5 */
	assert_float_equal(rb_link_data_gbps(2, 0, 2, true), 20.0, 1e-9);    /* rxe 20G, not 16 */
	assert_float_equal(rb_link_data_gbps(8, 0, 1, true), 10.0, 1e-9);    /* rxe 10G */
	assert_float_equal(rb_link_data_gbps(32, 0, 2, true), 100.0, 1e-9);  /* 100GbE */
	assert_float_equal(rb_link_data_gbps(128, 0, 2, true), 400.0, 1e-9); /* 400GbE */
	assert_float_equal(rb_link_data_gbps(3, 0, 2, true), 0, 0);
}

/* The port's own fields: active_speed_ex read where this rdma-core has it. */
static void port_attr(void **state)
{
	struct ibv_port_attr pa;

	(void)state;
	memset(&pa, 0, sizeof(pa));
	pa.active_speed = 128;
	pa.active_width = 2;
	assert_float_equal(rb_port_gbps(&pa), 400.0, 1e-9);
	assert_int_equal(rb_port_speed_ex(&pa), 0);
	/* the link layer decides: QDR 4x is 32 Gb/s on InfiniBand, 40GbE on Ethernet */
	pa.active_speed = 4;
	pa.link_layer = IBV_LINK_LAYER_INFINIBAND;
	assert_float_equal(rb_port_gbps(&pa), 32.0, 1e-9);
	pa.link_layer = IBV_LINK_LAYER_ETHERNET;
	assert_float_equal(rb_port_gbps(&pa), 40.0, 1e-9);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(every_speed_and_width),
	    cmocka_unit_test(data_not_signalling),
	    cmocka_unit_test(unknown_codes),
	    cmocka_unit_test(ethernet_nominal),
	    cmocka_unit_test(port_attr),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

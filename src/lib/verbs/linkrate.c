/* SPDX-License-Identifier: BSD-2-Clause */
#include "linkrate.h"

#include "rb_config.h"

#include <stddef.h>

/*
 * Per lane on InfiniBand: SDR, DDR and QDR signal at 2.5, 5 and 10 GBd with 8b/10b
 * (80 % data); FDR10 and FDR at 10.3125 and 14.0625 GBd with 64b/66b; EDR 25.78125
 * GBd with 64b/66b; HDR, NDR and XDR are PAM4 lanes rated by the data they carry.
 *
 * On Ethernet (RoCE) the codes are not a PHY: the driver maps the Ethernet speed to
 * the nearest code by its nominal number (mlx5: 10GbE is QDR 1x, 40GbE QDR 4x, 56GbE
 * FDR 4x, 100GbE EDR 4x; rxe: 10G FDR10 1x, 20G DDR 4x), and an Ethernet speed is
 * already a data rate (64b/66b is below it). So the nominal number is the rate there,
 * as ibv_devinfo and NCCL take it: the IB data rate would call 40GbE 32 Gb/s.
 */
static const struct {
	uint32_t code;
	const char *name;
	double ib, eth;
} lanes[] = {
    {1, "SDR", 2.0, 2.5},
    {2, "DDR", 4.0, 5.0},
    {4, "QDR", 8.0, 10.0},
    {8, "FDR10", 10.0, 10.0},
    {16, "FDR", 14.0625 * 64 / 66, 14.0},
    {32, "EDR", 25.0, 25.0},
    {64, "HDR", 50.0, 50.0},
    {128, "NDR", 100.0, 100.0},
    {256, "XDR", 200.0, 200.0},
};

static int lane_of(unsigned speed, uint32_t speed_ex)
{
	uint32_t code = speed_ex ? speed_ex : speed;

	for (size_t i = 0; i < sizeof(lanes) / sizeof(lanes[0]); i++)
		if (lanes[i].code == code)
			return (int)i;
	return -1;
}

static unsigned lanes_of(unsigned width)
{
	switch (width) {
	case 1: return 1;
	case 2: return 4;
	case 4: return 8;
	case 8: return 12;
	case 16: return 2;
	default: return 0;
	}
}

double rb_link_data_gbps(unsigned speed, uint32_t speed_ex, unsigned width, bool ethernet)
{
	int i = lane_of(speed, speed_ex);

	return i < 0 ? 0 : (ethernet ? lanes[i].eth : lanes[i].ib) * lanes_of(width);
}

const char *rb_link_speed_name(unsigned speed, uint32_t speed_ex)
{
	int i = lane_of(speed, speed_ex);

	return i < 0 ? "?" : lanes[i].name;
}

uint32_t rb_port_speed_ex(const struct ibv_port_attr *pa)
{
#if RB_HAVE_PORT_SPEED_EX
	return pa->active_speed_ex;
#else
	(void)pa;
	return 0;
#endif
}

double rb_port_gbps(const struct ibv_port_attr *pa)
{
	return rb_link_data_gbps(pa->active_speed, rb_port_speed_ex(pa), pa->active_width,
	                         pa->link_layer == IBV_LINK_LAYER_ETHERNET);
}

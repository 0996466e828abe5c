/* SPDX-License-Identifier: BSD-2-Clause */
#include "wirerate.h"

#include "base/base.h"

#include <math.h>

unsigned rb_wire_packet_overhead(enum rb_wire_kind k)
{
	switch (k) {
	case RB_WIRE_IB: return 8 + 12 + 4 + 2;
	case RB_WIRE_IB_GRH: return 8 + 40 + 12 + 4 + 2;
	case RB_WIRE_ROCE_V1: return 8 + 14 + 40 + 12 + 4 + 4 + 12;
	case RB_WIRE_ROCE_V2_IPV4: return 8 + 14 + 20 + 8 + 12 + 4 + 4 + 12;
	case RB_WIRE_ROCE_V2_IPV6: return 8 + 14 + 40 + 8 + 12 + 4 + 4 + 12;
	}
	return 0;
}

const char *rb_wire_kind_name(enum rb_wire_kind k)
{
	switch (k) {
	case RB_WIRE_IB: return "InfiniBand";
	case RB_WIRE_IB_GRH: return "InfiniBand with GRH";
	case RB_WIRE_ROCE_V1: return "RoCE v1";
	case RB_WIRE_ROCE_V2_IPV4: return "RoCE v2 over IPv4";
	case RB_WIRE_ROCE_V2_IPV6: return "RoCE v2 over IPv6";
	}
	return "?";
}

uint64_t rb_wire_bytes(enum rb_wire_kind k, uint64_t size, unsigned mtu, bool imm)
{
	uint64_t packets = size ? (size + mtu - 1) / mtu : 1;
	uint64_t pad =
	    (4 - size % 4) % 4; /* the last packet's; full packets are MTU-sized, a multiple of 4 */

	return size + pad + packets * rb_wire_packet_overhead(k) + 16 + (imm ? 4 : 0);
}

double rb_wire_max_gbps(enum rb_wire_kind k, double link_gbps, uint64_t size, unsigned mtu, bool imm)
{
	if (!(link_gbps > 0) || !mtu || !size)
		return NAN;
	return link_gbps * (double)size / (double)rb_wire_bytes(k, size, mtu, imm);
}

const struct rb_col rb_wire_cols[] = {
    {"link_gbps", NULL, NULL, 1},
    {"link_eff_pct", "%link", NULL, 1},
    {"wire_max_gbps", NULL, NULL, 3},
    {"wire_eff_pct", "%wire", NULL, 1},
};

void rb_wire_row(struct rb_row *row, double bw_gbps, double link_gbps, double wire_max_gbps, unsigned links)
{
	bool known = link_gbps > 0;

	rb_row_put_dbl(row, &rb_wire_cols[0], known ? link_gbps * links : NAN);
	rb_row_put_dbl(row, &rb_wire_cols[1], known ? bw_gbps / (link_gbps * links) * 100.0 : NAN);
	rb_row_put_dbl(row, &rb_wire_cols[2], wire_max_gbps > 0 ? wire_max_gbps * links : NAN);
	rb_row_put_dbl(row, &rb_wire_cols[3],
	               wire_max_gbps > 0 ? bw_gbps / (wire_max_gbps * links) * 100.0 : NAN);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A port's link rate as the data it can carry: the per-lane data rate of its active
 * speed (after 8b/10b or 64b/66b line encoding) times its active width, in Gb/s.
 * ibv_devinfo prints the signalling rate for SDR..FDR; efficiency against the link
 * needs the data rate (NDR 4x: 400 Gb/s, not 425). On Ethernet the code stands for
 * an Ethernet speed, whose nominal number is its data rate (40GbE: QDR 4x, 40 Gb/s).
 */
#ifndef RB_LINKRATE_H
#define RB_LINKRATE_H

#include <infiniband/verbs.h>
#include <stdbool.h>
#include <stdint.h>

/*
 * speed: ibv_port_attr.active_speed (1 SDR .. 128 NDR); speed_ex: active_speed_ex
 * (256 XDR and up), which wins when non-zero; width: active_width (1 = 1x, 2 = 4x,
 * 4 = 8x, 8 = 12x, 16 = 2x); ethernet: the port's link layer is Ethernet (the
 * code's nominal rate). 0 when either code is unknown.
 */
double rb_link_data_gbps(unsigned speed, uint32_t speed_ex, unsigned width, bool ethernet);
/* "SDR" .. "XDR", or "?" for an unknown code. */
const char *rb_link_speed_name(unsigned speed, uint32_t speed_ex);
/* active_speed_ex where this rdma-core has it, else 0. */
uint32_t rb_port_speed_ex(const struct ibv_port_attr *pa);
/* rb_link_data_gbps of a queried port, by its link layer. */
double rb_port_gbps(const struct ibv_port_attr *pa);

#endif

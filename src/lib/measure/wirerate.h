/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What share of the link a bandwidth reached: of the port's rate, and of the most
 * the wire can carry for RDMA WRITE messages of one size at one path MTU, once each
 * packet's headers are counted (rdmabench-measurements(7) lists them):
 *
 *   RoCE v2/IPv4  preamble+SFD 8, Ethernet 14, IPv4 20, UDP 8, BTH 12, ICRC 4, FCS 4,
 *                 inter-frame gap 12: 82 bytes a packet (IPv6: 40 for its header, 102)
 *   RoCE v1       preamble+SFD 8, Ethernet 14, GRH 40, BTH 12, ICRC 4, FCS 4, gap 12: 94
 *   InfiniBand    LRH 8, BTH 12, ICRC 4, VCRC 2: 26 (with a GRH 66); the link's data rate
 *                 is already after 64b/66b, and delimiters and idles are not counted
 *
 * and per message a RETH (16) in its first packet, an ImmDt (4) with immediate data,
 * the payload padded to 4 bytes. Not counted: VLAN tags, ACKs (they flow the other
 * way), PFC pauses, congestion notifications.
 */
#ifndef RB_WIRERATE_H
#define RB_WIRERATE_H

#include "base/base.h"

#include <stdbool.h>
#include <stdint.h>

struct rb_row;

enum rb_wire_kind { RB_WIRE_IB, RB_WIRE_IB_GRH, RB_WIRE_ROCE_V1, RB_WIRE_ROCE_V2_IPV4, RB_WIRE_ROCE_V2_IPV6 };

/* Bytes a packet carries besides its payload. */
unsigned rb_wire_packet_overhead(enum rb_wire_kind k);
const char *rb_wire_kind_name(enum rb_wire_kind k);
/* Bytes on the link for one WRITE of size bytes (0: one empty packet) at path MTU mtu (> 0). */
uint64_t rb_wire_bytes(enum rb_wire_kind k, uint64_t size, unsigned mtu, bool imm);
/* The most payload link_gbps carries as such messages back to back; NaN when link or size is unknown. */
double rb_wire_max_gbps(enum rb_wire_kind k, double link_gbps, uint64_t size, unsigned mtu, bool imm);
/* rb_wire_row's columns, in order (NULL-terminated), for the documents' schema. */
extern const struct rb_col rb_wire_cols[4];
/*
 * A bandwidth row's link share: link_gbps, link_eff_pct, wire_max_gbps, wire_eff_pct
 * (links: how many links' worth the figure counts, 2 for both directions summed).
 * NaN cells where the link rate is unknown.
 */
void rb_wire_row(struct rb_row *row, double bw_gbps, double link_gbps, double wire_max_gbps, unsigned links);

#endif

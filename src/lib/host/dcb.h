/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A RoCE netdev's Data Center Bridging setup, from DCB netlink (RTM_GETDCB,
 * DCB_CMD_IEEE_GET): the priorities PFC keeps lossless, the trust mode (DSCP when the
 * IEEE APP table maps DSCP values to priorities, as mlnx_qos --trust dscp sets it;
 * else the VLAN tag's PCP) and that map; and where a traffic class (-T, NCCL_IB_TC)
 * lands: its DSCP (the upper six bits), that DSCP's priority, lossless or not.
 */
#ifndef RB_DCB_H
#define RB_DCB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rb_dcb {
	bool pfc_known;
	uint8_t pfc_cap, pfc_en; /* bit p: priority p is lossless (PFC on) */
	unsigned ndscp;          /* DSCP values the APP table maps, each once: trust dscp when > 0 */
	int8_t dscp_prio[64];    /* -1: that DSCP is not mapped */
};

/* ifname's setup through netlink: 0, or -errno (a driver without DCB: -EOPNOTSUPP). */
int rb_dcb_query(const char *ifname, struct rb_dcb *out);
/* One RTM_GETDCB reply, as the kernel (or a hostile peer) wrote it: 0, -EPROTO, or the error it carries. */
int rb_dcb_parse(const uint8_t *msg, size_t len, struct rb_dcb *out);
/*
 * Where traffic class tclass lands: its priority (-1 when the trust mode leaves it to
 * the VLAN tag), and in why a sentence ("traffic class 106 is DSCP 26, priority 3:
 * lossless (PFC on priorities 3)"). *lossless: whether PFC protects it.
 */
int rb_dcb_tclass(const struct rb_dcb *d, unsigned tclass, bool *lossless, char *why, size_t cap);

#endif

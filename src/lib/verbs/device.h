/* SPDX-License-Identifier: BSD-2-Clause */
/* Device and port selection, port facts, GID choice. */
#ifndef RB_DEVICE_H
#define RB_DEVICE_H

#include "gid.h"
#include "linkrate.h"
#include "base/base.h"

#include <infiniband/verbs.h>
#include <stdint.h>
#include <stdio.h>

struct rb_dev_opts {
	const char *name;      /* -d: exact device name */
	const char *hca;       /* --hca: NCCL_IB_HCA-style list (default: $NCCL_IB_HCA) */
	uint32_t port;         /* -i: 0 = first ACTIVE port */
	int gid_index;         /* -x: -1 = auto */
	const char *gid_range; /* --gid-range: NCCL_IB_ADDR_RANGE-style CIDR */
};

void rb_dev_opts_default(struct rb_dev_opts *o);

#define RB_RAIL_NAME 64
#define RB_MAX_RAILS 16
/*
 * --all-pairs: the devices a rank measures through at once (rails): -d a,b, or every
 * device with an ACTIVE port that an --hca filter (or NCCL_IB_HCA) matches. Returns
 * how many; 1 with out[0] = -d, or the first device with an ACTIVE port (the one a
 * run opens; "" when there is none) otherwise; -EINVAL (said) for a list with an
 * empty or repeated name or more than RB_MAX_RAILS.
 */
int rb_dev_rails(const struct rb_dev_opts *o, char (*out)[RB_RAIL_NAME]);
struct rb_opt_table rb_dev_opt_table(struct rb_dev_opts *o);

struct rb_device {
	struct ibv_context *ctx;
	struct ibv_device_attr attr;
	struct ibv_port_attr port_attr;
	char name[64];
	uint8_t port;
	bool roce;     /* link layer Ethernet: addressing needs a GRH */
	int numa_node; /* -1 when the kernel does not know */
	struct rb_gid gid;
	bool gid_auto;
};

/*
 * Opens the first device/port that matches the options and is ACTIVE, and picks its
 * GID. Errors name what was asked for and what exists: -ENODEV / -EINVAL for
 * selection errors (exit 2), -ENETDOWN when the port is not ACTIVE (exit 1).
 */
int rb_device_open(const struct rb_dev_opts *o, struct rb_device *d);
void rb_device_close(struct rb_device *d);

/* Header lines: device, port, link layer, speed, MTU, NUMA, GID. */
void rb_device_describe(const struct rb_device *d, FILE *f);
const char *rb_link_layer_name(const struct rb_device *d);
/* 256..4096 for an ibv_mtu, 0 for a bad code. */
unsigned rb_mtu_bytes(enum ibv_mtu m);
int rb_mtu_from_bytes(unsigned bytes, enum ibv_mtu *m);

#endif

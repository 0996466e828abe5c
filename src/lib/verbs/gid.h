/* SPDX-License-Identifier: BSD-2-Clause */
/* GID table entries and the RoCE GID auto-selection rule, as pure functions. */
#ifndef RB_GID_H
#define RB_GID_H

#include <stdbool.h>
#include <stdint.h>

enum rb_gid_type { RB_GID_IB, RB_GID_ROCE_V1, RB_GID_ROCE_V2 };

struct rb_gid {
	int index;
	enum rb_gid_type type;
	uint8_t raw[16];
};

struct rb_addr_range {
	bool set;
	int family; /* 4 or 6 */
	uint8_t addr[16];
	unsigned prefix;
};

const char *rb_gid_type_name(enum rb_gid_type t);
bool rb_gid_is_zero(const uint8_t raw[16]);
bool rb_gid_is_ipv4(const uint8_t raw[16]); /* ::ffff:a.b.c.d */
bool rb_gid_is_link_local(const uint8_t raw[16]);
/* fe80::1 or 10.0.0.1 (for IPv4-mapped GIDs); buf >= 46 bytes. */
const char *rb_gid_fmt(const uint8_t raw[16], char *buf, unsigned len);

/* "10.0.0.0/8", "fd00::/8" (NCCL_IB_ADDR_RANGE). Returns 0 or -EINVAL. */
int rb_addr_range_parse(const char *s, struct rb_addr_range *r);
bool rb_addr_range_contains(const struct rb_addr_range *r, const uint8_t raw[16]);

/*
 * Picks the GID for a RoCE port, as NCCL does: among non-zero entries inside the
 * optional range, prefer IPv4-mapped, then RoCE v2, then not link-local; lowest
 * index wins a tie. Returns the table position, or -ENOENT.
 */
int rb_gid_select(const struct rb_gid *t, unsigned n, const struct rb_addr_range *range);

#endif

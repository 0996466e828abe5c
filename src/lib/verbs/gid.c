/* SPDX-License-Identifier: BSD-2-Clause */
#include "gid.h"

#include "base/base.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

const char *rb_gid_type_name(enum rb_gid_type t)
{
	switch (t) {
	case RB_GID_IB: return "IB";
	case RB_GID_ROCE_V1: return "RoCE v1";
	case RB_GID_ROCE_V2: return "RoCE v2";
	}
	return "?";
}

bool rb_gid_is_zero(const uint8_t raw[16])
{
	for (int i = 0; i < 16; i++)
		if (raw[i])
			return false;
	return true;
}

bool rb_gid_is_ipv4(const uint8_t raw[16])
{
	static const uint8_t prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
	return !memcmp(raw, prefix, sizeof(prefix));
}

bool rb_gid_is_link_local(const uint8_t raw[16])
{
	return raw[0] == 0xfe && (raw[1] & 0xc0) == 0x80;
}

const char *rb_gid_fmt(const uint8_t raw[16], char *buf, unsigned len)
{
	if (rb_gid_is_ipv4(raw))
		inet_ntop(AF_INET, raw + 12, buf, len);
	else
		inet_ntop(AF_INET6, raw, buf, len);
	return buf;
}

int rb_addr_range_parse(const char *s, struct rb_addr_range *r)
{
	char addr[64];
	const char *slash = s ? strchr(s, '/') : NULL;
	uint64_t prefix;

	memset(r, 0, sizeof(*r));
	if (!slash || (size_t)(slash - s) >= sizeof(addr))
		return -EINVAL;
	memcpy(addr, s, (size_t)(slash - s));
	addr[slash - s] = '\0';
	if (inet_pton(AF_INET, addr, r->addr + 12) == 1) {
		r->family = 4;
		r->addr[10] = r->addr[11] = 0xff; /* compare as IPv4-mapped */
		if (rb_parse_u64_range(slash + 1, 0, 32, &prefix))
			return -EINVAL;
		r->prefix = 96 + (unsigned)prefix;
	} else if (inet_pton(AF_INET6, addr, r->addr) == 1) {
		r->family = 6;
		if (rb_parse_u64_range(slash + 1, 0, 128, &prefix))
			return -EINVAL;
		r->prefix = (unsigned)prefix;
	} else {
		return -EINVAL;
	}
	r->set = true;
	return 0;
}

bool rb_addr_range_contains(const struct rb_addr_range *r, const uint8_t raw[16])
{
	unsigned bits = r->prefix;

	if (!r->set)
		return true;
	if (r->family == 4 && !rb_gid_is_ipv4(raw))
		return false;
	for (unsigned i = 0; i < 16 && bits; i++) {
		unsigned take = bits >= 8 ? 8 : bits;
		uint8_t mask = (uint8_t)(0xff00 >> take);
		if ((raw[i] & mask) != (r->addr[i] & mask))
			return false;
		bits -= take;
	}
	return true;
}

int rb_gid_select(const struct rb_gid *t, unsigned n, const struct rb_addr_range *range)
{
	int best = -ENOENT, best_score = -1;

	for (unsigned i = 0; i < n; i++) {
		int score;
		if (rb_gid_is_zero(t[i].raw) || (range && !rb_addr_range_contains(range, t[i].raw)))
			continue;
		score = (rb_gid_is_ipv4(t[i].raw) ? 4 : 0) + (t[i].type == RB_GID_ROCE_V2 ? 2 : 0) +
		        (rb_gid_is_link_local(t[i].raw) ? 0 : 1);
		if (score > best_score || (score == best_score && t[i].index < t[best].index)) {
			best = (int)i;
			best_score = score;
		}
	}
	return best;
}

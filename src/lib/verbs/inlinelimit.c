/* SPDX-License-Identifier: BSD-2-Clause */
#include "inlinelimit.h"

#include <stdio.h>

/* The largest v in [lo, hi) that probe takes, given that it takes lo and refuses hi. */
static uint32_t largest(rb_qp_probe_fn probe, void *ctx, bool depth, uint32_t fixed, uint32_t lo, uint32_t hi)
{
	while (lo + 1 < hi) {
		uint32_t mid = lo + (hi - lo) / 2;

		if (depth ? probe(ctx, mid, fixed) : probe(ctx, fixed, mid))
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

void rb_inline_limit_find(rb_qp_probe_fn probe, void *ctx, uint32_t send_wr, uint32_t inline_bytes,
                          struct rb_inline_limit *out)
{
	out->max_inline = largest(probe, ctx, false, send_wr, 0, inline_bytes);
	out->max_depth = 0;
	if (send_wr > 1 && probe(ctx, 1, inline_bytes))
		out->max_depth = largest(probe, ctx, true, inline_bytes, 1, send_wr);
}

const char *rb_inline_limit_fmt(const struct rb_inline_limit *l, uint32_t send_wr, uint32_t inline_bytes,
                                char *buf, size_t len)
{
	if (l->max_depth)
		snprintf(
		    buf, len,
		    "inline size %u exceeds the device limit of %u bytes at send queue depth %u: the send "
		    "WQE grows with inline data, so the limit depends on the depth (-t) too: -I %u works "
		    "up to a depth of %u, -I %u at depth %u",
		    inline_bytes, l->max_inline, send_wr, inline_bytes, l->max_depth, l->max_inline, send_wr);
	else
		snprintf(
		    buf, len,
		    "inline size %u exceeds the device limit of %u bytes (-I) at send queue depth %u, and "
		    "no smaller depth (-t) takes it",
		    inline_bytes, l->max_inline, send_wr);
	return buf;
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Why a QP with inline data was refused. Some providers (mlx5) size the send WQE by
 * the inline data, and the send queue's bytes by WQE size times depth: near the
 * maximum depth a smaller inline size fits, and at a smaller depth the asked one
 * does. The search is over a probe (can a QP with this depth and inline size be
 * created?), so the rule is tested without a device.
 */
#ifndef RB_INLINELIMIT_H
#define RB_INLINELIMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef bool (*rb_qp_probe_fn)(void *ctx, uint32_t send_wr, uint32_t inline_bytes);

struct rb_inline_limit {
	uint32_t max_inline; /* the most inline bytes at the asked depth */
	uint32_t max_depth;  /* the deepest send queue that takes the asked inline size; 0: none */
};

/* Both limits around (send_wr, inline_bytes), which probe refuses and (send_wr, 0) it takes. */
void rb_inline_limit_find(rb_qp_probe_fn probe, void *ctx, uint32_t send_wr, uint32_t inline_bytes,
                          struct rb_inline_limit *out);
/* The one-line error naming -I, the depth and whichever limit moves. */
const char *rb_inline_limit_fmt(const struct rb_inline_limit *l, uint32_t send_wr, uint32_t inline_bytes,
                                char *buf, size_t len);

#endif

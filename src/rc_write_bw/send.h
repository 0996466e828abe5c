/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The engine's send side (send.c): one post of WRITEs, one poll of send completions.
 * No loop: core.c's send loop and clock.c's housekeeping call these.
 */
#ifndef RB_RC_WRITE_BW_SEND_H
#define RB_RC_WRITE_BW_SEND_H

#include "verbs/verbs.h"
#include "measure/measure.h"

#include <stdbool.h>
#include <stddef.h>

struct bw_engine;

/*
 * Posting: through ibv_wr_* (the extended QP interface: each WRITE built straight
 * into the send queue, no WR list for the provider to walk) on QPs created with these
 * operations, with ibv_post_send where the provider made a plain QP or
 * --old-post-send asks for it.
 */
#define BW_SEND_OPS(imm) (IBV_QP_EX_WITH_RDMA_WRITE | ((imm) ? IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM : 0))
/* What the header says of it: the interface this side's QPs post through, and why (buf: room). */
const char *bw_post_api(const struct rb_conn *c, bool old_post, char *buf, size_t len);
/* Meta's post_api: ibv_wr, ibv_post_send or mixed. */
const char *bw_post_api_key(const struct rb_conn *c);

struct bw_poster;

/* The step's WR chains (every poster's): what every message of the step shares (opcode, SGE length, inline
 * flag). */
void bw_build_wrs(struct bw_engine *e);
/* The planner's next post for QP qi; RB_TEST_FAULT=stall cuts it before message N for good. */
struct rb_sendq_plan bw_next_plan(struct bw_engine *e, unsigned qi);
/* One post of p->n WRITEs on QP qi, one of pt's; 0 or -errno. */
int bw_post_writes(struct bw_poster *pt, unsigned qi, const struct rb_sendq_plan *p);
/* Consumes pt's send completions; returns how many, or -errno. */
int bw_poll_sends(struct bw_poster *pt);

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/* Completion polling: batched ibv_poll_cq and the first error, described in full. */
#ifndef RB_CQ_H
#define RB_CQ_H

#include <infiniband/verbs.h>
#include <stddef.h>

#define RB_CQ_BATCH 16

/* "RDMA_WRITE", "RECV_RDMA_WITH_IMM", ... */
const char *rb_wc_opcode_name(enum ibv_wc_opcode op);

/*
 * "completion error: remote access error (IBV_WC_REM_ACCESS_ERR, status 10),
 * vendor error 0x..., QPN 0x..., opcode RDMA_WRITE, wr_id ..."
 * The verbs spec leaves wc->opcode undefined on error, so the caller names the
 * operation it posted on that CQ (posted_op); NULL trusts wc->opcode.
 */
void rb_wc_describe(const struct ibv_wc *wc, const char *posted_op, char *buf, size_t len);
/* What a status means on an RC QP and what to check next (after the description's ": "); "" for success. */
const char *rb_wc_explain(enum ibv_wc_status s);

/*
 * Polls up to n completions into wc. Returns how many arrived (0..n), or -EIO
 * after logging the first error completion (its description also lands in err).
 */
int rb_cq_poll(struct ibv_cq *cq, struct ibv_wc *wc, int n, const char *posted_op, char *err, size_t errlen);

#endif

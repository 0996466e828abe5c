/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * --reg-per-iter: the source buffer registered and deregistered around every
 * iteration instead of once, as an application without an MR cache does (NCCL
 * keeps one because this is slow, for GPU memory above all). An iteration is one
 * send queue's worth of messages (-t) on every QP: the buffer is registered, the
 * messages posted, every one of them completed, the MR deregistered. The step's
 * bandwidth includes that time; each registration and deregistration is timed.
 */
#include "core.h"
#include "reg.h"
#include "state.h"

#include "measure/measure.h"
#include "base/base.h"

#include <errno.h>

/* Replaces the source MR with a fresh one; both calls timed. */
static int reregister(struct bw_engine *e)
{
	struct rb_conn *c = e->c;
	double dereg_us = rb_mr_dereg_timed(&c->src_mr);
	int ret = rb_mr_reg_again(c->pd, &c->src, c->src_access, &c->src_mr);

	rb_hist_add(&e->dereg_ns, (uint64_t)(dereg_us * 1e3));
	if (ret) {
		rb_err("--reg-per-iter: registration %llu of the source buffer failed after %llu messages",
		       (unsigned long long)e->reg_ns.n + 1, (unsigned long long)e->posted_msgs);
		return ret;
	}
	rb_hist_add(&e->reg_ns, (uint64_t)(c->src_mr.reg_us * 1e3));
	return 0;
}

int bw_run_reg_per_iter(struct bw_engine *e, struct bw_result *res)
{
	uint64_t total = e->cfg.duration_s > 0 || e->cfg.forever ? UINT64_MAX : e->cfg.iters;
	bool more = true;
	int ret;

	rb_hist_reset(&e->reg_ns);
	rb_hist_reset(&e->dereg_ns);
	bw_start_sending(e);
	while (more && !e->stopping) {
		if ((ret = reregister(e)) != 0)
			return ret;
		more = false;
		for (unsigned i = 0; i < e->c->nqps; i++) {
			struct rb_sendq *sq = &e->q[i].sq;
			uint64_t end = sq->posted + e->cfg.tx_depth;

			sq->target = end < total ? end : total;
			more |= sq->target < total;
		}
		if ((ret = bw_send_until_targets(e)) != 0)
			return ret;
	}
	bw_own_result(e, res);
	rb_hist_summary(&e->reg_ns, &res->reg);
	rb_hist_summary(&e->dereg_ns, &res->dereg);
	return 0;
}

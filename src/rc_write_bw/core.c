/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What every kind of step shares on the sending side (the plain one, --reg-per-iter's
 * and --verify's): the clock of its sends started, the send loop up to each QP's
 * target, and this side's own result.
 */
#include "clock.h"
#include "core.h"
#include "recv.h"
#include "send.h"
#include "state.h"

#include "base/base.h"

#include <math.h>

/* The peak's first grid step and shortest window (stats.h). */
#define PEAK_GRID_NS 1000000ull

/* Posts and polls until every QP has completed up to its target. */
int bw_send_until_targets(struct bw_engine *e)
{
	int ret = 0;

	e->last_progress = rb_now_ns();
	e->sending = true;
	for (;;) {
		bool active = false;

		for (unsigned qi = 0; qi < e->c->nqps && !ret; qi++) {
			struct rb_sendq *sq = &e->q[qi].sq;
			struct rb_sendq_plan p;

			while (!ret && (p = bw_next_plan(e, qi)).n) {
				ret = bw_post_writes(&e->solo, qi, &p);
				rb_pace_posted(&e->pace, p.n);
				if (!ret)
					ret = bw_tick(e);
			}
			active |= !rb_sendq_done(sq);
		}
		if (ret || !active)
			break;
		ret = bw_poll_sends(&e->solo);
		if (ret >= 0)
			ret = bw_service_recv(e);
		if (ret >= 0)
			ret = bw_tick(e);
		if (ret)
			break;
	}
	e->sending = false;
	return ret;
}

void bw_inflight_limit(struct bw_engine *e, uint64_t now)
{
	uint64_t budget = (uint64_t)BW_INFLIGHT_FIRST_MIB << 20, per_qp;

	if (!(e->cfg.duration_s > 0) || e->workers)
		return;
	if (e->done_msgs && now > e->t_first) {
		double rate =
		    (double)e->done_msgs * (double)e->size / (double)(now - e->t_first); /* bytes/ns */
		double b = rate * (double)BW_INFLIGHT_NS;

		budget = b < 1e18 ? (uint64_t)b : (uint64_t)1e18;
	}
	per_qp = budget / e->size / e->c->nqps;
	per_qp = per_qp ? per_qp : 1;
	for (unsigned i = 0; i < e->c->nqps; i++)
		e->q[i].sq.limit = per_qp < e->q[i].sq.depth ? (uint32_t)per_qp : 0;
}

void bw_start_sending(struct bw_engine *e)
{
	e->t_first = e->b->t0; /* --interval's stretches and the row share the engine's clock */
	e->t_last = e->t_first;
	e->t_stop = e->t_first + (uint64_t)(e->cfg.duration_s * 1e9);
	rb_rate_init(&e->rate, e->t_first, PEAK_GRID_NS);
	bw_inflight_limit(e, e->t_first);
	rb_pace_start(&e->pace, &e->cfg.pace, e->size, e->t_first);
}

/* This side's DONE: what it sent, measured on its own clock. */
void bw_own_result(struct bw_engine *e, struct bw_result *res)
{
	res->own.msgs = e->done_msgs;
	res->own.bytes = e->done_msgs * e->size;
	res->own.elapsed_ns = e->t_last - e->t_first;
	res->own.peak_gbps = e->cfg.no_peak ? NAN : rb_rate_peak_gbps(&e->rate, e->t_last, res->own.bytes);
}

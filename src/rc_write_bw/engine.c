/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The engine's face: one step from start to DONE, dispatched to its kind (plain
 * here, --reg-per-iter in reg.c, --verify in verify.c), the per-size choices (CQ
 * moderation, post list), and the engine's life.
 */
#include "clock.h"
#include "core.h"
#include "engine.h"
#include "peer.h"
#include "recv.h"
#include "reg.h"
#include "send.h"
#include "state.h"
#include "threads.h"
#include "verify.h"

#include "measure/measure.h"
#include "base/base.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/*
 * At most this many bytes between two signaled WRs. Without it, 100 x 8 MiB
 * unsignaled writes on a slow link show no completion for many seconds, and a
 * stall bound could not tell that from a dead peer.
 */
#define SIGNAL_BYTES (64ull << 20)
/* The heartbeat's period at most: a quarter of --timeout when that is shorter. */
#define BEAT_NS RB_NS_PER_S

static int run_plain(struct bw_engine *e, struct bw_result *res)
{
	if (e->cfg.sending) {
		int ret;
		bw_start_sending(e);
		for (unsigned i = 0; i < e->c->nqps; i++)
			e->q[i].sq.target =
			    e->cfg.duration_s > 0 || e->cfg.forever ? UINT64_MAX : e->cfg.iters;
		ret = e->workers ? bw_workers_send(e) : bw_send_until_targets(e);
		if (ret)
			return ret;
		bw_own_result(e, res);
	}
	return bw_exchange_done(e, res);
}

uint32_t bw_sig_every(uint32_t cq_mod, uint64_t size)
{
	if (size * cq_mod > SIGNAL_BYTES)
		return size >= SIGNAL_BYTES ? 1 : (uint32_t)(SIGNAL_BYTES / size);
	return cq_mod;
}

uint32_t bw_sq_depth(uint32_t tx_depth, uint64_t iters)
{
	return iters && iters < tx_depth ? (uint32_t)iters : tx_depth;
}

uint32_t bw_post_list(uint32_t post_list, uint32_t tx_depth, uint64_t size)
{
	if (post_list)
		return post_list;
	if (size > BW_AUTO_LIST_BYTES)
		return 1;
	return tx_depth < BW_AUTO_LIST ? tx_depth : BW_AUTO_LIST;
}

int bw_engine_step(struct bw_engine *e, uint64_t size, struct bw_result *res)
{
	uint64_t cpu0, wall0, wall;
	int ret;

	memset(res, 0, sizeof(*res));
	res->own.cpu_pct = NAN; /* the step's CPU is reported where it is measured, never sent */
	res->own.peak_gbps = e->cfg.no_peak ? NAN : 0;
	e->size = size;
	bw_build_wrs(e);
	e->sig_every = bw_sig_every(e->cfg.cq_mod, size);
	res->cq_mod = e->sig_every;
	res->post_list = bw_post_list(e->cfg.post_list, e->cfg.tx_depth, size);
	e->done_msgs = e->posted_msgs = 0;
	e->stopping = false;
	e->have_done = e->have_window = e->have_verdict = false;
	for (unsigned i = 0; i < e->c->nqps; i++) {
		rb_sendq_init(&e->q[i].sq, e->cfg.tx_depth, res->post_list, e->sig_every);
		e->q[i].stalled = false;
		e->q[i].step_rgot = 0;
	}
	bw_clock_start(e);
	cpu0 = rb_cpu_ns();
	wall0 = rb_now_ns();
	e->t_step = wall0;
	if (e->cfg.verify)
		ret = bw_run_verified(e, res);
	else if (e->cfg.reg_per_iter && e->cfg.sending)
		ret = bw_run_reg_per_iter(e, res);
	else
		ret = run_plain(e, res);
	if (ret)
		return ret;
	if (e->cfg.sending) /* every kind of step: how many threads posted it, and each one's share */
		bw_workers_result(e, res);
	wall = rb_now_ns() - wall0;
	res->cpu_pct = wall ? 100.0 * (double)(rb_cpu_ns() - cpu0) / (double)wall : 0;
	res->msgs = res->own.msgs + res->peer.msgs;
	res->bytes = res->own.bytes + res->peer.bytes;
	res->elapsed_ns =
	    res->own.elapsed_ns > res->peer.elapsed_ns ? res->own.elapsed_ns : res->peer.elapsed_ns;
	/* Two directions: each one's peak, summed (each is bounded by its direction's link). */
	res->peak_gbps = res->own.peak_gbps + res->peer.peak_gbps; /* NaN with -N */
	if (res->peak_gbps == 0)
		res->peak_gbps = NAN;
	return 0;
}

bool bw_engine_partial(const struct bw_engine *e, struct bw_result *res)
{
	memset(res, 0, sizeof(*res));
	/* t_first is the last step's until this one's sends start. */
	if (!e->cfg.sending || e->t_first < e->t_step || !e->done_msgs || e->t_last <= e->t_first)
		return false;
	res->own.msgs = res->msgs = e->done_msgs;
	res->own.bytes = res->bytes = e->done_msgs * e->size;
	res->own.elapsed_ns = res->elapsed_ns = e->t_last - e->t_first;
	res->own.peak_gbps = res->peak_gbps = NAN;
	res->own.cpu_pct = res->cpu_pct = NAN;
	res->cq_mod = e->sig_every;
	res->post_list = bw_post_list(e->cfg.post_list, e->cfg.tx_depth, e->size);
	bw_workers_result(e, res);
	return true;
}

struct bw_engine *bw_engine_new(struct rb_conn *c, struct rb_oob *o, const struct bw_cfg *cfg)
{
	struct bw_engine *e = calloc(1, sizeof(*e));

	if (e)
		e->q = calloc(c->nqps, sizeof(*e->q));
	if (!e || !e->q) {
		rb_err("out of memory for %u QPs", c->nqps);
		free(e);
		return NULL;
	}
	e->c = c;
	e->o = o;
	e->cfg = *cfg;
	e->fault = cfg->sending ? rb_fault_kind() : RB_FAULT_NONE;
	e->beat_ns = cfg->timeout_s * RB_NS_PER_S / 4 < BEAT_NS ? cfg->timeout_s * RB_NS_PER_S / 4 : BEAT_NS;
	e->solo = (struct bw_poster){.e = e, .first = 0, .end = c->nqps, .cq = c->scq};
	if ((cfg->reg_per_iter && (rb_hist_init(&e->reg_ns) || rb_hist_init(&e->dereg_ns))) ||
	    (cfg->receiving && cfg->imm && bw_recv_init(e)) ||
	    (cfg->sending && cfg->threads > 1 && bw_workers_start(e, cfg->threads))) {
		bw_engine_free(e);
		return NULL;
	}
	return e;
}

bool bw_engine_abandoned(const struct bw_engine *e)
{
	return e && bw_workers_abandoned(e);
}

void bw_engine_free(struct bw_engine *e)
{
	if (bw_engine_abandoned(e))
		return; /* a live thread may still read it */
	if (e) {
		bw_workers_end(e);
		free(e->q);
		rb_hist_free(&e->reg_ns);
		rb_hist_free(&e->dereg_ns);
	}
	free(e);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The engine's face: one step on the library's bandwidth engine (run/bwstep.h, which
 * owns the step's clock, the peer's frames, -D's deadline, --interval, the heartbeat
 * and DONE both ways), with this side's part dispatched to its kind (plain here,
 * --reg-per-iter in reg.c, --verify in verify.c) as the engine's transport ops; the
 * per-size choices (CQ moderation, post list), and the engine's life.
 */
#include "clock.h"
#include "core.h"
#include "engine.h"
#include "frames.h"
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
	return 0;
}

/*
 * The transport ops. A turn runs this side's whole part (its own loops keep their
 * clock and call the engine's part every 10 ms, clock.c); after it, a turn keeps the
 * receives flowing until the peer's DONE is in.
 */
static int op_start(void *t, struct rb_bw *b)
{
	((struct bw_engine *)t)->b = b;
	return 0;
}

static int op_turn(void *t)
{
	struct bw_engine *e = t;
	int ret;

	if (e->part_done) { /* receives flowing, async events seen (housekeeping) */
		ret = bw_service_recv(e);
		if (ret >= 0)
			ret = bw_tick(e);
		return ret < 0 ? ret : 0;
	}
	if (e->cfg.verify)
		ret = bw_run_verified(e, e->res);
	else if (e->cfg.reg_per_iter && e->cfg.sending)
		ret = bw_run_reg_per_iter(e, e->res);
	else
		ret = run_plain(e, e->res);
	e->part_done = !ret;
	return ret ? ret : 1;
}

static uint64_t op_moved(void *t)
{
	const struct bw_engine *e = t;

	return e->done_msgs * e->size;
}

static int op_frame(void *t, const struct rb_frame *f)
{
	return bw_take_frame(t, f);
}

/* --verify's windows end together on both sides: a DONE amid them is the peer's error. */
static int op_peer_done(void *t)
{
	struct bw_engine *e = t;

	if (!e->cfg.verify)
		return 0;
	rb_err("protocol error: DONE from %s amid --verify's windows", e->o->peer);
	return -EPROTO;
}

static const char *op_pending(void *t)
{
	return ((struct bw_engine *)t)->cfg.receiving ? "sending" : "ending its step";
}

static int op_finish(void *t, int ret)
{
	(void)t;
	return ret;
}

static int op_figures(void *t, struct rb_stepend *own, struct rb_step_view *v)
{
	struct bw_engine *e = t;

	*own = e->res->own;
	bw_peer_view(e, v);
	return 0;
}

static int op_taken(void *t, const struct rb_stepend *peer)
{
	struct bw_engine *e = t;

	return e->cfg.receiving && e->cfg.imm ? bw_await_arrivals(e, peer->msgs) : 0;
}

static void op_interval(void *t, uint64_t from, uint64_t to, uint64_t from_bytes, uint64_t to_bytes)
{
	struct bw_engine *e = t;
	struct bw_interval iv = {.msgs = to_bytes / e->size - from_bytes / e->size,
	                         .bytes = to_bytes - from_bytes,
	                         .from_ns = from,
	                         .to_ns = to};

	e->iv_end = to;
	e->cfg.interval(e->cfg.arg, &iv);
}

/*
 * Once -D's stop is set, or outside the sends (--verify's and --reg-per-iter's waits
 * between them, this side's part over), what is left belongs to a later stretch: no
 * sliver row, and none that ends past the last completion.
 */
static bool op_settling(void *t)
{
	const struct bw_engine *e = t;

	return e->stopping || !e->sending;
}

static const struct rb_bw_ops bw_ops = {
    .start = op_start,
    .turn = op_turn,
    .moved = op_moved,
    .frame = op_frame,
    .peer_done = op_peer_done,
    .pending = op_pending,
    .finish = op_finish,
    .figures = op_figures,
    .taken = op_taken,
    .interval = op_interval,
    .settling = op_settling,
};

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
	const struct rb_bw_cfg step = {
	    .duration_s = e->cfg.duration_s,
	    .forever = e->cfg.forever,
	    .timeout_s = e->cfg.timeout_s,
	    .interval_ns = e->cfg.sending ? e->cfg.interval_ns : 0, /* a target's rows are its peer's */
	    .wait_ms = e->cfg.receiving && e->cfg.imm ? 0 : 100,    /* receives to keep posted: spin */
	    .beat_ns = e->beat_ns,
	    /* A send queue of large WRITEs drains slowly on an emulated device: more grace than TCP's. */
	    .grace_ns = (uint64_t)((5 + e->cfg.duration_s / 2) * 1e9),
	};
	struct rb_bw b;
	struct rb_bw_result br;
	uint64_t cpu0, wall0, wall;
	int ret;

	memset(res, 0, sizeof(*res));
	res->own.cpu_pct = NAN; /* the step's CPU is reported where it is measured, never sent */
	res->own.peak_gbps = e->cfg.no_peak ? NAN : 0;
	e->size = size;
	e->res = res;
	e->part_done = false;
	e->iv_end = 0;
	bw_build_wrs(e);
	e->sig_every = bw_sig_every(e->cfg.cq_mod, size);
	res->cq_mod = e->sig_every;
	res->post_list = bw_post_list(e->cfg.post_list, e->cfg.tx_depth, size);
	e->done_msgs = e->posted_msgs = 0;
	e->stopping = false;
	e->have_window = e->have_verdict = false;
	for (unsigned i = 0; i < e->c->nqps; i++) {
		rb_sendq_init(&e->q[i].sq, e->cfg.tx_depth, res->post_list, e->sig_every);
		e->q[i].stalled = false;
		e->q[i].step_rgot = 0;
	}
	bw_clock_start(e);
	cpu0 = rb_cpu_ns();
	wall0 = rb_now_ns();
	e->t_step = wall0;
	ret = rb_bw_step(e->o, &step, &bw_ops, e, &b, &br);
	e->b = NULL;
	if (ret)
		return ret;
	res->peer = br.peer;
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
	/*
	 * A stall (no completion since the last interval row ended: a loaded emulated device
	 * signals every 6 MB or so) must not leave the total shorter than the rows it sums.
	 */
	if (e->iv_end > res->elapsed_ns)
		res->own.elapsed_ns = res->elapsed_ns = e->iv_end;
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

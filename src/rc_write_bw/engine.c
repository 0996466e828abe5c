/*
 * The engine's clock and send side: WRITEs posted and polled per the planner
 * (sendq.h), liveness on the clock, and one step from start to DONE.
 */
#include "state.h"

#include "async.h"
#include "cq.h"
#include "log.h"
#include "hist.h"
#include "pattern.h"
#include "sig.h"
#include "timeutil.h"

#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SEQ_BITS      48
#define SEQ_MASK      ((1ull << SEQ_BITS) - 1)
#define MAX_POST_LIST RB_SENDQ_MAX_POST_LIST
/*
 * At most this many bytes between two signaled WRs. Without it, 100 x 8 MiB
 * unsignaled writes on a slow link show no completion for many seconds, and a
 * stall bound could not tell that from a dead peer.
 */
#define SIGNAL_BYTES (64ull << 20)
/*
 * Liveness runs on the clock, never on a count of loop turns: a turn costs 100 ns
 * on a NIC and milliseconds on rxe with many QPs (every post is a system call).
 * bw_tick() follows every verbs call of a loop and reads the clock every `stride`
 * calls; the stride doubles while reads come less than CLOCK_CHEAP_NS apart and
 * drops to 1 when they come more than 4x that apart, so the clock is read at least
 * every CLOCK_STRIDE_MAX calls, and at every call when calls are slow.
 */
#define CLOCK_STRIDE_MAX 64
#define CLOCK_CHEAP_NS   10000ull
/* Signals, async events, peer frames, the stall bound and the heartbeat: every 10 ms. */
#define HK_PERIOD_NS 10000000ull
#define BEAT_NS      RB_NS_PER_S
/* The peak's first grid step and shortest window (stats.h). */
#define PEAK_GRID_NS 1000000ull

static int poll_sends(struct bw_engine *e);

/* ---------------------------------------------------------------- sends */

/* RB_TEST_FAULT on message seq of QP qi (fault.h); tests only. */
static void inject_fault(struct bw_engine *e, unsigned qi, uint64_t seq, uint8_t *payload, uint32_t *imm,
                         uint32_t *rkey)
{
	if (!rb_fault_at(e->fault, qi, seq))
		return;
	switch (e->fault) {
	case RB_FAULT_CORRUPT: payload[rb_fault_byte(e->size)] ^= 0xff; break;
	case RB_FAULT_IMM_DROP: *imm = (uint32_t)(seq + 1); break;
	case RB_FAULT_IMM_DUP: *imm = (uint32_t)(seq - 1); break;
	case RB_FAULT_BAD_RKEY: *rkey ^= 0x80000000u; break;
	default: break;
	}
}

/* The planner's next post for QP qi; RB_TEST_FAULT=stall cuts it before message N for good. */
static struct rb_sendq_plan next_plan(struct bw_engine *e, unsigned qi)
{
	struct qstate *q = &e->q[qi];
	struct rb_sendq_plan p = rb_sendq_plan(&q->sq);

	if (e->fault != RB_FAULT_STALL)
		return p;
	if (q->stalled) {
		p.n = 0;
		return p;
	}
	for (unsigned i = 0; i < p.n; i++)
		if (rb_fault_at(RB_FAULT_STALL, qi, q->sq.posted + 1 + i)) {
			q->stalled = true;
			p.n = i;
			break;
		}
	return p;
}

/* The step's WR chain: what every message of the step shares. */
static void build_wrs(struct bw_engine *e)
{
	memset(e->wr, 0, sizeof(e->wr));
	memset(e->sge, 0, sizeof(e->sge));
	e->wr_flags = e->size <= e->cfg.inline_bytes ? IBV_SEND_INLINE : 0;
	for (unsigned i = 0; i < MAX_POST_LIST; i++) {
		e->sge[i].length = (uint32_t)e->size;
		e->wr[i].sg_list = &e->sge[i];
		e->wr[i].num_sge = 1;
		e->wr[i].opcode = e->cfg.imm ? IBV_WR_RDMA_WRITE_WITH_IMM : IBV_WR_RDMA_WRITE;
		e->wr[i].next = i + 1 < MAX_POST_LIST ? &e->wr[i + 1] : NULL;
	}
}

/* How many of the QPs post through ibv_wr_*. */
static unsigned extended_qps(const struct rb_conn *c)
{
	unsigned ex = 0;

	for (unsigned i = 0; i < c->nqps; i++)
		ex += c->qpx[i] != NULL;
	return ex;
}

const char *bw_post_api(const struct rb_conn *c, bool old_post, char *buf, size_t len)
{
	unsigned ex = extended_qps(c);

	if (old_post)
		return "ibv_post_send (--old-post-send)";
	if (ex == c->nqps)
		return "ibv_wr_* (extended QP)";
	if (ex == 0)
		snprintf(buf, len, "ibv_post_send (no extended QP: %s)", strerror(c->qpx_err));
	else
		snprintf(buf, len, "ibv_wr_* on %u of %u QPs, ibv_post_send on the rest (%s)", ex, c->nqps,
		         strerror(c->qpx_err));
	return buf;
}

const char *bw_post_api_key(const struct rb_conn *c)
{
	unsigned ex = extended_qps(c);

	return ex == c->nqps && ex ? "ibv_wr" : ex ? "mixed" : "ibv_post_send";
}

static void posted(struct bw_engine *e, unsigned qi, const struct rb_sendq_plan *p)
{
	rb_sendq_posted(&e->q[qi].sq, p);
	e->posted_msgs += p->n;
}

/* --verify's pattern and a test fault, written into message seq's source slot at off. */
static int stage_payload(struct bw_engine *e, unsigned qi, uint64_t seq, uint64_t off, uint32_t *imm,
                         uint32_t *rkey)
{
	/* On the host view; GPU memory gets it by copy (not a speed run). */
	size_t at = rb_conn_src_off(e->c, qi) + off;
	uint8_t *view = rb_buf_view(&e->c->src, at);

	if (!view)
		return -ENOMEM;
	if (e->cfg.verify)
		rb_pattern_fill(view, e->size, rb_pattern_tag(qi, seq));
	if (e->fault)
		inject_fault(e, qi, seq, view, imm, rkey);
	return rb_buf_push(&e->c->src, at, e->size);
}

/*
 * One post of p->n WRITEs on QP qi: through ibv_wr_* where the QP is extended (each
 * WRITE built straight into the send queue), else as the step's prebuilt WR chain
 * with only what changes filled in.
 */
static int post_writes(struct bw_engine *e, unsigned qi, const struct rb_sendq_plan *p)
{
	struct ibv_qp_ex *qpx = e->c->qpx[qi];
	struct ibv_sge *sge = e->sge;
	struct ibv_send_wr *wr = e->wr, *bad;
	struct qstate *q = &e->q[qi];
	const struct rb_qpinfo *r = &e->c->remote.qp[qi];
	uint8_t *src = rb_conn_src(e->c, qi);
	/* --reg-per-iter replaces the MR between posts. */
	uint32_t imm, rkey, lkey = e->c->src_mr.mr->lkey;
	int ret;

	if (qpx)
		ibv_wr_start(qpx);
	for (unsigned i = 0; i < p->n; i++) {
		uint64_t seq = q->sq.posted + 1 + i;
		uint64_t off = ((seq - 1) % e->cfg.slots) * e->size;
		uint64_t id = ((uint64_t)qi << SEQ_BITS) | seq, addr = (uintptr_t)(src + off);
		unsigned flags = e->wr_flags | (p->sig >> i & 1 ? IBV_SEND_SIGNALED : 0);

		imm = (uint32_t)seq;
		rkey = r->rkey;
		if ((e->cfg.verify || e->fault) && (ret = stage_payload(e, qi, seq, off, &imm, &rkey)) != 0) {
			if (qpx) /* nothing of this post reaches the send queue */
				ibv_wr_abort(qpx);
			return ret;
		}
		if (qpx) {
			qpx->wr_id = id;
			/*
			 * IBV_SEND_INLINE stays: the data goes by ibv_wr_set_inline_data, but rxe's
			 * kernel half reads the flag from the WQE to find it there (without it, a
			 * local QP operation error); other providers ignore it.
			 */
			qpx->wr_flags = flags;
			if (e->cfg.imm)
				ibv_wr_rdma_write_imm(qpx, rkey, r->addr + off, htonl(imm));
			else
				ibv_wr_rdma_write(qpx, rkey, r->addr + off);
			if (flags & IBV_SEND_INLINE)
				ibv_wr_set_inline_data(qpx, (void *)(uintptr_t)addr, (size_t)e->size);
			else
				ibv_wr_set_sge(qpx, lkey, addr, (uint32_t)e->size);
			continue;
		}
		sge[i].addr = addr;
		sge[i].lkey = lkey;
		wr[i].wr_id = id;
		wr[i].imm_data = htonl(imm);
		wr[i].send_flags = flags;
		wr[i].wr.rdma.remote_addr = r->addr + off;
		wr[i].wr.rdma.rkey = rkey;
	}
	if (qpx) {
		if ((ret = ibv_wr_complete(qpx)) != 0) {
			rb_err("ibv_wr_complete on QP %u (%u WRITEs) failed: %s", qi, p->n, strerror(ret));
			return -ret;
		}
		posted(e, qi, p);
		return 0;
	}
	/* The chain ends after this post's last WR, and is whole again after the call. */
	wr[p->n - 1].next = NULL;
	ret = ibv_post_send(e->c->qp[qi], wr, &bad);
	wr[p->n - 1].next = p->n < MAX_POST_LIST ? &wr[p->n] : NULL;
	if (ret) {
		rb_err("ibv_post_send on QP %u failed: %s", qi, strerror(ret));
		return -ret;
	}
	posted(e, qi, p);
	return 0;
}

/* ---------------------------------------------------------------- clock */

static void stall_error(struct bw_engine *e)
{
	uint64_t posted = 0;
	unsigned worst = 0;

	/* Name the QP that is furthest behind. */
	for (unsigned i = 0; i < e->c->nqps; i++) {
		const struct rb_sendq *q = &e->q[i].sq, *w = &e->q[worst].sq;
		posted += q->posted;
		if (!rb_sendq_done(q) && (rb_sendq_done(w) || q->completed < w->completed))
			worst = i;
	}
	rb_err("no send completion for %u s: %llu messages completed, %llu outstanding; QP %u stalled "
	       "after message %llu (link down or peer gone?) (--timeout)",
	       e->cfg.timeout_s, (unsigned long long)e->done_msgs,
	       (unsigned long long)(posted - e->done_msgs), worst,
	       (unsigned long long)e->q[worst].sq.completed);
}

/*
 * Every HK_PERIOD_NS in every loop of a step: a stop signal, a fatal async event,
 * the peer's frames (an error it sent, or what we wait for), the stall bound
 * while sending, and the heartbeat while the peer still waits for a frame of ours.
 */
static int housekeeping(struct bw_engine *e, uint64_t now)
{
	int ret;

	e->hk_next = now + HK_PERIOD_NS;
	if ((ret = rb_check_stop()))
		return ret;
	/*
	 * A posting burst on many slow QPs can take seconds: keep completions flowing.
	 * Before the async events: a WR's error completion says more than the QP or CQ
	 * error event that follows it.
	 */
	if (e->sending && !e->polled && (ret = poll_sends(e)) < 0)
		return ret;
	e->polled = false;
	if ((ret = rb_async_poll(&e->c->dev)))
		return ret;
	if ((ret = bw_service_recv(e)) < 0)
		return ret;
	/* The peer's frames before our heartbeat: when it failed, its ERROR is the cause. */
	if ((ret = bw_peer_poll(e)) || (ret = bw_peer_overdue(e, now)))
		return ret;
	if (e->beat && now - e->last_beat >= e->beat_ns) {
		uint8_t buf[16];
		struct rb_wbuf w = {buf, 0, sizeof(buf), false};

		e->last_beat = now;
		rb_u64_encode(&w, e->done_msgs);
		ret = rb_oob_send_w(e->o, RB_MSG_PROGRESS, &w);
		if (ret)
			return ret;
	}
	/* poll_sends above may have stamped last_progress after `now`. */
	if (e->sending && now > e->last_progress && now - e->last_progress > e->cfg.timeout_s * RB_NS_PER_S) {
		stall_error(e);
		return -ETIMEDOUT;
	}
	return 0;
}

/* --interval: the interval in progress ends at `to`; its row, then the next one begins. */
static void interval_end(struct bw_engine *e, uint64_t to)
{
	struct bw_interval iv = {.msgs = e->done_msgs - e->ivl_msgs,
	                         .bytes = (e->done_msgs - e->ivl_msgs) * e->size,
	                         .from_ns = e->ivl_from - e->t_first,
	                         .to_ns = to - e->t_first};

	e->cfg.interval(e->cfg.arg, &iv);
	e->ivl_from = to;
	e->ivl_msgs = e->done_msgs;
	while (e->ivl_next <= to)
		e->ivl_next += e->cfg.interval_ns;
}

int bw_clock_read(struct bw_engine *e)
{
	uint64_t now = rb_now_ns();

	if (now - e->clk_last < CLOCK_CHEAP_NS) {
		if (e->clk_stride < CLOCK_STRIDE_MAX)
			e->clk_stride *= 2;
	} else if (now - e->clk_last > 4 * CLOCK_CHEAP_NS) {
		e->clk_stride = 1;
	}
	e->clk_count = 0;
	e->clk_last = now;
	if (e->sending && !e->cfg.no_peak)
		rb_rate_update(&e->rate, now, e->posted_msgs * e->size, e->done_msgs * e->size);
	if (e->sending && e->cfg.duration_s > 0 && !e->stopping && now >= e->t_stop) {
		/* Stop at the next signaled WR so every posted message is accounted. */
		e->stopping = true;
		for (unsigned i = 0; i < e->c->nqps; i++)
			rb_sendq_stop(&e->q[i].sq);
	}
	/* Once stopping, what is left belongs to the last interval (bw_own_result): no sliver row. */
	if (e->ivl_next && !e->stopping && now >= e->ivl_next)
		interval_end(e, now);
	return now >= e->hk_next ? housekeeping(e, now) : 0;
}

/* ---------------------------------------------------------------- send loop */

/* Consumes send completions; returns how many, or -errno. */
static int poll_sends(struct bw_engine *e)
{
	struct ibv_wc wc[RB_CQ_BATCH];
	int n = rb_cq_poll(e->c->scq, wc, RB_CQ_BATCH, e->cfg.imm ? "RDMA_WRITE_WITH_IMM" : "RDMA_WRITE",
	                   e->err, sizeof(e->err));

	e->polled = true;
	if (n > 0) {
		uint64_t now = rb_now_ns();
		for (int i = 0; i < n; i++) {
			unsigned qi = (unsigned)(wc[i].wr_id >> SEQ_BITS);
			uint64_t seq = wc[i].wr_id & SEQ_MASK;
			e->done_msgs += rb_sendq_complete(&e->q[qi].sq, seq);
		}
		e->t_last = now;
		e->last_progress = now;
	}
	return n;
}

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

			while (!ret && (p = next_plan(e, qi)).n) {
				ret = post_writes(e, qi, &p);
				if (!ret)
					ret = bw_tick(e);
			}
			active |= !rb_sendq_done(sq);
		}
		if (ret || !active)
			break;
		ret = poll_sends(e);
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

/* ---------------------------------------------------------------- steps */

void bw_start_sending(struct bw_engine *e)
{
	e->t_first = rb_now_ns();
	e->t_last = e->t_first;
	e->t_stop = e->t_first + (uint64_t)(e->cfg.duration_s * 1e9);
	rb_rate_init(&e->rate, e->t_first, PEAK_GRID_NS);
	e->ivl_from = e->t_first;
	e->ivl_msgs = 0;
	e->ivl_next = e->cfg.interval_ns ? e->t_first + e->cfg.interval_ns : 0;
}

/* This side's DONE: what it sent, measured on its own clock. */
void bw_own_result(struct bw_engine *e, struct bw_result *res)
{
	res->own.msgs = e->done_msgs;
	res->own.bytes = e->done_msgs * e->size;
	res->own.elapsed_ns = e->t_last - e->t_first;
	res->own.peak_gbps = e->cfg.no_peak ? NAN : rb_rate_peak_gbps(&e->rate, e->t_last, res->own.bytes);
	/* The intervals tile the step: the last one ends at its last completion. */
	if (e->ivl_next) {
		interval_end(e, e->t_last);
		e->ivl_next = 0;
	}
}

static int run_plain(struct bw_engine *e, struct bw_result *res)
{
	if (e->cfg.sending) {
		int ret;
		bw_start_sending(e);
		for (unsigned i = 0; i < e->c->nqps; i++)
			e->q[i].sq.target =
			    e->cfg.duration_s > 0 || e->cfg.forever ? UINT64_MAX : e->cfg.iters;
		ret = bw_send_until_targets(e);
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
	build_wrs(e);
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
	e->clk_last = rb_now_ns();
	e->clk_stride = 1;
	e->clk_count = 0;
	e->hk_next = e->clk_last + HK_PERIOD_NS;
	e->last_beat = e->clk_last;
	e->beat = true;
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
	if ((cfg->reg_per_iter && (rb_hist_init(&e->reg_ns) || rb_hist_init(&e->dereg_ns))) ||
	    (cfg->receiving && cfg->imm && bw_recv_init(e))) {
		bw_engine_free(e);
		return NULL;
	}
	return e;
}

void bw_engine_free(struct bw_engine *e)
{
	if (e) {
		free(e->q);
		rb_hist_free(&e->reg_ns);
		rb_hist_free(&e->dereg_ns);
	}
	free(e);
}

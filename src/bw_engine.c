#include "bw_engine.h"

#include "async.h"
#include "cq.h"
#include "fault.h"
#include "log.h"
#include "pattern.h"
#include "sendq.h"
#include "sig.h"
#include "stats.h"
#include "timeutil.h"

#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#define SEQ_BITS      48
#define SEQ_MASK      ((1ull << SEQ_BITS) - 1)
#define RECV_CHUNK    16
#define RECV_DRAIN    64 /* receive batches one service_recv may take */
#define MAX_POST_LIST RB_SENDQ_MAX_POST_LIST
#define NS_PER_S      1000000000ull
/*
 * At most this many bytes between two signaled WRs. Without it, 100 x 8 MiB
 * unsignaled writes on a slow link show no completion for many seconds, and a
 * stall bound could not tell that from a dead peer.
 */
#define SIGNAL_BYTES (64ull << 20)
/*
 * Liveness runs on the clock, never on a count of loop turns: a turn costs 100 ns
 * on a NIC and milliseconds on rxe with many QPs (every post is a system call).
 * tick() follows every verbs call of a loop and reads the clock every `stride`
 * calls; the stride doubles while reads come less than CLOCK_CHEAP_NS apart and
 * drops to 1 when they come more than 4x that apart, so the clock is read at least
 * every CLOCK_STRIDE_MAX calls, and at every call when calls are slow.
 */
#define CLOCK_STRIDE_MAX 64
#define CLOCK_CHEAP_NS   10000ull
/* Signals, async events, peer frames, the stall bound and the heartbeat: every 10 ms. */
#define HK_PERIOD_NS 10000000ull
#define BEAT_NS      NS_PER_S
/* The peak's first grid step and shortest window (stats.h). */
#define PEAK_GRID_NS 1000000ull

struct qstate {
	struct rb_sendq sq;     /* send side, this step */
	bool stalled;           /* RB_TEST_FAULT=stall: posts nothing more this step */
	uint64_t rposted, rgot; /* receives, whole run */
	uint64_t step_rgot;     /* receives, this step */
};

struct bw_engine {
	struct rb_conn *c;
	struct rb_oob *o;
	struct bw_cfg cfg;
	enum rb_fault_kind fault; /* RB_TEST_FAULT (fault.h); RB_FAULT_NONE in a measurement */
	struct qstate *q;         /* c->nqps */
	uint64_t size;
	uint32_t sig_every;              /* signal one WR in sig_every */
	uint64_t done_msgs, posted_msgs; /* this step, all QPs */
	uint64_t t_first, t_last, t_stop;
	bool stopping;
	struct rb_rate rate;
	/* The clock (see tick()). */
	uint32_t clk_count, clk_stride;
	uint64_t clk_last, hk_next;
	/* sending: in send_until_targets (stall bound, -D); beat: heartbeats allowed (before our DONE). */
	bool sending, beat;
	bool polled;      /* the send CQ was polled since the last housekeeping */
	uint64_t beat_ns; /* heartbeat period: 1 s, or a quarter of --timeout when shorter */
	uint64_t last_beat, peer_seen, last_progress;
	char err[320];
	/* Frames the peer sent that we have not consumed yet. */
	bool have_done, have_window, have_verdict;
	struct rb_done peer_done;
	struct rb_window peer_window;
	struct rb_verdict peer_verdict;
};

static inline int tick(struct bw_engine *e);
static int poll_sends(struct bw_engine *e);

/* ---------------------------------------------------------------- receives */

static int post_recvs(struct bw_engine *e, unsigned qi, unsigned n)
{
	struct ibv_recv_wr wr[RECV_CHUNK], *bad;
	int ret;

	for (unsigned i = 0; i < n; i++) {
		memset(&wr[i], 0, sizeof(wr[i]));
		wr[i].wr_id = qi;
		wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
	}
	ret = ibv_post_recv(e->c->qp[qi], wr, &bad);
	if (ret) {
		rb_err("ibv_post_recv on QP %u failed: %s", qi, strerror(ret));
		return -ret;
	}
	e->q[qi].rposted += n;
	return 0;
}

/* One batch of receive completions (WRITE_WITH_IMM); returns how many, or -errno. */
static int recv_batch(struct bw_engine *e)
{
	struct ibv_wc wc[RB_CQ_BATCH];
	int n = rb_cq_poll(e->c->rcq, wc, RB_CQ_BATCH, "RECV_RDMA_WITH_IMM", e->err, sizeof(e->err));

	for (int i = 0; i < n; i++) {
		uint64_t qi = wc[i].wr_id;
		struct qstate *q;
		uint32_t imm;

		if (qi >= e->c->nqps) {
			rb_err("receive completion with unknown wr_id %llu", (unsigned long long)qi);
			return -EPROTO;
		}
		q = &e->q[qi];
		if (wc[i].opcode != IBV_WC_RECV_RDMA_WITH_IMM) {
			rb_err("unexpected %s completion on QP %llu", rb_wc_opcode_name(wc[i].opcode),
			       (unsigned long long)qi);
			return -EPROTO;
		}
		if (wc[i].byte_len != e->size) {
			rb_err("WRITE_WITH_IMM of %u bytes arrived on QP %llu, expected %llu", wc[i].byte_len,
			       (unsigned long long)qi, (unsigned long long)e->size);
			return -EPROTO;
		}
		/* An RC QP delivers in order: immediate n is message n of this step. */
		imm = ntohl(wc[i].imm_data);
		if (imm != (uint32_t)(q->step_rgot + 1)) {
			rb_err(
			    "immediate %u arrived on QP %llu, expected %u (a message was lost, duplicated or "
			    "reordered)",
			    imm, (unsigned long long)qi, (uint32_t)(q->step_rgot + 1));
			return -EIO;
		}
		q->step_rgot++;
		q->rgot++;
		if (q->rposted - q->rgot + RECV_CHUNK <= e->cfg.rx_depth) {
			int ret = post_recvs(e, (unsigned)qi, RECV_CHUNK);
			if (ret)
				return ret;
		}
	}
	return n;
}

/*
 * Consumes receive completions until the CQ is empty (at most RECV_DRAIN batches): a
 * receiver that also sends must keep up with the peer, or the peer's WRITE_WITH_IMMs
 * find no receive posted and wait out RNR retries.
 */
static int service_recv(struct bw_engine *e)
{
	int total = 0;

	if (!e->cfg.receiving || !e->cfg.imm)
		return 0;
	for (unsigned b = 0; b < RECV_DRAIN; b++) {
		int n = recv_batch(e);
		if (n < 0)
			return n;
		total += n;
		if (n < RB_CQ_BATCH)
			break;
	}
	return total;
}

/* ---------------------------------------------------------------- peer frames */

static int read_frame(struct bw_engine *e)
{
	struct rb_frame f;
	int ret = rb_oob_recv(e->o, &f, (int)e->cfg.timeout_s * 1000);

	if (ret)
		return ret;
	e->peer_seen = rb_now_ns();
	switch (f.type) {
	case RB_MSG_PROGRESS: return 0;
	case RB_MSG_DONE:
		if (!e->have_done && !rb_done_decode(f.p, f.len, &e->peer_done)) {
			e->have_done = true;
			return 0;
		}
		break;
	case RB_MSG_WINDOW:
		if (!e->have_window && !rb_window_decode(f.p, f.len, &e->peer_window)) {
			e->have_window = true;
			return 0;
		}
		break;
	case RB_MSG_VERIFY:
		if (!e->have_verdict && !rb_verdict_decode(f.p, f.len, &e->peer_verdict)) {
			e->have_verdict = true;
			return 0;
		}
		break;
	default: break;
	}
	rb_err("protocol error: unexpected or malformed %s frame from %s", rb_msg_name(f.type), e->o->peer);
	return -EPROTO;
}

/* Waits for *flag (set by read_frame) while keeping receives flowing. */
static int wait_for(struct bw_engine *e, const bool *flag, const char *what)
{
	bool spin = e->cfg.receiving && e->cfg.imm;

	e->peer_seen = rb_now_ns();
	while (!*flag) {
		int ret = service_recv(e), rd;

		if (ret < 0)
			return ret;
		rd = tick(e);
		if (rd)
			return rd;
		if (ret > 0 || *flag)
			continue;
		/* Nothing to poll: sleep in poll() instead of spinning. */
		rd = rb_oob_readable(e->o, spin ? 0 : 100);
		if (rd < 0)
			return rd;
		if (rd) {
			ret = read_frame(e);
			if (ret)
				return ret;
		} else if (rb_now_ns() - e->peer_seen > e->cfg.timeout_s * NS_PER_S) {
			rb_err("peer %s silent for %u s while waiting for its %s (--timeout)", e->o->peer,
			       e->cfg.timeout_s, what);
			return -ETIMEDOUT;
		}
	}
	return 0;
}

static int send_frame(struct bw_engine *e, uint16_t type, const struct rb_wbuf *w)
{
	return rb_oob_send_w(e->o, type, w);
}

/* ---------------------------------------------------------------- sends */

/* RB_TEST_FAULT on message seq of QP qi (fault.h); tests only. */
static void inject_fault(struct bw_engine *e, unsigned qi, uint64_t seq, uint8_t *payload, uint32_t *imm,
                         uint32_t *rkey)
{
	if (!rb_fault_at(e->fault, qi, seq))
		return;
	switch (e->fault) {
	case RB_FAULT_CORRUPT: payload[e->size / 2] ^= 0xff; break;
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

static int post_writes(struct bw_engine *e, unsigned qi, const struct rb_sendq_plan *p)
{
	struct ibv_sge sge[MAX_POST_LIST];
	struct ibv_send_wr wr[MAX_POST_LIST], *bad;
	struct qstate *q = &e->q[qi];
	const struct rb_qpinfo *r = &e->c->remote.qp[qi];
	uint8_t *src = rb_conn_src(e->c, qi);
	uint32_t imm, rkey;
	int ret;

	for (unsigned i = 0; i < p->n; i++) {
		uint64_t seq = q->sq.posted + 1 + i;
		uint64_t off = ((seq - 1) % e->cfg.slots) * e->size;
		bool signaled = p->sig >> i & 1;

		if (e->cfg.verify)
			rb_pattern_fill(src + off, e->size, rb_pattern_tag(qi, seq));
		imm = (uint32_t)seq;
		rkey = r->rkey;
		if (e->fault)
			inject_fault(e, qi, seq, src + off, &imm, &rkey);
		sge[i].addr = (uintptr_t)(src + off);
		sge[i].length = (uint32_t)e->size;
		sge[i].lkey = e->c->src_mr.mr->lkey;
		memset(&wr[i], 0, sizeof(wr[i]));
		wr[i].wr_id = ((uint64_t)qi << SEQ_BITS) | seq;
		wr[i].sg_list = &sge[i];
		wr[i].num_sge = 1;
		wr[i].opcode = e->cfg.imm ? IBV_WR_RDMA_WRITE_WITH_IMM : IBV_WR_RDMA_WRITE;
		wr[i].imm_data = htonl(imm);
		wr[i].send_flags = (signaled ? IBV_SEND_SIGNALED : 0) |
		                   (e->size <= e->cfg.inline_bytes ? IBV_SEND_INLINE : 0);
		wr[i].wr.rdma.remote_addr = r->addr + off;
		wr[i].wr.rdma.rkey = rkey;
		wr[i].next = i + 1 < p->n ? &wr[i + 1] : NULL;
	}
	ret = ibv_post_send(e->c->qp[qi], wr, &bad);
	if (ret) {
		rb_err("ibv_post_send on QP %u failed: %s", qi, strerror(ret));
		return -ret;
	}
	rb_sendq_posted(&q->sq, p);
	e->posted_msgs += p->n;
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
 * 1 when the peer's next frame is an ERROR or it closed the channel: looked at
 * without taking the frame, since after the peer's DONE a frame can also be the
 * next step's BARRIER.
 */
static int peer_failed(struct bw_engine *e)
{
	uint8_t hdr[RB_WIRE_HDR_LEN];
	struct rb_frame_hdr h;
	const char *why;
	ssize_t n = recv(e->o->fd, hdr, sizeof(hdr), MSG_PEEK | MSG_DONTWAIT);

	if (n == 0)
		return 1;
	return n == (ssize_t)sizeof(hdr) && !rb_frame_hdr_decode(hdr, &h, &why) && h.type == RB_MSG_ERROR;
}

/*
 * Every HK_PERIOD_NS in every loop of a step: a stop signal, a fatal async event,
 * the peer's frames (an error it sent, or what we wait for), the stall bound
 * while sending, and the heartbeat while the peer still waits for a frame of ours.
 */
static int housekeeping(struct bw_engine *e, uint64_t now)
{
	int ret, rd;

	e->hk_next = now + HK_PERIOD_NS;
	ret = rb_check_stop();
	if (!ret)
		ret = rb_async_poll(&e->c->dev);
	if (ret)
		return ret;
	/* A posting burst on many slow QPs can take seconds: keep completions flowing. */
	if (e->sending && !e->polled && (ret = poll_sends(e)) < 0)
		return ret;
	e->polled = false;
	if ((ret = service_recv(e)) < 0)
		return ret;
	/*
	 * The peer's frames first: when it failed, its ERROR is the cause, not our
	 * heartbeat bouncing off the connection it closed. After its DONE, its next
	 * frame belongs to the next step (a BARRIER) and stays queued, unless it is an
	 * ERROR or the end of the channel.
	 */
	while ((rd = rb_oob_readable(e->o, 0)) != 0) {
		if (rd < 0)
			return rd;
		if (e->have_done && !peer_failed(e))
			break;
		ret = read_frame(e);
		if (ret)
			return ret;
	}
	if (e->beat && now - e->last_beat >= e->beat_ns) {
		uint8_t buf[16];
		struct rb_wbuf w = {buf, 0, sizeof(buf), false};

		e->last_beat = now;
		rb_u64_encode(&w, e->done_msgs);
		ret = send_frame(e, RB_MSG_PROGRESS, &w);
		if (ret)
			return ret;
	}
	/* poll_sends above may have stamped last_progress after `now`. */
	if (e->sending && now > e->last_progress && now - e->last_progress > e->cfg.timeout_s * NS_PER_S) {
		stall_error(e);
		return -ETIMEDOUT;
	}
	return 0;
}

static int clock_read(struct bw_engine *e)
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
	if (e->sending)
		rb_rate_update(&e->rate, now, e->posted_msgs * e->size, e->done_msgs * e->size);
	if (e->sending && e->cfg.duration_s > 0 && !e->stopping && now >= e->t_stop) {
		/* Stop at the next signaled WR so every posted message is accounted. */
		e->stopping = true;
		for (unsigned i = 0; i < e->c->nqps; i++)
			rb_sendq_stop(&e->q[i].sq);
	}
	return now >= e->hk_next ? housekeeping(e, now) : 0;
}

/* After every verbs call (or unit of work) of every loop; 0 or -errno. */
static inline int tick(struct bw_engine *e)
{
	return ++e->clk_count < e->clk_stride ? 0 : clock_read(e);
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
static int send_until_targets(struct bw_engine *e)
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
					ret = tick(e);
			}
			active |= !rb_sendq_done(sq);
		}
		if (ret || !active)
			break;
		ret = poll_sends(e);
		if (ret >= 0)
			ret = service_recv(e);
		if (ret >= 0)
			ret = tick(e);
		if (ret)
			break;
	}
	e->sending = false;
	return ret;
}

/* ---------------------------------------------------------------- steps */

static void start_sending(struct bw_engine *e)
{
	e->t_first = rb_now_ns();
	e->t_last = e->t_first;
	e->t_stop = e->t_first + (uint64_t)(e->cfg.duration_s * 1e9);
	rb_rate_init(&e->rate, e->t_first, PEAK_GRID_NS);
}

/* This side's DONE: what it sent, measured on its own clock. */
static void own_result(struct bw_engine *e, struct bw_result *res)
{
	res->own.msgs = e->done_msgs;
	res->own.bytes = e->done_msgs * e->size;
	res->own.elapsed_ns = e->t_last - e->t_first;
	res->own.peak_gbps = rb_rate_peak_gbps(&e->rate, e->t_last, res->own.bytes);
}

/*
 * The peer's DONE against what it must have sent: messages x size bytes, and in -n
 * mode iterations x QPs messages (none when it only receives).
 */
static int check_peer_done(struct bw_engine *e, const struct rb_done *d)
{
	uint64_t want = e->cfg.receiving ? e->cfg.iters * e->c->nqps : 0;

	if (d->bytes != d->msgs * e->size) {
		rb_err(
		    "protocol error: %s reports %llu bytes for %llu messages of %llu bytes (expected %llu)",
		    e->o->peer, (unsigned long long)d->bytes, (unsigned long long)d->msgs,
		    (unsigned long long)e->size, (unsigned long long)(d->msgs * e->size));
		return -EPROTO;
	}
	if ((e->cfg.duration_s <= 0 || !e->cfg.receiving) && d->msgs != want) {
		rb_err("protocol error: %s reports %llu messages sent, expected %llu (%llu per QP x %u QPs)",
		       e->o->peer, (unsigned long long)d->msgs, (unsigned long long)want,
		       (unsigned long long)(e->cfg.receiving ? e->cfg.iters : 0), e->c->nqps);
		return -EPROTO;
	}
	return 0;
}

static int exchange_done(struct bw_engine *e, struct bw_result *res)
{
	uint8_t buf[64];
	struct rb_wbuf w = {buf, 0, sizeof(buf), false};
	int ret;

	rb_done_encode(&w, &res->own);
	e->beat = false; /* DONE is our last frame of the step */
	ret = send_frame(e, RB_MSG_DONE, &w);
	if (!ret)
		ret = wait_for(e, &e->have_done, "DONE");
	if (ret)
		return ret;
	res->peer = e->peer_done;
	ret = check_peer_done(e, &res->peer);
	if (ret)
		return ret;
	/* With WRITE_WITH_IMM every message the peer sent must also arrive here. */
	if (e->cfg.receiving && e->cfg.imm) {
		uint64_t start = rb_now_ns(), got;
		for (;;) {
			got = 0;
			for (unsigned i = 0; i < e->c->nqps; i++)
				got += e->q[i].step_rgot;
			if (got >= res->peer.msgs)
				break;
			ret = service_recv(e);
			if (ret >= 0)
				ret = tick(e);
			if (ret)
				return ret;
			if (rb_now_ns() - start > e->cfg.timeout_s * NS_PER_S) {
				rb_err("only %llu of the peer's %llu WRITE_WITH_IMM completions arrived "
				       "(--timeout)",
				       (unsigned long long)got, (unsigned long long)res->peer.msgs);
				return -ETIMEDOUT;
			}
		}
		if (got != res->peer.msgs) {
			rb_err("%llu WRITE_WITH_IMM completions arrived, the peer sent %llu messages",
			       (unsigned long long)got, (unsigned long long)res->peer.msgs);
			return -EPROTO;
		}
	}
	return 0;
}

static int run_plain(struct bw_engine *e, struct bw_result *res)
{
	memset(&res->own, 0, sizeof(res->own));
	if (e->cfg.sending) {
		int ret;
		start_sending(e);
		for (unsigned i = 0; i < e->c->nqps; i++)
			e->q[i].sq.target = e->cfg.duration_s > 0 ? UINT64_MAX : e->cfg.iters;
		ret = send_until_targets(e);
		if (ret)
			return ret;
		own_result(e, res);
	}
	return exchange_done(e, res);
}

/* Checks the peer's window in our target buffer; fills the verdict. */
static int check_window(struct bw_engine *e, uint64_t peer_base, uint32_t n, struct rb_verdict *v)
{
	memset(v, 0, sizeof(*v));
	if (!n)
		return 0; /* an empty window (a side that only sends has no target buffer) */
	if (e->cfg.imm) {
		/* Every WRITE_WITH_IMM of the window must have completed here first. */
		uint64_t start = rb_now_ns();
		for (unsigned qi = 0; qi < e->c->nqps; qi++) {
			while (e->q[qi].step_rgot < peer_base + n) {
				int ret = service_recv(e);
				if (ret >= 0)
					ret = tick(e);
				if (ret)
					return ret;
				if (rb_now_ns() - start > e->cfg.timeout_s * NS_PER_S) {
					rb_err("verify: QP %u received %llu of %llu messages (--timeout)", qi,
					       (unsigned long long)e->q[qi].step_rgot,
					       (unsigned long long)(peer_base + n));
					return -ETIMEDOUT;
				}
			}
		}
	}
	for (unsigned qi = 0; qi < e->c->nqps; qi++) {
		const uint8_t *dst = rb_conn_dst(e->c, qi);
		for (uint32_t j = 0; j < n; j++) {
			uint64_t seq = peer_base + 1 + j;
			uint64_t off = ((seq - 1) % e->cfg.slots) * e->size;
			size_t bad;
			uint8_t exp, got;
			int ret = tick(e); /* a big window takes a while: keep the peer informed */

			if (ret)
				return ret;
			if (!rb_pattern_check(dst + off, e->size, rb_pattern_tag(qi, seq), &bad, &exp, &got))
				continue;
			if (v->bad++ == 0) {
				v->qp = qi;
				v->msg = seq;
				v->offset = bad;
				v->expected = exp;
				v->got = got;
			}
		}
	}
	return 0;
}

static int run_verified(struct bw_engine *e, struct bw_result *res)
{
	bool my_last = !e->cfg.sending, peer_last = false;
	uint64_t base = 0, peer_base = 0;
	uint32_t w = 0;
	int ret;

	memset(&res->own, 0, sizeof(res->own));
	if (e->cfg.sending)
		start_sending(e);
	do {
		uint8_t buf[64];
		struct rb_wbuf wb = {buf, 0, sizeof(buf), false};
		struct rb_window mine = {w, 0, 1};
		struct rb_verdict verdict;

		if (!my_last) {
			uint64_t n = e->cfg.slots;
			if (e->cfg.duration_s <= 0 && e->cfg.iters - base < n)
				n = e->cfg.iters - base;
			for (unsigned i = 0; i < e->c->nqps; i++)
				e->q[i].sq.target = base + n;
			ret = send_until_targets(e);
			if (ret)
				return ret;
			base += n;
			mine.msgs_per_qp = (uint32_t)n;
			my_last = e->cfg.duration_s > 0 ? rb_now_ns() >= e->t_stop : base >= e->cfg.iters;
		}
		mine.last = my_last;
		rb_window_encode(&wb, &mine);
		ret = send_frame(e, RB_MSG_WINDOW, &wb);
		if (!ret)
			ret = wait_for(e, &e->have_window, "WINDOW");
		if (ret)
			return ret;
		e->have_window = false;
		if (e->peer_window.index != w || e->peer_window.msgs_per_qp > e->cfg.slots ||
		    (e->peer_window.msgs_per_qp && !e->cfg.receiving)) {
			rb_err(
			    "protocol error: window %u/%u messages from %s, expected window %u of at most %u",
			    e->peer_window.index, e->peer_window.msgs_per_qp, e->o->peer, w,
			    e->cfg.receiving ? e->cfg.slots : 0);
			return -EPROTO;
		}
		peer_last = e->peer_window.last;
		ret = check_window(e, peer_base, e->peer_window.msgs_per_qp, &verdict);
		if (ret)
			return ret;
		peer_base += e->peer_window.msgs_per_qp;
		wb.len = 0;
		rb_verdict_encode(&wb, &verdict);
		ret = send_frame(e, RB_MSG_VERIFY, &wb);
		if (!ret)
			ret = wait_for(e, &e->have_verdict, "VERIFY");
		if (ret)
			return ret;
		e->have_verdict = false;
		if (verdict.bad) {
			rb_err("verify: %llu message(s) of %llu-byte window %u arrived wrong; first: QP %u "
			       "message %llu "
			       "byte %llu expected 0x%02x got 0x%02x",
			       (unsigned long long)verdict.bad, (unsigned long long)e->size, w, verdict.qp,
			       (unsigned long long)verdict.msg, (unsigned long long)verdict.offset,
			       verdict.expected, verdict.got);
			return -EIO;
		}
		if (e->peer_verdict.bad) {
			rb_err("verify: the peer found %llu message(s) we wrote wrong; first: QP %u message "
			       "%llu "
			       "byte %llu expected 0x%02x got 0x%02x",
			       (unsigned long long)e->peer_verdict.bad, e->peer_verdict.qp,
			       (unsigned long long)e->peer_verdict.msg,
			       (unsigned long long)e->peer_verdict.offset, e->peer_verdict.expected,
			       e->peer_verdict.got);
			return -EIO;
		}
		w++;
	} while (!(my_last && peer_last));
	if (e->cfg.sending)
		own_result(e, res);
	return exchange_done(e, res);
}

uint32_t bw_rx_depth(uint32_t tx_depth)
{
	return (tx_depth + RECV_CHUNK - 1) / RECV_CHUNK * RECV_CHUNK + RECV_CHUNK;
}

uint32_t bw_sig_every(uint32_t cq_mod, uint64_t size)
{
	if (size * cq_mod > SIGNAL_BYTES)
		return size >= SIGNAL_BYTES ? 1 : (uint32_t)(SIGNAL_BYTES / size);
	return cq_mod;
}

int bw_engine_step(struct bw_engine *e, uint64_t size, uint64_t seq, struct bw_result *res)
{
	uint64_t cpu0, wall0, wall;
	int ret;

	memset(res, 0, sizeof(*res));
	e->size = size;
	e->sig_every = bw_sig_every(e->cfg.cq_mod, size);
	res->cq_mod = e->sig_every;
	e->done_msgs = e->posted_msgs = 0;
	e->stopping = false;
	e->have_done = e->have_window = e->have_verdict = false;
	for (unsigned i = 0; i < e->c->nqps; i++) {
		rb_sendq_init(&e->q[i].sq, e->cfg.tx_depth, e->cfg.post_list, e->sig_every);
		e->q[i].stalled = false;
		e->q[i].step_rgot = 0;
	}
	ret = rb_oob_barrier(e->o, seq);
	if (ret)
		return ret;
	e->clk_last = rb_now_ns();
	e->clk_stride = 1;
	e->clk_count = 0;
	e->hk_next = e->clk_last + HK_PERIOD_NS;
	e->last_beat = e->clk_last;
	e->beat = true;
	cpu0 = rb_cpu_ns();
	wall0 = rb_now_ns();
	ret = e->cfg.verify ? run_verified(e, res) : run_plain(e, res);
	if (ret)
		return ret;
	wall = rb_now_ns() - wall0;
	res->cpu_pct = wall ? 100.0 * (double)(rb_cpu_ns() - cpu0) / (double)wall : 0;
	res->msgs = res->own.msgs + res->peer.msgs;
	res->bytes = res->own.bytes + res->peer.bytes;
	res->elapsed_ns =
	    res->own.elapsed_ns > res->peer.elapsed_ns ? res->own.elapsed_ns : res->peer.elapsed_ns;
	/* Two directions: each one's peak, summed (each is bounded by its direction's link). */
	res->peak_gbps = res->own.peak_gbps + res->peer.peak_gbps;
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
	e->beat_ns = cfg->timeout_s * NS_PER_S / 4 < BEAT_NS ? cfg->timeout_s * NS_PER_S / 4 : BEAT_NS;
	if (cfg->receiving && cfg->imm) {
		for (unsigned qi = 0; qi < c->nqps; qi++) {
			for (uint32_t n = 0; n + RECV_CHUNK <= cfg->rx_depth; n += RECV_CHUNK) {
				if (post_recvs(e, qi, RECV_CHUNK)) {
					bw_engine_free(e);
					return NULL;
				}
			}
		}
	}
	return e;
}

void bw_engine_free(struct bw_engine *e)
{
	if (e)
		free(e->q);
	free(e);
}

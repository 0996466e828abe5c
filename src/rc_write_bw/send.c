/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The engine's send side, one post and one poll at a time: the step's WR chain,
 * WRITEs posted per the planner (sendq.h) through ibv_wr_* or ibv_post_send with
 * --verify's pattern and test faults staged, and send completions counted. The loops
 * around them are core.c's.
 */
#include "send.h"
#include "state.h"

#include "verbs/verbs.h"
#include "base/base.h"
#include "measure/measure.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#define SEQ_BITS      48
#define SEQ_MASK      ((1ull << SEQ_BITS) - 1)
#define MAX_POST_LIST RB_SENDQ_MAX_POST_LIST

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
struct rb_sendq_plan bw_next_plan(struct bw_engine *e, unsigned qi)
{
	struct qstate *q = &e->q[qi];
	struct rb_sendq_plan p = rb_sendq_plan(&q->sq);

	/* --rate_limit: a whole post list (at most a burst) once the bucket holds it. */
	if (p.n && e->pace.per_ns > 0 && rb_pace_allow(&e->pace, rb_now_ns(), p.n) < p.n)
		p.n = 0;
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

static void build_chain(const struct bw_engine *e, struct bw_poster *pt)
{
	memset(pt->wr, 0, sizeof(pt->wr));
	memset(pt->sge, 0, sizeof(pt->sge));
	for (unsigned i = 0; i < MAX_POST_LIST; i++) {
		pt->sge[i].length = (uint32_t)e->size;
		pt->wr[i].sg_list = &pt->sge[i];
		pt->wr[i].num_sge = 1;
		pt->wr[i].opcode = e->cfg.imm ? IBV_WR_RDMA_WRITE_WITH_IMM : IBV_WR_RDMA_WRITE;
		pt->wr[i].next = i + 1 < MAX_POST_LIST ? &pt->wr[i + 1] : NULL;
	}
}

/* The step's WR chains: what every message of the step shares. */
void bw_build_wrs(struct bw_engine *e)
{
	e->wr_flags = e->size <= e->cfg.inline_bytes ? IBV_SEND_INLINE : 0;
	build_chain(e, &e->solo);
	for (unsigned t = 0; t < bw_workers_n(e); t++)
		build_chain(e, bw_worker(e, t));
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

static void posted(struct bw_poster *pt, unsigned qi, const struct rb_sendq_plan *p)
{
	rb_sendq_posted(&pt->e->q[qi].sq, p);
	if (!pt->worker) {
		pt->e->posted_msgs += p->n;
		return;
	}
	pt->posted += p->n;
	atomic_store_explicit(&pt->pub_posted, pt->posted, memory_order_release);
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
int bw_post_writes(struct bw_poster *pt, unsigned qi, const struct rb_sendq_plan *p)
{
	struct bw_engine *e = pt->e;
	struct ibv_qp_ex *qpx = e->c->qpx[qi];
	struct ibv_sge *sge = pt->sge;
	struct ibv_send_wr *wr = pt->wr, *bad;
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
		posted(pt, qi, p);
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
	posted(pt, qi, p);
	return 0;
}

/* Consumes pt's send completions; returns how many, or -errno. */
int bw_poll_sends(struct bw_poster *pt)
{
	struct bw_engine *e = pt->e;
	struct ibv_wc wc[RB_CQ_BATCH];
	int n = rb_cq_poll(pt->cq, wc, RB_CQ_BATCH, e->cfg.imm ? "RDMA_WRITE_WITH_IMM" : "RDMA_WRITE",
	                   pt->err, sizeof(pt->err));
	uint64_t done = 0, now;

	if (!pt->worker)
		e->polled = true;
	if (n <= 0)
		return n;
	now = rb_now_ns();
	for (int i = 0; i < n; i++) {
		unsigned qi = (unsigned)(wc[i].wr_id >> SEQ_BITS);
		uint64_t seq = wc[i].wr_id & SEQ_MASK;
		done += rb_sendq_complete(&e->q[qi].sq, seq);
	}
	if (!pt->worker) {
		e->done_msgs += done;
		e->t_last = now;
		e->last_progress = now;
		return n;
	}
	pt->done += done;
	atomic_store_explicit(&pt->pub_last, now, memory_order_relaxed);
	atomic_store_explicit(&pt->pub_done, pt->done, memory_order_release);
	return n;
}

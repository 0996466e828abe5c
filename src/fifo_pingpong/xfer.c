/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fifo_pingpong's transfer layer: the receiver's CTS posts and receive accounting,
 * the sender's CTS checks and data WRs (laid out by plan.c), send completions of
 * every kind, --flush, and the clearing of CTS slots a -D step left unused.
 */
#include "xfer.h"
#include "account.h"

#include "verbs/verbs.h"
#include "base/base.h"
#include "measure/measure.h"
#include "run/run.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

/* Payload buffers as the NIC addresses them (a device address for GPU memory). */
static uint8_t *dst(const struct fp *f, uint64_t off)
{
	return (uint8_t *)f->c->dst.addr + off;
}

static uint8_t *src(const struct fp *f, uint64_t off)
{
	return (uint8_t *)f->c->src.addr + off;
}

/* The FIFOs: host memory the CPU reads and writes. */
static uint8_t *ctl_dst(const struct fp *f, uint64_t off)
{
	return (uint8_t *)f->c->ctl_dst.addr + off;
}

static uint8_t *ctl_src(const struct fp *f, uint64_t off)
{
	return (uint8_t *)f->c->ctl_src.addr + off;
}

/* Request r of message seq: its buffer's offset, the same in either region. */
static uint64_t buf_off(const struct fp *f, uint64_t seq, unsigned r)
{
	return f->data_off + ((seq % f->opt.window) * f->opt.multi_recv + r) * f->slot_bytes;
}

/* Message seq's FIFO slot, and a slot's bytes. */
static uint64_t slot_of(const struct fp *f, uint64_t seq)
{
	return seq & (f->slots - 1);
}

static uint32_t slot_bytes(const struct fp *f)
{
	return f->opt.multi_recv * FIFO_ELEM_BYTES;
}

/* Where the slot of zeros that clears a CTS slot is staged. */
static uint64_t zeros_off(const struct fp *f)
{
	return f->szs_off + fifo_sizes_bytes(f->slots);
}

/* Entry k of data QP qi's ring of pending messages. */
static uint64_t *qmsg(const struct fp *f, unsigned qi, uint64_t k)
{
	return &f->qmsg[(size_t)qi * f->qcap + (k & (f->qcap - 1))];
}

static unsigned qps_used(const struct fp *f)
{
	return f->opt.split ? f->opt.qps : 1;
}

/* The QP message seq starts on: each message moves on by the QPs it uses, on both sides alike. */
static unsigned first_qp(const struct fp *f, uint64_t seq)
{
	return (unsigned)((seq * qps_used(f)) % f->opt.qps);
}

static struct ibv_qp *cts_qp(const struct fp *f)
{
	return f->c->qp[f->qp0 + f->opt.qps];
}

static const struct rb_qpinfo *peer(const struct fp *f)
{
	return &f->c->remote.qp[0];
}

/* Request r of message seq of this channel: a payload that lands in another channel's slots fails. */
static uint64_t pattern_tag(const struct fp *f, uint64_t seq, unsigned r)
{
	return rb_pattern_tag(f->chan * FIFO_MAX_RECVS + r, seq);
}

int fp_xfer_init(struct fp *f)
{
	memset(&f->rx, 0, sizeof(f->rx));
	memset(&f->tx, 0, sizeof(f->tx));
	f->rx.stop = UINT64_MAX;
	memset(ctl_src(f, zeros_off(f)), 0, slot_bytes(f)); /* the zeros that clear a slot */
	return 0;
}

/* ---------------------------------------------------------------- receiver */

static int post_recv(struct fp *f, unsigned qi)
{
	struct ibv_recv_wr wr = {.wr_id = qi}, *bad;
	int ret = ibv_post_recv(f->c->qp[f->qp0 + qi], &wr, &bad);

	if (ret) {
		rb_err("ibv_post_recv on QP %u failed: %s", qi, strerror(ret));
		return -ret;
	}
	f->rx.posted[qi]++;
	return 0;
}

/* The CTS element of request r of message seq; a test fault where RB_TEST_FAULT asks for one. */
static void cts_elem(const struct fp *f, uint64_t seq, unsigned r, struct fifo_elem *e)
{
	uint64_t m = seq - f->rx.first + 1;

	*e = (struct fifo_elem){
	    .addr = (uint64_t)(uintptr_t)dst(f, buf_off(f, seq, r)),
	    .size = f->size,
	    .rkeys = {f->c->dst_mr.mr->rkey},
	    .nreqs = f->opt.multi_recv,
	    .tag = (uint32_t)f->tag,
	    .idx = seq + 1,
	};
	if (rb_fault_at(FP_FAULT_TAG, f->chan, m))
		e->tag ^= 0x5a5a;
	if (rb_fault_at(FP_FAULT_ADDR, f->chan, m))
		e->addr = 0;
	if (rb_fault_at(FP_FAULT_SIZE, f->chan, m))
		e->size = f->data_bytes + 1;
	if (rb_fault_at(FP_FAULT_RKEY, f->chan, m))
		e->rkeys[0] = 0;
}

/* RDMA WRITE of len bytes at local (in the control source region) into the peer's control region. */
static int write_peer(const struct fp *f, struct ibv_qp *qp, const void *local, uint64_t remote_off,
                      uint32_t len, uint64_t wr_id, bool signaled, bool inl)
{
	struct ibv_sge sge = {(uint64_t)(uintptr_t)local, len, f->c->ctl_src_mr.mr->lkey};
	struct ibv_send_wr wr =
	                       {
	                           .wr_id = wr_id,
	                           .sg_list = &sge,
	                           .num_sge = 1,
	                           .opcode = IBV_WR_RDMA_WRITE,
	                           .send_flags =
	                               (signaled ? IBV_SEND_SIGNALED : 0) | (inl ? IBV_SEND_INLINE : 0),
	                           .wr.rdma = {f->c->remote.ctl.addr + remote_off, f->c->remote.ctl.rkey},
	                       },
	                   *bad;
	int ret = ibv_post_send(qp, &wr, &bad);

	if (ret)
		rb_err("ibv_post_send (RDMA_WRITE of %u bytes to the peer's FIFO) failed: %s", len,
		       strerror(ret));
	return -ret;
}

int fp_rx_post(struct fp *f)
{
	uint64_t seq = f->rx.tail, slot = slot_of(f, seq);
	unsigned nq = qps_used(f), first = first_qp(f, seq), n = f->opt.multi_recv;
	uint8_t *stage = ctl_src(f, f->cts_off + slot * slot_bytes(f));
	int ret;

	for (unsigned q = 0; q < nq; q++) {
		unsigned qi = (first + q) % f->opt.qps;
		uint64_t queued = f->rx.qtail[qi] - f->rx.qhead[qi];

		if (queued >= f->qcap) {
			rb_err(
			    "internal error: message %llu would be QP %u's pending message %llu (at most %u)",
			    (unsigned long long)seq, qi, (unsigned long long)queued + 1, f->qcap);
			return -EPROTO;
		}
		*qmsg(f, qi, f->rx.qtail[qi]++) = seq;
		/* Receives a cancelled -D message left posted serve the next ones. */
		if (f->rx.posted[qi] <= queued && (ret = post_recv(f, qi)))
			return ret;
	}
	f->rx.left[seq % WINDOW_MAX] = nq;
	f->rx.tail++;
	if (rb_fault_at(FP_FAULT_CTS_STOP, f->chan, seq - f->rx.first + 1))
		f->rx.cts_off = true;
	if (f->rx.cts_off)
		return 0;
	fp_cts_hold(f); /* RB_TEST_FAULT=cts-delay: a receiver slow to clear the send */
	for (unsigned r = 0; r < n; r++) {
		struct fifo_elem e;
		cts_elem(f, seq, r, &e);
		fifo_elem_encode(stage + r * FIFO_ELEM_BYTES, &e);
	}
	f->rx.t_cts_hand = f->acct ? rb_now_ns() : 0; /* --account: the CTS write handed to the NIC */
	return write_peer(f, cts_qp(f), stage, f->fifo_off + slot * slot_bytes(f), slot_bytes(f),
	                  WR_ID(WR_CTS, seq), seq % CTS_SIGNAL == CTS_SIGNAL - 1, f->opt.cts_inline);
}

/* --flush: a 1-byte RDMA READ of the message's first buffer on the QP connected to itself. */
static int flush(struct fp *f, uint64_t seq)
{
	uint64_t t0 = rb_now_ns();
	int ret = rb_readflush_post(&f->flush, (uint64_t)(uintptr_t)dst(f, buf_off(f, seq, 0)),
	                            f->c->dst_mr.mr->rkey, WR_ID(WR_FLUSH, seq));

	if (ret)
		return ret;
	f->flush_done = false;
	while (!f->flush_done) {
		uint64_t now = rb_now_ns();
		if ((ret = fp_tx_poll(f)) < 0 || (ret = fp_left(f)))
			return ret;
		if (now - t0 > (uint64_t)f->opt.timeout_s * RB_NS_PER_S)
			return fp_timeout(f, "the flush READ's completion");
	}
	f->flushes++;
	rb_dbg("message %llu: flush READ complete", (unsigned long long)(seq - f->rx.first + 1));
	return 0;
}

/*
 * A message all of whose completions came: its sizes, its flush, its payload. The
 * flush comes before the check reads the payload: like NCCL's consumer, the check
 * must see only bytes the flush made visible.
 */
static int rx_complete(struct fp *f, uint64_t seq)
{
	unsigned n = f->opt.multi_recv;
	const uint8_t *sz = ctl_dst(f, f->sizes_off + slot_of(f, seq) * SIZES_SLOT_BYTES);
	int ret;

	for (unsigned r = 0; n > 1 && r < n; r++) {
		uint32_t got = fifo_sizes_get(sz, r);
		if (got != f->size) {
			rb_err("message %llu request %u: the sizes FIFO says %u bytes, expected %llu",
			       (unsigned long long)seq, r, got, (unsigned long long)f->size);
			return -EIO;
		}
	}
	if (f->opt.flush && (ret = flush(f, seq)) != 0)
		return ret;
	for (unsigned r = 0; f->opt.verify && r < n; r++) {
		size_t off;
		uint8_t want, got, *view = rb_buf_view(&f->c->dst, buf_off(f, seq, r));

		/* GPU memory: the payload comes to the host view first (free for host memory). */
		if (!view)
			return -ENOMEM;
		if ((ret = rb_conn_pull_dst(f->c, buf_off(f, seq, r), f->size, f->opt.timeout_s)) != 0)
			return ret;
		if (rb_pattern_check(view, f->size, pattern_tag(f, seq, r), &off, &want, &got)) {
			rb_err("verify%s: message %llu request %u byte %zu expected 0x%02x got 0x%02x",
			       f->where, (unsigned long long)(seq - f->rx.first + 1), r, off, want, got);
			return -EIO;
		}
	}
	if (f->opt.verify)
		rb_dbg("message %llu: payload checked", (unsigned long long)(seq - f->rx.first + 1));
	return 0;
}

/* One receive completion: the oldest pending message of its QP gets it. */
static int rx_take(struct fp *f, const struct ibv_wc *wc)
{
	/* Receives are posted with their QP's index as wr_id. */
	int qi = wc->wr_id < f->opt.qps ? (int)wc->wr_id : -1;
	uint32_t imm = ntohl(wc->imm_data);
	uint64_t seq;

	if (qi < 0 || wc->opcode != IBV_WC_RECV_RDMA_WITH_IMM || f->rx.qhead[qi] == f->rx.qtail[qi]) {
		rb_err("unexpected %s completion on QPN 0x%06x", rb_wc_opcode_name(wc->opcode), wc->qp_num);
		return -EPROTO;
	}
	seq = *qmsg(f, (unsigned)qi, f->rx.qhead[qi]++);
	f->rx.posted[qi]--;
	if (imm == STOP_IMM) {
		if (seq < f->rx.stop)
			f->rx.stop = seq;
	} else if (f->opt.multi_recv == 1 && imm != f->size) {
		rb_err("message %llu on QP %d: immediate %u, expected the size %llu", (unsigned long long)seq,
		       qi, imm, (unsigned long long)f->size);
		return -EIO;
	} else if (f->opt.multi_recv > 1 && imm != 0) {
		rb_err("message %llu on QP %d: immediate %u, expected 0 (a multi-receive)",
		       (unsigned long long)seq, qi, imm);
		return -EIO;
	}
	f->rx.left[seq % WINDOW_MAX]--;
	return 0;
}

int fp_rx_poll(struct fp *f)
{
	struct ibv_wc wc[RB_CQ_BATCH];
	int n = rb_cq_poll(f->rcq, wc, RB_CQ_BATCH, "RECV_RDMA_WITH_IMM", f->err, sizeof(f->err)), done = 0;
	uint64_t found = n > 0 ? rb_now_ns() : 0; /* t_cqe (--account): a batch is found at once */

	for (int i = 0; i < n; i++) {
		int ret = rx_take(f, &wc[i]);
		if (ret)
			return ret;
	}
	if (n < 0)
		return n;
	while (f->rx.done < f->rx.tail && !f->rx.left[f->rx.done % WINDOW_MAX] && !f->rx.stopped) {
		uint64_t seq = f->rx.done++;
		int ret;

		fp_progress(f, f->rx.t_cqe = found ? found : rb_now_ns());
		if (seq == f->rx.stop) {
			f->rx.stopped = true;
			break;
		}
		if ((ret = rx_complete(f, seq)))
			return ret;
		fp_acct_rx(f, seq);
		done++;
	}
	return done;
}

int fp_rx_cancel(struct fp *f)
{
	uint64_t from = f->rx.stop + 1, t0 = rb_now_ns();
	int ret = 0;

	/* The CTS posted past STOP: zeros over their slots (same QP, so after them), then forgotten. */
	for (uint64_t seq = from; seq < f->rx.tail && !ret; seq++)
		ret = write_peer(f, cts_qp(f), ctl_src(f, zeros_off(f)),
		                 f->fifo_off + slot_of(f, seq) * slot_bytes(f), slot_bytes(f),
		                 WR_ID(WR_CLEAR, seq), seq + 1 == f->rx.tail, false);
	if (ret || from >= f->rx.tail)
		goto forget;
	f->clear_done = false;
	while (!f->clear_done && !ret) {
		if ((ret = fp_tx_poll(f)) > 0)
			ret = 0;
		if (!ret)
			ret = fp_left(f);
		if (!ret && !f->worker &&
		    rb_now_ns() >= f->hk_next) /* the peer's word, the engine's bounds */
			ret = fp_housekeeping(f, rb_now_ns());
		if (!ret && rb_now_ns() - t0 > (uint64_t)f->opt.timeout_s * RB_NS_PER_S)
			ret = fp_timeout(f, "the clearing of unused CTS slots");
	}
forget:
	/* Their queued messages go; the receives stay posted for the next step's. */
	for (unsigned qi = 0; qi < f->opt.qps; qi++)
		while (f->rx.qtail[qi] != f->rx.qhead[qi] && *qmsg(f, qi, f->rx.qtail[qi] - 1) >= from)
			f->rx.qtail[qi]--;
	f->rx.tail = f->rx.done = from;
	f->rx.stop = UINT64_MAX;
	f->rx.stopped = false;
	return ret;
}

/* ---------------------------------------------------------------- sender */

int fp_tx_cts(struct fp *f)
{
	uint64_t idx = f->tx.head + 1, slot = slot_of(f, f->tx.head);
	const volatile uint8_t *elems = ctl_dst(f, f->fifo_off + slot * slot_bytes(f));
	struct fifo_bounds b;
	char why[192];

	if (f->tx.have_cts)
		return 1;
	if (fifo_elem_idx(elems) != idx)
		return 0;
	for (unsigned r = 0; r < f->opt.multi_recv; r++)
		if (fifo_elem_idx(elems + r * FIFO_ELEM_BYTES) != idx)
			return 0;
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
	b = (struct fifo_bounds){
	    .base = peer(f)->addr + f->data_off, /* this channel's slots only */
	    .len = f->data_bytes,
	    .rkey = peer(f)->rkey,
	    .nreqs = f->opt.multi_recv,
	    .tag = (uint32_t)f->tag,
	    .need = f->size,
	};
	for (unsigned r = 0; r < f->opt.multi_recv; r++) {
		uint8_t copy[FIFO_ELEM_BYTES];

		memcpy(copy, (const uint8_t *)elems + r * FIFO_ELEM_BYTES, sizeof(copy));
		fifo_elem_decode(copy, &f->tx.cts[r]);
		if (fifo_check(&f->tx.cts[r], r, &b, why, sizeof(why))) {
			rb_err("bad clear-to-send at FIFO slot %llu (message %llu of this size)%s: %s",
			       (unsigned long long)slot, (unsigned long long)(f->tx.head - f->tx.first + 1),
			       f->where, why);
			return -EPROTO;
		}
	}
	f->tx.have_cts = true;
	return 1;
}

int fp_tx_post(struct fp *f, bool stop)
{
	uint64_t seq = f->tx.head, slot = slot_of(f, seq);
	uint64_t sizes[FIFO_MAX_RECVS];
	struct plan_cfg pc = {
	    .nqps = f->opt.qps,
	    .split = f->opt.split,
	    .ar = f->ar,
	    .ar_threshold = f->opt.ar_threshold,
	    .nreqs = stop ? 1 : f->opt.multi_recv,
	    .sizes = sizes,
	    .first = first_qp(f, seq),
	};
	struct plan_wr pw[PLAN_MAX_WRS];
	struct ibv_send_wr wr[PLAN_WRS_PER_QP], *bad;
	struct ibv_sge sge[PLAN_WRS_PER_QP];
	uint8_t *szs = ctl_src(f, f->szs_off + slot * SIZES_SLOT_BYTES);
	unsigned n, i = 0;

	for (unsigned r = 0; r < FIFO_MAX_RECVS; r++)
		sizes[r] = stop ? 0 : f->size;
	fifo_sizes_encode(szs, f->opt.multi_recv, (uint32_t)f->size);
	n = plan_message(&pc, pw);
	while (i < n) {
		unsigned qi = pw[i].qp, k = 0;
		int ret;

		for (; i < n && pw[i].qp == qi; i++, k++) {
			const struct plan_wr *p = &pw[i];
			bool payload = p->req >= 0;

			memset(&wr[k], 0, sizeof(wr[k]));
			sge[k] = (struct ibv_sge){
			    (uint64_t)(uintptr_t)(payload
			                              ? src(f, buf_off(f, seq, (unsigned)p->req) + p->offset)
			                              : szs),
			    (uint32_t)p->len, payload ? f->c->src_mr.mr->lkey : f->c->ctl_src_mr.mr->lkey};
			wr[k].sg_list = &sge[k];
			wr[k].num_sge = p->len ? 1 : 0;
			wr[k].opcode =
			    p->op == PLAN_WRITE_IMM ? IBV_WR_RDMA_WRITE_WITH_IMM : IBV_WR_RDMA_WRITE;
			wr[k].imm_data = htonl(stop ? STOP_IMM : p->imm);
			wr[k].wr_id = WR_ID(WR_DATA, seq);
			wr[k].send_flags = (p->signaled ? IBV_SEND_SIGNALED : 0) |
			                   (p->len && p->len <= f->opt.inline_bytes ? IBV_SEND_INLINE : 0);
			if (payload) {
				wr[k].wr.rdma.remote_addr = f->tx.cts[p->req].addr + p->offset;
				wr[k].wr.rdma.rkey = f->tx.cts[p->req].rkeys[0];
			} else {
				wr[k].wr.rdma.remote_addr =
				    f->c->remote.ctl.addr + f->sizes_off + slot * SIZES_SLOT_BYTES;
				wr[k].wr.rdma.rkey = f->c->remote.ctl.rkey;
			}
			wr[k].next = NULL;
			if (k)
				wr[k - 1].next = &wr[k];
		}
		if (f->acct && i == k) /* --account: the message's first WR handed to the NIC */
			f->tx.t_hand = rb_now_ns();
		ret = ibv_post_send(f->c->qp[f->qp0 + qi], wr, &bad);
		if (ret) {
			rb_err("ibv_post_send of message %llu on QP %u failed: %s", (unsigned long long)seq,
			       qi, strerror(ret));
			return -ret;
		}
	}
	f->tx.left[seq % WINDOW_MAX] = qps_used(f);
	f->tx.t_post[seq % WINDOW_MAX] = rb_now_ns();
	f->tx.head++;
	f->tx.have_cts = false;
	return 0;
}

int fp_tx_fill(struct fp *f)
{
	for (unsigned r = 0; f->opt.verify && r < f->opt.multi_recv; r++) {
		uint64_t off = buf_off(f, f->tx.head, r);
		uint8_t *view = rb_buf_view(&f->c->src, off);
		int ret;

		if (!view)
			return -ENOMEM;
		rb_pattern_fill(view, f->size, pattern_tag(f, f->tx.head, r));
		/* Test-only (RB_TEST_FAULT=corrupt:qp=CHANNEL x 8 + REQUEST:msg=N[:byte=B]): one byte
		 * flipped. */
		if (rb_fault_at(RB_FAULT_CORRUPT, f->chan * FIFO_MAX_RECVS + r, f->tx.head - f->tx.first + 1))
			view[rb_fault_byte(f->size)] ^= 0xff;
		/* GPU memory gets it by copy (free for host memory). */
		if ((ret = rb_buf_push(&f->c->src, off, f->size)) != 0)
			return ret;
	}
	return 0;
}

int fp_tx_poll(struct fp *f)
{
	struct ibv_wc wc[RB_CQ_BATCH];
	int n = rb_cq_poll(f->scq, wc, RB_CQ_BATCH, NULL, f->err, sizeof(f->err)), done = 0;
	uint64_t now = 0;

	if (n < 0)
		return n;
	for (int i = 0; i < n; i++) {
		uint64_t id = wc[i].wr_id & ((1ull << 60) - 1);

		switch (WR_KIND(wc[i].wr_id)) {
		case WR_DATA:
			if (id >= f->tx.head || id < f->tx.done || !f->tx.left[id % WINDOW_MAX]) {
				rb_err("send completion for message %llu, which is not in flight",
				       (unsigned long long)id);
				return -EPROTO;
			}
			f->tx.left[id % WINDOW_MAX]--;
			break;
		case WR_FLUSH: f->flush_done = true; break;
		case WR_CLEAR: f->clear_done = true; break;
		default: break; /* a signaled CTS: its queue drained */
		}
	}
	while (f->tx.done < f->tx.head && !f->tx.left[f->tx.done % WINDOW_MAX]) {
		if (!now)
			now = rb_now_ns();
		f->tx.post_cqe_ns += now - f->tx.t_post[f->tx.done % WINDOW_MAX];
		f->tx.t_last = now;
		f->tx.done++;
		fp_progress(f, now);
		done++;
	}
	return done;
}

/* ---------------------------------------------------------------- waits */
void fp_progress(struct fp *f, uint64_t now)
{
	f->last_progress = now;
	f->progressed++;
	if (f->worker)
		rb_crew_beat(f->crew, f->chan, now);
}

int fp_left(const struct fp *f)
{
	return f->worker && rb_crew_stop(f->crew) == 2 ? -ECANCELED : 0;
}

int fp_timeout(struct fp *f, const char *what)
{
	rb_err("no %s for %u s%s at FIFO slot %llu (sent %llu, received %llu messages of %llu bytes) "
	       "(--timeout)",
	       what, f->opt.timeout_s, f->where, (unsigned long long)slot_of(f, f->tx.head),
	       (unsigned long long)(f->tx.done - f->tx.first), (unsigned long long)(f->rx.done - f->rx.first),
	       (unsigned long long)f->size);
	return -ETIMEDOUT;
}

int fp_housekeeping(struct fp *f, uint64_t now)
{
	struct rb_frame fr;
	uint8_t byte;
	int ret;
	uint64_t gap = rb_cpuwait_gap(&f->hk_turn, now, 10 * 1000000ull);

	/*
	 * This side not running is no stall of the peer's (a frozen or starved host). With a
	 * crew, channel 0's progress stamp is its worker's to write, not this thread's.
	 */
	if (!f->worker)
		f->last_progress = f->last_progress + gap < now ? f->last_progress + gap : now;
	f->away_ns += gap;
	f->hk_next = now + 10 * 1000000ull;
	if ((ret = rb_check_stop()) || (ret = rb_async_poll(&f->c->dev)))
		return ret;
	if (f->bw) /* a bandwidth step: the engine's frames, heartbeat and -D deadline */
		return rb_bw_tend(f->bw, 0);
	if (f->pp.have_summary)
		return 0;
	ret = rb_oob_readable(f->o, 0);
	if (ret <= 0)
		return ret;
	if (recv(f->o->fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT) == 0) {
		rb_err("peer %s closed the connection in the middle of %llu-byte messages", f->o->peer,
		       (unsigned long long)f->size);
		return -ECONNRESET;
	}
	ret = rb_oob_recv(f->o, &fr, 1000);
	if (ret)
		return ret;
	if (fr.type == RB_MSG_LATSTATS && f->pp_mode && rb_pp_summary_due(&f->pp, f->echoed))
		return rb_pp_take_summary(&f->pp, &fr, f->o->peer);
	rb_err("protocol error: %s frame from %s in the middle of %llu-byte messages", rb_msg_name(fr.type),
	       f->o->peer, (unsigned long long)f->size);
	return -EPROTO;
}

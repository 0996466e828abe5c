/* SPDX-License-Identifier: BSD-2-Clause */
/* The engine's receive side: WRITE_WITH_IMM receives posted, consumed and counted. */
#include "recv.h"
#include "state.h"

#include "verbs/verbs.h"
#include "base/base.h"

#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#define RECV_CHUNK 16
#define RECV_DRAIN 64 /* receive batches one bw_service_recv may take */

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

/*
 * The refill batch: the queue is topped up to rx_depth once this many receives
 * were consumed: RECV_CHUNK, or an eighth of a smaller -r (1 for -r below 8).
 */
static unsigned refill_at(const struct bw_engine *e)
{
	unsigned n = (e->cfg.rx_depth + 7) / 8;
	return n < RECV_CHUNK ? n : RECV_CHUNK;
}

/* Posts receives on QP qi until rx_depth are outstanding, RECV_CHUNK per call to the device. */
static int top_up(struct bw_engine *e, unsigned qi)
{
	struct qstate *q = &e->q[qi];

	while (q->rposted - q->rgot < e->cfg.rx_depth) {
		uint64_t want = e->cfg.rx_depth - (q->rposted - q->rgot);
		int ret = post_recvs(e, qi, want < RECV_CHUNK ? (unsigned)want : RECV_CHUNK);
		if (ret)
			return ret;
	}
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
		if (q->rposted - q->rgot + refill_at(e) <= e->cfg.rx_depth) {
			int ret = top_up(e, (unsigned)qi);
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
int bw_service_recv(struct bw_engine *e)
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

uint32_t bw_rx_depth(uint32_t tx_depth)
{
	return (tx_depth + RECV_CHUNK - 1) / RECV_CHUNK * RECV_CHUNK + RECV_CHUNK;
}

/* Every receive the peer can need posted on every QP, before the first step. */
int bw_recv_init(struct bw_engine *e)
{
	for (unsigned qi = 0; qi < e->c->nqps; qi++) {
		int ret = top_up(e, qi);
		if (ret)
			return ret;
	}
	return 0;
}

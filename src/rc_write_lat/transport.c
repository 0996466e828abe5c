/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rc_write_lat's transport for the ping-pong engine (pingpong.h): one RC QP, exactly
 * one message in flight. The client writes into the server's buffer, the server sees
 * it arrive (wait.c) and writes back, the client sees that arrive.
 *
 * Only the post and the wait for the reply sit between the engine's timestamps
 * (ping), and with --account the stamps of each (account.h). Filling and checking payloads (--verify),
 * re-posting receives, re-arming the CQ, reaping send completions and the clock-driven checks happen in ready
 * and after, between samples.
 */
#include "transport.h"
#include "wait.h"

#include "verbs/verbs.h"
#include "base/base.h"
#include "measure/measure.h"

#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

static int post_recvs(struct lat *l, unsigned n)
{
	struct ibv_recv_wr wr[RX_DEPTH], *bad;
	int ret;

	for (unsigned i = 0; i < n; i++) {
		memset(&wr[i], 0, sizeof(wr[i]));
		wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
	}
	ret = ibv_post_recv(l->c->qp[0], wr, &bad);
	if (ret) {
		rb_err("ibv_post_recv failed: %s", strerror(ret));
		return -ret;
	}
	l->rposted += n;
	return 0;
}

int lat_ready_qp(struct lat *l)
{
	int ret = l->opt.event ? rb_nonblocking(l->c->chan->fd, "the completion channel") : 0;

	if (!ret && l->opt.imm)
		ret = post_recvs(l, RX_DEPTH);
	l->next_hk = rb_now_ns() + HK_NS;
	return ret;
}

/*
 * What message i needs before it is posted, outside the timed round trip: its
 * pattern (--verify), its test fault, receives to land in, the CQ armed.
 */
static int prepare(struct lat *l, uint64_t i)
{
	struct rb_buf *b = &l->c->src;
	bool touch;
	uint8_t *p;
	int ret;

	l->fault = rb_fault_at(rb_fault_kind(), 0, i) ? rb_fault_kind() : RB_FAULT_NONE;
	touch = l->opt.verify || l->fault == RB_FAULT_CORRUPT;
	if (touch && !(p = rb_buf_view(b, lat_slot(l, i))))
		return -ENOMEM;
	if (l->opt.verify)
		rb_pattern_fill(p, l->size - 1, rb_pattern_tag(0, i));
	if (l->fault == RB_FAULT_CORRUPT && l->size > 1)
		p[rb_fault_byte(l->size - 1)] ^= 0xff;
	/* GPU memory: the marker goes across with the payload (post_write cannot write it there). */
	if (touch && b->kind != RB_MEM_HOST) {
		p[l->size - 1] = lat_marker(i);
		if ((ret = rb_buf_push(b, lat_slot(l, i), l->size)) != 0)
			return ret;
	}
	if (l->opt.imm && l->rposted - l->rgot <= RX_DEPTH / 2 && (ret = post_recvs(l, RX_DEPTH / 2)) != 0)
		return ret;
	return l->opt.event ? lat_arm(l) : 0;
}

/* The step's WRITE: what every message of it shares. */
static void build_wr(struct lat *l)
{
	memset(&l->wr, 0, sizeof(l->wr));
	l->sge.length = (uint32_t)l->size;
	l->sge.lkey = l->c->src_mr.mr->lkey;
	l->wr.sg_list = &l->sge;
	l->wr.num_sge = 1;
	l->wr.opcode = l->opt.imm ? IBV_WR_RDMA_WRITE_WITH_IMM : IBV_WR_RDMA_WRITE;
}

/* Message i (or the stop message): its last byte is the arrival marker. */
static int post_write(struct lat *l, uint64_t i, uint8_t mark, uint32_t imm)
{
	size_t off = lat_slot(l, i);
	uint8_t *src = (uint8_t *)l->c->src.addr + off;
	struct ibv_send_wr *wr = &l->wr, *bad;
	int ret;

	if (l->c->src.kind == RB_MEM_HOST)
		src[l->size - 1] = mark; /* GPU memory: arrival is the completion (--write-with-imm) */
	l->sge.addr = (uintptr_t)src;
	wr->wr_id = l->posted + 1;
	wr->imm_data = htonl(imm + (l->fault == RB_FAULT_IMM_DROP) - (l->fault == RB_FAULT_IMM_DUP));
	wr->send_flags = ((l->posted + 1) % SIG_EVERY == 0 ? IBV_SEND_SIGNALED : 0) |
	                 (l->size <= l->opt.inline_bytes ? IBV_SEND_INLINE : 0);
	wr->wr.rdma.remote_addr = l->c->remote.qp[0].addr + off;
	wr->wr.rdma.rkey = l->fault == RB_FAULT_BAD_RKEY ? ~l->c->remote.qp[0].rkey : l->c->remote.qp[0].rkey;
	if (l->acct)
		l->t_hand = rb_now_ns();
	ret = ibv_post_send(l->c->qp[0], wr, &bad);
	if (l->acct)
		l->t_ret = rb_now_ns();
	if (ret) {
		rb_err("ibv_post_send failed at iteration %llu: %s", (unsigned long long)l->iter,
		       strerror(ret));
		return -ret;
	}
	l->posted++;
	return 0;
}

/* --verify: the whole of the peer's message i, after its arrival was timed. */
static int check_payload(struct lat *l, uint64_t i)
{
	const uint8_t *p;
	size_t bad;
	uint8_t want, got;
	int ret;

	if (!l->opt.verify)
		return 0;
	if (!(p = rb_buf_view(&l->c->dst, lat_slot(l, i))))
		return -ENOMEM;
	if ((ret = rb_conn_pull_dst(l->c, lat_slot(l, i), l->size, l->opt.timeout_s)) != 0)
		return ret;
	if (!rb_pattern_check(p, l->size - 1, rb_pattern_tag(0, i), &bad, &want, &got)) {
		if (p[l->size - 1] == lat_marker(i))
			return 0;
		bad = l->size - 1;
		want = lat_marker(i);
		got = p[bad];
	}
	rb_err("verify: message %llu of %llu bytes from %s differs at byte %zu: expected 0x%02x, received "
	       "0x%02x",
	       (unsigned long long)i, (unsigned long long)l->size, l->o->peer, bad, want, got);
	return -EIO;
}

/* Send completions, then the clock-driven checks when they are due: between samples. */
static int tidy(struct lat *l)
{
	uint64_t now;
	int ret = lat_reap_sends(l);

	if (!ret && (now = rb_now_ns()) >= l->next_hk)
		ret = lat_housekeep(l, now);
	return ret;
}

/* ---------------------------------------------------------------- client */

static int lat_ready(void *t, uint64_t i)
{
	struct lat *l = t;
	int ret;

	l->iter = i;
	if (l->load_live && i == (uint64_t)l->opt.warmup + 1)
		lat_load_mark(l->load);
	ret = prepare(l, i);
	if (!ret && l->fault == RB_FAULT_STALL)
		ret = lat_stall(l);
	return ret;
}

/* --account: message i handed over, into its row. */
static void stamp_post(struct lat *l, uint64_t i)
{
	lat_acct_at(l->acct, i, LA_POSTED, l->t_hand);
	lat_acct_at(l->acct, i, LA_POST_RET, l->t_ret);
}

static int lat_ping(void *t, uint64_t i)
{
	struct lat *l = t;
	int ret;

	if (l->acct)
		lat_acct_at(l->acct, i, LA_READY, rb_now_ns());
	ret = post_write(l, i, lat_marker(i), lat_imm(i));
	if (!ret && l->acct)
		stamp_post(l, i);
	if (!ret)
		ret = lat_wait_arrival(l, i);
	if (!ret && l->acct)
		lat_acct_at(l->acct, i, LA_SEEN, rb_now_ns());
	if (ret > 0) {
		rb_err("protocol error: stop message from %s at iteration %llu", l->o->peer,
		       (unsigned long long)i);
		ret = -EPROTO;
	}
	return ret;
}

static int lat_after(void *t, uint64_t i)
{
	struct lat *l = t;
	int ret = check_payload(l, i);

	return ret ? ret : tidy(l);
}

/* -D: the stop message in the slot of the round trip that will not come. */
static int lat_end(void *t, uint64_t i)
{
	struct lat *l = t;

	l->iter = i;
	l->fault = RB_FAULT_NONE;
	return post_write(l, i, STOP_MARKER, STOP_IMM);
}

/* ---------------------------------------------------------------- server */

static int lat_pong(void *t, uint64_t i)
{
	struct lat *l = t;
	int ret = i == 1 ? prepare(l, 1) : 0;

	l->iter = i;
	if (l->load_live && i == (uint64_t)l->opt.warmup + 1)
		lat_load_mark(l->load);
	if (!ret)
		ret = lat_wait_arrival(l, i);
	if (ret == 1)
		return 1; /* the client's stop message */
	if (!ret && l->acct)
		lat_acct_at(l->acct, i, LA_READY, rb_now_ns());
	if (!ret && l->fault == RB_FAULT_STALL)
		return lat_stall(l);
	if (!ret)
		ret = post_write(l, i, lat_marker(i), lat_imm(i));
	if (ret)
		return ret;
	if (l->acct)
		stamp_post(l, i);
	l->echoed = i;
	/* While the reply is in flight: */
	ret = check_payload(l, i);
	if (!ret && (!l->total || i < l->total))
		ret = prepare(l, i + 1);
	return ret ? ret : tidy(l);
}

static int lat_interval(void *t, const struct rb_pp_result *res, double from_s, double to_s)
{
	struct lat *l = t;

	return l->interval_row(l->row_arg, res, from_s, to_s);
}

static const struct rb_pp_ops lat_ops = {
    .ready = lat_ready,
    .ping = lat_ping,
    .after = lat_after,
    .end = lat_end,
    .pong = lat_pong,
    .interval = lat_interval,
};

int lat_pp_step(struct lat *l, bool client, uint64_t size, struct rb_pp_result *res)
{
	int timeout_ms = (int)l->opt.timeout_s * 1000;
	/* The client summarises up to RB_PP_EXACT_MAX samples first: that may outlast the channel default. */
	struct rb_pp_cfg cfg = {.iters = l->opt.len.iters,
	                        .duration_s = l->opt.len.duration_s,
	                        .warmup = l->opt.warmup,
	                        .divisor = 2,
	                        .summary_ms = timeout_ms,
	                        .interval_s = l->cur->interval_s};
	int ret;

	l->size = size;
	build_wr(l);
	l->total = l->opt.len.iters ? (uint64_t)l->opt.len.iters + l->opt.warmup : 0;
	l->echoed = 0;
	memset(&l->step, 0, sizeof(l->step));
	memset(&l->ivl_base, 0, sizeof(l->ivl_base));
	/* --account: the clocks probed before the step (its clock not started) and after, the stamps to the
	 * client after. */
	if (l->acct && (ret = lat_acct_start(l->acct, l->o, client, timeout_ms)))
		return ret;
	ret = rb_pp_step(&l->pp, &lat_ops, l, l->o, &cfg, client, size, res);
	if (!ret && l->acct)
		ret = lat_acct_finish(l->acct, l->o, client, timeout_ms, &res->sum);
	return ret;
}

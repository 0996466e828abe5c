/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The engine's --verify step: each side writes a window of at most `slots`
 * messages per QP, says so (WINDOW), and the receiver checks every byte of the
 * peer's window before either side writes the next one (VERIFY).
 */
#include "clock.h"
#include "core.h"
#include "peer.h"
#include "recv.h"
#include "state.h"
#include "verify.h"

#include "base/base.h"
#include "measure/measure.h"

#include <errno.h>
#include <string.h>

/* Every WRITE_WITH_IMM of the window must have completed here before it is checked. */
static int await_window(struct bw_engine *e, uint64_t end)
{
	uint64_t start = rb_now_ns();

	for (unsigned qi = 0; qi < e->c->nqps; qi++) {
		while (e->q[qi].step_rgot < end) {
			int ret = bw_service_recv(e);
			if (ret >= 0)
				ret = bw_tick(e);
			if (ret)
				return ret;
			if (rb_now_ns() - start > e->cfg.timeout_s * RB_NS_PER_S) {
				rb_err("verify: QP %u received %llu of %llu messages (--timeout)", qi,
				       (unsigned long long)e->q[qi].step_rgot, (unsigned long long)end);
				return -ETIMEDOUT;
			}
		}
	}
	return 0;
}

/* Checks the peer's window in our target buffer; fills the verdict. */
static int check_window(struct bw_engine *e, uint64_t peer_base, uint32_t n, struct rb_verdict *v)
{
	memset(v, 0, sizeof(*v));
	if (!n)
		return 0; /* an empty window (a side that only sends has no target buffer) */
	if (e->cfg.imm) {
		int ret = await_window(e, peer_base + n);
		if (ret)
			return ret;
	}
	for (unsigned qi = 0; qi < e->c->nqps; qi++) {
		const uint8_t *dst = rb_buf_view(&e->c->dst, rb_conn_dst_off(e->c, qi));
		int ret;

		if (!dst)
			return -ENOMEM;
		/* GPU memory: the window comes to the host view first (free for host memory). */
		if ((ret = rb_conn_pull_dst(e->c, rb_conn_dst_off(e->c, qi), e->cfg.slots * e->size,
		                            e->cfg.timeout_s)) != 0)
			return ret;
		for (uint32_t j = 0; j < n; j++) {
			uint64_t seq = peer_base + 1 + j;
			uint64_t off = ((seq - 1) % e->cfg.slots) * e->size;
			size_t bad;
			uint8_t exp, got;
			/* a big window takes a while: keep the peer informed */
			if ((ret = bw_tick(e)) != 0)
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

/* The peer's window must be the one we are at, and fit what we can hold. */
static int check_peer_window(struct bw_engine *e, uint32_t w)
{
	const struct rb_window *pw = &e->peer_window;

	if (pw->index != w || pw->msgs_per_qp > e->cfg.slots || (pw->msgs_per_qp && !e->cfg.receiving)) {
		rb_err("protocol error: window %u/%u messages from %s, expected window %u of at most %u",
		       pw->index, pw->msgs_per_qp, e->o->peer, w, e->cfg.receiving ? e->cfg.slots : 0);
		return -EPROTO;
	}
	return 0;
}

/* Either side's verdict on a window: any bad message fails the step. */
static int verdicts(struct bw_engine *e, uint32_t w, const struct rb_verdict *mine)
{
	const struct rb_verdict *pv = &e->peer_verdict;

	if (mine->bad) {
		rb_err(
		    "verify: %llu message(s) of %llu-byte window %u arrived wrong; first: QP %u message %llu "
		    "byte %llu expected 0x%02x got 0x%02x",
		    (unsigned long long)mine->bad, (unsigned long long)e->size, w, mine->qp,
		    (unsigned long long)mine->msg, (unsigned long long)mine->offset, mine->expected,
		    mine->got);
		return -EIO;
	}
	if (pv->bad) {
		rb_err("verify: the peer found %llu message(s) we wrote wrong; first: QP %u message %llu "
		       "byte %llu expected 0x%02x got 0x%02x",
		       (unsigned long long)pv->bad, pv->qp, (unsigned long long)pv->msg,
		       (unsigned long long)pv->offset, pv->expected, pv->got);
		return -EIO;
	}
	return 0;
}

/* Writes our next window (none once we are done) and returns how many messages per QP. */
static int write_window(struct bw_engine *e, uint64_t *base, bool *my_last, uint32_t *n_out)
{
	uint64_t n = e->cfg.slots;
	int ret;

	*n_out = 0;
	if (*my_last)
		return 0;
	if (e->cfg.duration_s <= 0 && !e->cfg.forever && e->cfg.iters - *base < n)
		n = e->cfg.iters - *base;
	for (unsigned i = 0; i < e->c->nqps; i++)
		e->q[i].sq.target = *base + n;
	ret = bw_send_until_targets(e);
	if (ret)
		return ret;
	*base += n;
	*n_out = (uint32_t)n;
	if (e->cfg.forever)
		*my_last = false;
	else
		*my_last = e->cfg.duration_s > 0 ? rb_now_ns() >= e->t_stop : *base >= e->cfg.iters;
	return 0;
}

int bw_run_verified(struct bw_engine *e, struct bw_result *res)
{
	bool my_last = !e->cfg.sending, peer_last = false;
	uint64_t base = 0, peer_base = 0;
	uint32_t w = 0;
	int ret;

	/* res->own is bw_engine_step's: no figure yet, the peak absent with -N. */
	if (e->cfg.sending)
		bw_start_sending(e);
	do {
		uint8_t buf[64];
		struct rb_wbuf wb = {buf, 0, sizeof(buf), false};
		struct rb_window mine = {w, 0, 1};
		struct rb_verdict verdict;

		ret = write_window(e, &base, &my_last, &mine.msgs_per_qp);
		if (ret)
			return ret;
		mine.last = my_last;
		rb_window_encode(&wb, &mine);
		ret = rb_oob_send_w(e->o, BW_MSG_WINDOW, &wb);
		if (!ret)
			ret = bw_wait_for(e, &e->have_window);
		if (ret)
			return ret;
		e->have_window = false;
		ret = check_peer_window(e, w);
		if (ret)
			return ret;
		peer_last = e->peer_window.last;
		ret = check_window(e, peer_base, e->peer_window.msgs_per_qp, &verdict);
		if (ret)
			return ret;
		peer_base += e->peer_window.msgs_per_qp;
		wb.len = 0;
		rb_verdict_encode(&wb, &verdict);
		ret = rb_oob_send_w(e->o, BW_MSG_VERIFY, &wb);
		if (!ret)
			ret = bw_wait_for(e, &e->have_verdict);
		if (ret)
			return ret;
		e->have_verdict = false;
		ret = verdicts(e, w, &verdict);
		if (ret)
			return ret;
		w++;
	} while (!(my_last && peer_last));
	if (e->cfg.sending)
		bw_own_result(e, res);
	return 0;
}

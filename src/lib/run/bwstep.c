/* SPDX-License-Identifier: BSD-2-Clause */
/* The bandwidth engine's loop and its end of step (bwstep.h). */
#include "bwstep.h"
#include "window.h"

#include "base/base.h"
#include "measure/measure.h"

#include <errno.h>
#include <string.h>
#include <time.h>

/* How much later an excused deadline is looked at again. */
#define AGAIN_NS (50 * RB_NS_PER_MS)

int rb_bw_overdue(struct rb_bw *b, const char *doing)
{
	int ret = rb_step_overdue(b->o, rb_now_ns() - b->t0, b->cfg->duration_s,
	                          rb_step_grace_ns(b->cfg->duration_s), doing);

	if (!ret)
		b->deadline = rb_now_ns() + AGAIN_NS;
	return ret;
}

/* --interval's stretch in progress, in ns from t0. */
struct stretch {
	uint64_t from, next, bytes;
};

static void stretch_end(const struct rb_bw_ops *ops, void *t, struct stretch *s, uint64_t every, uint64_t to,
                        uint64_t moved)
{
	ops->interval(t, s->from, to, s->bytes, moved);
	s->from = to;
	s->bytes = moved;
	s->next = rb_grid_next(every, to);
}

/* A step's progress through its two phases. */
struct phase {
	bool mine;     /* this side's part done: joined, its DONE sent */
	bool finished; /* ops->finish called */
	bool peer;     /* the peer's DONE in (accepted; held at the end) */
	struct rb_stepend got;
	struct rb_step_view v;
};

/*
 * The peer's frame: its DONE (kept: its next frames are the tool's trailing ones or
 * the next step's, left queued), a heartbeat, or the tool's; anything else is a
 * protocol error.
 */
static int take_frame(struct rb_bw *b, const struct rb_bw_ops *ops, void *t, struct phase *ph)
{
	struct rb_frame f;
	int ret = rb_oob_recv(b->o, &f, (int)b->cfg->timeout_s * 1000);

	if (ret)
		return ret;
	b->last_heard = rb_now_ns();
	if (f.type == RB_MSG_PROGRESS)
		return 0;
	if (f.type == RB_MSG_DONE) {
		if (rb_stepend_accept(&f, 0, 0, &ph->got)) {
			rb_err("malformed DONE from %s", b->o->peer);
			return -EPROTO;
		}
		ph->peer = true;
		return !ph->mine && ops->peer_done ? ops->peer_done(t) : 0;
	}
	ret = ops->frame ? ops->frame(t, &f) : 1;
	if (ret > 0) {
		rb_err("protocol error: unexpected or malformed %s frame from %s", rb_msg_name(f.type),
		       b->o->peer);
		ret = -EPROTO;
	}
	return ret;
}

/* This side's part is done: the transport stopped, its figures out as DONE. */
static int mine_done(struct rb_bw *b, const struct rb_bw_ops *ops, void *t, struct phase *ph,
                     struct rb_bw_result *res)
{
	int ret;

	rb_window_stop();
	ph->mine = ph->finished = true;
	if ((ret = ops->finish(t, 0)) || (ret = ops->figures(t, &res->own, &ph->v)) ||
	    (ret = rb_stepend_send(b->o, &res->own)))
		return ret;
	return ops->sent ? ops->sent(t) : 0;
}

/*
 * Until this side's part is done and the peer's DONE is in: 0, or the first cause
 * (said). The transport keeps turning while the peer's DONE is awaited (a receiver
 * keeps its receives posted), and the deadline and the silence bound hold throughout.
 */
static int loop(struct rb_bw *b, const struct rb_bw_ops *ops, void *t, struct stretch *s, struct phase *ph,
                struct rb_bw_result *res)
{
	const struct rb_bw_cfg *cfg = b->cfg;
	uint64_t last_moved = 0, last_beat = b->t0;
	int ret, rd;

	for (;;) {
		uint64_t now, moved;

		if ((ret = ops->turn(t)) < 0)
			return ret;
		if (ret && !ph->mine && (ret = mine_done(b, ops, t, ph, res)))
			return ret;
		if (ph->mine && ph->peer)
			return 0;
		if ((ret = rb_check_stop()))
			return ret;
		if (b->deadline && rb_now_ns() >= b->deadline &&
		    (ret = rb_bw_overdue(b, ph->mine ? "ending its step" : ops->pending(t))))
			return ret;
		now = rb_now_ns();
		moved = ops->moved(t);
		if (moved != last_moved) {
			last_moved = moved;
			b->last_heard = now;
		}
		if (!ph->mine && cfg->interval_ns && now - b->t0 >= s->next &&
		    !(ops->settling && ops->settling(t)))
			stretch_end(ops, t, s, cfg->interval_ns, now - b->t0, moved);
		if (cfg->beat_ns && now - last_beat >= cfg->beat_ns) {
			uint8_t buf[16];
			struct rb_wbuf w = {buf, 0, sizeof(buf), false};

			last_beat = now;
			rb_u64_encode(&w, moved);
			if ((ret = rb_oob_send_w(b->o, RB_MSG_PROGRESS, &w)))
				return ret;
		}
		/* After the peer's DONE its frames are the tool's trailing ones: left queued. */
		if (ph->peer && cfg->wait_ms) /* a transport that waits: no spin until its part ends */
			nanosleep(&(struct timespec){0, 1000000}, NULL);
		rd = ph->peer ? 0 : rb_oob_readable(b->o, cfg->wait_ms);
		if (rd < 0) {
			rb_err("out-of-band channel to %s failed: %s", b->o->peer, strerror(-rd));
			return rd;
		}
		if (rd) {
			if ((ret = take_frame(b, ops, t, ph)))
				return ret;
		} else if (rb_now_ns() - b->last_heard > cfg->timeout_s * RB_NS_PER_S) {
			rb_err("nothing moved for %u s (--timeout)", cfg->timeout_s);
			return -ETIMEDOUT;
		}
	}
}

int rb_bw_step(struct rb_oob *o, const struct rb_bw_cfg *cfg, const struct rb_bw_ops *ops, void *t,
               struct rb_bw *b, struct rb_bw_result *res)
{
	struct stretch s = {0, cfg->interval_ns, 0};
	struct phase ph = {0};
	int ret;

	memset(res, 0, sizeof(*res));
	memset(b, 0, sizeof(*b));
	b->o = o;
	b->cfg = cfg;
	rb_window_start(); /* nothing but the transfer until this side's part of it is done */
	b->t0 = b->last_heard = rb_now_ns();
	if (!cfg->forever && cfg->duration_s > 0)
		b->deadline = b->t0 + (uint64_t)(cfg->duration_s * 1e9) + rb_step_grace_ns(cfg->duration_s);
	ret = ops->start ? ops->start(t, b) : 0;
	if (!ret)
		ret = loop(b, ops, t, &s, &ph, res);
	if (!ph.mine)
		rb_window_stop();
	if (ret == -EINTR && !ph.mine) {
		res->cut = true;
		res->cut_bytes = ops->moved(t);
		res->cut_ns = rb_now_ns() - b->t0;
	}
	if (!ph.finished)
		ret = ops->finish(t, ret);
	if (!ret) {
		ret = rb_stepend_take(o, &ph.v, 0, &ph.got, &res->peer);
		res->doubt = ret == RB_STEPEND_DOUBT;
		ret = ret == RB_STEPEND_DOUBT ? 0 : ret;
	}
	if (!ret && ops->taken)
		ret = ops->taken(t, &res->peer);
	/* The stretches tile the step's own clock: the last one ends where the step's row does. */
	if (!ret && cfg->interval_ns)
		stretch_end(ops, t, &s, cfg->interval_ns, res->own.elapsed_ns, ops->moved(t));
	return ret;
}

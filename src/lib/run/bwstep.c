/* SPDX-License-Identifier: BSD-2-Clause */
/* The bandwidth engine's loop and its end of step (bwstep.h). */
#include "bwstep.h"
#include "window.h"

#include "base/base.h"
#include "measure/measure.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

/* How much later an excused deadline is looked at again. */
#define AGAIN_NS (50 * RB_NS_PER_MS)

static uint64_t grace_ns(const struct rb_bw_cfg *cfg)
{
	return cfg->grace_ns ? cfg->grace_ns : rb_step_grace_ns(cfg->duration_s);
}

int rb_bw_overdue(struct rb_bw *b, const char *doing)
{
	int ret = rb_step_overdue(b->o, rb_now_ns() - b->t0, b->cfg->duration_s, grace_ns(b->cfg), doing);

	if (!ret)
		b->deadline = rb_now_ns() + AGAIN_NS;
	return ret;
}

/* --interval: the stretch in progress ends at `to` (none that would end before it began). */
static void stretch_end(struct rb_bw *b, uint64_t to, uint64_t moved)
{
	if (to <= b->iv_from)
		return;
	b->ops->interval(b->t, b->iv_from, to, b->iv_bytes, moved);
	b->iv_from = to;
	b->iv_bytes = moved;
	b->iv_next = rb_grid_next(b->cfg->interval_ns, to);
}

/*
 * 1 when the peer's next frame is an ERROR: looked at without taking the frame, since
 * after the peer's DONE its frames are the tool's trailing ones or the next step's.
 */
static int error_queued(struct rb_oob *o)
{
	uint8_t hdr[RB_WIRE_HDR_LEN];
	struct rb_frame_hdr h;
	const char *why;
	ssize_t n = recv(o->fd, hdr, sizeof(hdr), MSG_PEEK | MSG_DONTWAIT);

	return n == (ssize_t)sizeof(hdr) && !rb_frame_hdr_decode(hdr, &h, &why) && h.type == RB_MSG_ERROR;
}

/*
 * The peer's frame: its DONE (kept: its next frames are the tool's trailing ones or
 * the next step's, left queued), a heartbeat, or the tool's; anything else is a
 * protocol error.
 */
static int take_frame(struct rb_bw *b)
{
	struct rb_frame f;
	int ret = rb_oob_recv(b->o, &f, (int)b->cfg->timeout_s * 1000);

	if (ret)
		return ret;
	b->last_heard = rb_now_ns();
	if (f.type == RB_MSG_PROGRESS)
		return 0;
	if (f.type == RB_MSG_DONE) {
		if (rb_stepend_accept(&f, 0, 0, &b->got)) {
			rb_err("protocol error: unexpected or malformed DONE frame from %s", b->o->peer);
			return -EPROTO;
		}
		b->peer = true;
		return !b->mine && b->ops->peer_done ? b->ops->peer_done(b->t) : 0;
	}
	ret = b->ops->frame ? b->ops->frame(b->t, &f) : 1;
	if (ret > 0) {
		rb_err("protocol error: unexpected or malformed %s frame from %s", rb_msg_name(f.type),
		       b->o->peer);
		ret = -EPROTO;
	}
	return ret;
}

/* This side's part is done: the transport stopped, its figures out as DONE. */
static int mine_done(struct rb_bw *b)
{
	int ret;

	if (!b->cfg->untimed)
		rb_window_stop();
	b->mine = b->finished = true;
	if ((ret = b->ops->finish(b->t, 0)) || (ret = b->ops->figures(b->t, &b->res->own, &b->v)))
		return ret;
	/* The stretches tile this side's part: the last one ends where its row does. */
	if (b->cfg->interval_ns)
		stretch_end(b, b->res->own.elapsed_ns, b->ops->moved(b->t));
	if ((ret = rb_stepend_send(b->o, &b->res->own)))
		return ret;
	return b->ops->sent ? b->ops->sent(b->t) : 0;
}

/* The heartbeat, while the peer waits for this side's DONE (its last frame of the step). */
static int beat(struct rb_bw *b, uint64_t now)
{
	uint8_t buf[16];
	struct rb_wbuf w = {buf, 0, sizeof(buf), false};

	if (b->mine || !b->cfg->beat_ns || now - b->last_beat < b->cfg->beat_ns)
		return 0;
	b->last_beat = now;
	rb_u64_encode(&w, b->last_moved);
	return rb_oob_send_w(b->o, RB_MSG_PROGRESS, &w);
}

/*
 * Turns come milliseconds apart (every transport's loop tends the step that often):
 * a gap of seconds is this side not running, a starved or frozen host. The peer's
 * silence counts only while this side was there to hear it, and the absence is this
 * host's wait when the -D bound is judged (rb_cpuwait_gap).
 */
static void away(struct rb_bw *b, uint64_t now, int wait_ms)
{
	uint64_t gap = rb_cpuwait_gap(&b->tend, now, (uint64_t)(wait_ms > 0 ? wait_ms : 0) * RB_NS_PER_MS);

	gap = rb_step_credit(&b->credited, gap, b->cfg->timeout_s);
	b->last_heard = b->last_heard + gap < now ? b->last_heard + gap : now;
}

void rb_bw_waited(struct rb_bw *b)
{
	b->tend.wall_ns = rb_now_ns();
}

void rb_bw_clock(struct rb_bw *b, uint64_t now)
{
	if (!b->mine && b->cfg->interval_ns && now - b->t0 >= b->iv_next &&
	    !(b->ops->settling && b->ops->settling(b->t)))
		stretch_end(b, now - b->t0, b->ops->moved(b->t));
}

int rb_bw_tend(struct rb_bw *b, int wait_ms)
{
	const struct rb_bw_cfg *cfg = b->cfg;
	uint64_t now, moved;
	int ret, rd;

	if ((ret = rb_check_stop()))
		return ret;
	away(b, rb_now_ns(), wait_ms);
	if (b->deadline && !b->peer && rb_now_ns() >= b->deadline &&
	    (ret = rb_bw_overdue(b, b->ops->pending(b->t))))
		return ret;
	now = rb_now_ns();
	moved = b->ops->moved(b->t);
	if (moved != b->last_moved) {
		b->last_moved = moved;
		b->last_heard = now;
	}
	rb_bw_clock(b, now);
	/*
	 * The peer's frames before the heartbeat: when it failed, its ERROR is the cause,
	 * not the heartbeat bouncing off the connection it closed. After its DONE its frames
	 * are the tool's trailing ones or the next step's: left queued, but an ERROR.
	 */
	if (b->peer) {
		if (wait_ms) /* a transport that waits: no spin until its part ends */
			nanosleep(&(struct timespec){0, 1000000}, NULL);
		rd = error_queued(b->o);
	} else {
		rd = rb_oob_readable(b->o, wait_ms);
	}
	away(b, rb_now_ns(), wait_ms); /* frozen in the wait itself */
	if (rd < 0) {
		rb_err("out-of-band channel to %s failed: %s", b->o->peer, strerror(-rd));
		return rd;
	}
	/*
	 * Silence is the peer's only while it owes its DONE: after it, this side's own part,
	 * if stuck, is its transport's bounds to name (a QP, a thread).
	 */
	if (rd) {
		if ((ret = take_frame(b)))
			return ret;
	} else if (!b->peer && rb_now_ns() - b->last_heard > cfg->timeout_s * RB_NS_PER_S) {
		rb_err("nothing moved for %u s, and peer %s silent for %u s (--timeout)", cfg->timeout_s,
		       b->o->peer, cfg->timeout_s);
		return -ETIMEDOUT;
	}
	return beat(b, now);
}

/*
 * Until this side's part is done and the peer's DONE is in: 0, or the first cause
 * (said). The transport keeps turning while the peer's DONE is awaited (a receiver
 * keeps its receives posted), and the deadline and the silence bound hold throughout.
 */
static int loop(struct rb_bw *b)
{
	int ret;

	for (;;) {
		if ((ret = b->ops->turn(b->t)) < 0)
			return ret;
		if (ret && !b->mine && (ret = mine_done(b)))
			return ret;
		if (b->mine && b->peer)
			return 0;
		if ((ret = rb_bw_tend(b, b->cfg->wait_ms)))
			return ret;
	}
}

int rb_bw_step(struct rb_oob *o, const struct rb_bw_cfg *cfg, const struct rb_bw_ops *ops, void *t,
               struct rb_bw *b, struct rb_bw_result *res)
{
	int ret;

	memset(res, 0, sizeof(*res));
	memset(b, 0, sizeof(*b));
	b->o = o;
	b->cfg = cfg;
	b->ops = ops;
	b->t = t;
	b->res = res;
	b->iv_next = cfg->interval_ns;
	if (!cfg->untimed)
		rb_window_start(); /* nothing but the transfer until this side's part of it is done */
	b->t0 = b->last_heard = b->last_beat = rb_now_ns();
	rb_turn_start(&b->tend, b->t0);
	if (!cfg->forever && cfg->duration_s > 0)
		b->deadline = b->t0 + (uint64_t)(cfg->duration_s * 1e9) + grace_ns(cfg);
	ret = ops->start ? ops->start(t, b) : 0;
	if (!ret)
		ret = loop(b);
	if (!b->mine && !cfg->untimed)
		rb_window_stop();
	if (ret == -EINTR && !b->mine) {
		res->cut = true;
		res->cut_bytes = ops->moved(t);
		res->cut_ns = rb_now_ns() - b->t0;
	}
	if (!b->finished)
		ret = ops->finish(t, ret);
	if (!ret) {
		ret = rb_stepend_take(o, &b->v, 0, &b->got, &res->peer);
		res->doubt = ret == RB_STEPEND_DOUBT;
		ret = ret == RB_STEPEND_DOUBT ? 0 : ret;
	}
	if (!ret && ops->taken)
		ret = ops->taken(t, &res->peer);
	return ret;
}

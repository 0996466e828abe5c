/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The engine's clock: read after every verbs call of every loop at a stride that
 * adapts to what a call costs, and every HK_PERIOD_NS the housekeeping (a stop
 * signal, async events, the peer's frames, the stall bound, the heartbeat); the
 * peak's samples and --interval's rows on the way.
 */
#include "clock.h"
#include "core.h"
#include "frames.h"
#include "recv.h"
#include "send.h"
#include "state.h"

#include "verbs/verbs.h"
#include "base/base.h"

#include <errno.h>

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

/* A step's clock from its start: read at every call until reads prove cheap; heartbeats allowed. */
void bw_clock_start(struct bw_engine *e)
{
	e->clk_last = rb_now_ns();
	e->clk_stride = 1;
	e->clk_count = 0;
	e->hk_next = e->clk_last + HK_PERIOD_NS;
	e->last_beat = e->clk_last;
	e->beat = true;
}

static void stall_error(struct bw_engine *e)
{
	uint64_t posted = 0;
	unsigned worst = 0;

	if (e->workers) { /* their QPs are theirs: the totals they published */
		rb_err("no send completion for %u s: %llu messages completed, %llu outstanding, over %u "
		       "posting threads (link down or peer gone?) (--timeout)",
		       e->cfg.timeout_s, (unsigned long long)e->done_msgs,
		       (unsigned long long)(e->posted_msgs - e->done_msgs), bw_workers_n(e));
		return;
	}
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
	if (e->sending && !e->workers && !e->polled && (ret = bw_poll_sends(&e->solo)) < 0)
		return ret;
	e->polled = false;
	if (e->sending)
		bw_inflight_limit(e, now);
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
void bw_interval_end(struct bw_engine *e, uint64_t to)
{
	struct bw_interval iv = {.msgs = e->done_msgs - e->ivl_msgs,
	                         .bytes = (e->done_msgs - e->ivl_msgs) * e->size,
	                         .from_ns = e->ivl_from - e->t_first,
	                         .to_ns = to - e->t_first};

	e->cfg.interval(e->cfg.arg, &iv);
	e->ivl_from = to;
	e->ivl_msgs = e->done_msgs;
	e->ivl_next = e->t_first + rb_grid_next(e->cfg.interval_ns, to - e->t_first);
}

int bw_clock_read(struct bw_engine *e)
{
	uint64_t now;

	if (e->workers && e->sending)
		bw_gather_done(e, rb_now_ns());
	now = rb_now_ns();
	if (e->workers && e->sending)
		bw_gather_posted(e);

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
	/*
	 * --verify ends at a window's edge (write_window): a window cut short here would be
	 * announced whole, and the peer would check messages never written.
	 */
	if (e->sending && e->cfg.duration_s > 0 && !e->cfg.verify && !e->stopping && now >= e->t_stop) {
		/* Stop at the next signaled WR so every posted message is accounted. */
		e->stopping = true;
		if (e->workers) /* each stops its own QPs */
			rb_crew_set_stop(e->workers->crew, 1);
		else
			for (unsigned i = 0; i < e->c->nqps; i++)
				rb_sendq_stop(&e->q[i].sq);
	}
	/* Once stopping, what is left belongs to the last interval (bw_own_result): no sliver row. */
	if (e->ivl_next && !e->stopping && now >= e->ivl_next)
		bw_interval_end(e, now);
	return now >= e->hk_next ? housekeeping(e, now) : 0;
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The engine's clock: read after every verbs call of every loop at a stride that
 * adapts to what a call costs, and every HK_PERIOD_NS the housekeeping (the send and
 * receive queues, async events, the stall bound, and the library engine's part: a
 * stop signal, the peer's frames, the heartbeat, --interval); the peak's samples and
 * -D's stop on the way.
 */
#include "clock.h"
#include "core.h"
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
/* The queues, async events, the stall bound and the library engine's part: every 10 ms. */
#define HK_PERIOD_NS 10000000ull

/* A step's clock from its start: read at every call until reads prove cheap. */
void bw_clock_start(struct bw_engine *e)
{
	e->clk_last = rb_now_ns();
	e->clk_stride = 1;
	e->clk_count = 0;
	e->hk_next = e->clk_last + HK_PERIOD_NS;
	rb_turn_start(&e->hk_turn, e->clk_last);
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
 * Every HK_PERIOD_NS in every loop of a step: the send completions, -D's bound on
 * what is in flight, a fatal async event, the receives, the library engine's part
 * (rb_bw_tend: a stop signal, the peer's frames, the heartbeat, --interval, -D's
 * deadline for the peer) and the stall bound while sending.
 */
static int housekeeping(struct bw_engine *e, uint64_t now)
{
	uint64_t gap;
	int ret;

	/* This side not running is no stall of the QPs (a frozen or starved host). */
	gap = rb_cpuwait_gap(&e->hk_turn, now, HK_PERIOD_NS);
	e->last_progress = e->last_progress + gap < now ? e->last_progress + gap : now;
	e->hk_next = now + HK_PERIOD_NS;
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
	/*
	 * The stall bound before the engine's silence bound (the same --timeout): it names
	 * the QP. poll_sends above may have stamped last_progress after `now`.
	 */
	if (e->sending && now > e->last_progress && now - e->last_progress > e->cfg.timeout_s * RB_NS_PER_S) {
		stall_error(e);
		return -ETIMEDOUT;
	}
	return rb_bw_tend(e->b, 0);
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
	if (e->cfg.sending && e->cfg.interval_ns) /* --interval: its stretches at this clock's precision */
		rb_bw_clock(e->b, now);
	return now >= e->hk_next ? housekeeping(e, now) : 0;
}

/* DONE (or a tool's own type with the same payload): a side's figures for one step of a bandwidth run. */
#ifndef RB_STEPEND_H
#define RB_STEPEND_H

#include "wire.h"

/*
 * A side's figures for one step (DONE, or a tool's own type with this payload). A figure a tool
 * does not measure is NaN; the decoder refuses negative and infinite ones, and a
 * tool that needs a figure checks that it is there (rb_stepend_has).
 */
struct rb_stepend {
	uint64_t msgs, bytes, elapsed_ns;
	double peak_gbps; /* the best rate over short windows (stats.h) */
	double cpu_pct;   /* user+sys of the process over the step, 100 = one core */
};

static inline bool rb_stepend_has(double figure)
{
	return figure == figure; /* not NaN */
}

/*
 * Two honest sides' figures for one step's elapsed time differ by at most the slack:
 * a quarter of the longer, plus 20 ms, plus two control round trips (rtt_ns, capped
 * at 1 s). Both clocks start when their side passes the barrier, one trip apart at
 * most; the side that learns the end from the other stops one trip later; the 20 ms
 * and the quarter are for scheduling. A loaded host can stall one side for tens of
 * ms more (75 ms at a barrier on two busy cores), so the figures disagree only when
 * they are beyond the slack and also more than twice apart or 250 ms apart: a claim
 * far from this side's clock (a step of 1 ns against 41 ms) fails, a stall does not.
 */
uint64_t rb_stepend_slack_ns(uint64_t longer_ns, uint64_t rtt_ns);
bool rb_stepend_clocks_agree(uint64_t a_ns, uint64_t b_ns, uint64_t rtt_ns);
/*
 * The most the peer's step can have lasted, by causality alone: it began after this
 * side's BARRIER left (o->barrier_ns) and ended before its DONE arrived (now). Holds
 * whatever the scheduler did to this side in between; 0 before any barrier.
 */
struct rb_oob;
uint64_t rb_stepend_window_ns(const struct rb_oob *o);
/*
 * This side's elapsed time against the peer's DONE, with the out-of-band channel's
 * round trip as the kernel measured it: 0, or -EPROTO after naming both figures (a
 * peer that lies, or a clock that jumped: the step is not written).
 */
int rb_stepend_check_clock(struct rb_oob *o, uint64_t own_ns, uint64_t peer_ns);
/*
 * -D SEC: how long after SEC a receiver still waits for the step to end before it
 * ends it itself: max(2 s, SEC / 4) (what was posted before -D drains, the last frames cross).
 */
uint64_t rb_step_grace_ns(double duration_s);
/*
 * A receiver's step took took_ns of its own clock: 0 while within -D plus grace_ns,
 * else -ETIMEDOUT after saying the peer was still doing what it did ("sending")
 * that long after the agreed -D.
 */
int rb_step_overdue(const struct rb_oob *o, uint64_t took_ns, double duration_s, uint64_t grace_ns,
                    const char *doing);

/* The payload; the decoder returns 0 or -EPROTO. */
void rb_stepend_encode(struct rb_wbuf *w, const struct rb_stepend *e);
/* Also refuses messages in no time and fewer bytes than messages (messages with no bytes among them). */
int rb_stepend_decode(const uint8_t *p, size_t len, struct rb_stepend *e);

#endif

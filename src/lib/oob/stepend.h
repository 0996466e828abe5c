/* SPDX-License-Identifier: BSD-2-Clause */
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
 * A step that took took_ns of this side's clock against -D duration_s, grace_ns and
 * waited_ns, the time this side's threads waited for a CPU since it began: on time
 * within -D plus the grace plus that wait (at most twice grace_ns of it); past that,
 * the peer late, unless this host's own waits were past their allowance and explain
 * the delay (then who was late cannot be told). No -D: always on time.
 */
enum rb_step_verdict { RB_STEP_ON_TIME, RB_STEP_PEER_LATE, RB_STEP_HOST_LOADED };
enum rb_step_verdict rb_step_verdict(uint64_t took_ns, double duration_s, uint64_t grace_ns,
                                     uint64_t waited_ns);
/*
 * rb_step_verdict with this side's waits since rb_cpuwait_mark: 0 on time, else
 * -ETIMEDOUT after saying the peer was still doing what it did ("sending") that long
 * after the agreed -D, or that this host was too loaded to tell.
 */
int rb_step_overdue(const struct rb_oob *o, uint64_t took_ns, double duration_s, uint64_t grace_ns,
                    const char *doing);

/* The payload; the decoder returns 0 or -EPROTO. */
void rb_stepend_encode(struct rb_wbuf *w, const struct rb_stepend *e);
/* Also refuses messages in no time and fewer bytes than messages (messages with no bytes among them). */
int rb_stepend_decode(const uint8_t *p, size_t len, struct rb_stepend *e);

/*
 * The end-of-step exchange every bandwidth tool makes, in its parts: this side's
 * figures sent as DONE; the peer's taken (from a frame a tool's own loop read, or
 * awaited here); each held to the figures its tool's peer must send (need) and must
 * not (none); the counts of two views of one transfer compared; the clocks compared
 * (rb_stepend_check_clock). The closing agreement follows in the driver (agree.h).
 */
enum { RB_STEPEND_PEAK = 1u, RB_STEPEND_CPU = 2u };

/* This side's figures as DONE: 0 or the send's error (said). */
int rb_stepend_send(struct rb_oob *o, const struct rb_stepend *own);
/* A DONE payload decoded and held to need and none: 0 or -EPROTO, without a word. */
struct rb_frame;
int rb_stepend_accept(const struct rb_frame *f, unsigned need, unsigned none, struct rb_stepend *peer);
/* The peer's DONE within timeout_ms: 0, -EPROTO after "malformed DONE from PEER", or the channel's error. */
int rb_stepend_recv(struct rb_oob *o, int timeout_ms, unsigned need, unsigned none, struct rb_stepend *peer);
/*
 * Two views of one transfer (who: "the peer sent", other: "we received"): 0 when
 * messages and bytes agree, else -EPROTO after naming both.
 */
int rb_stepend_counts(const char *who, uint64_t msgs, uint64_t bytes, const char *other, uint64_t omsgs,
                      uint64_t obytes);

#endif

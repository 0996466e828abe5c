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
 * What this host saw while the step ran, the evidence the clock rule weighs: the
 * channel's round trip, the most the peer's step can have lasted by causality (from
 * this side's BARRIER to now: rb_stepend_window_ns), and how long this host stalled
 * (the longer of this side's threads' run-queue waits and the host's CPU pressure
 * since the step began: cpuwait.h).
 */
struct rb_step_host {
	uint64_t rtt_ns, window_ns, stalled_ns;
};
/*
 * The clock rule: this side's elapsed time against the peer's. 0 when they agree, or
 * when the peer's is longer but within the causal window (this side stalled); past
 * that, RB_STEPEND_DOUBT when this host's own stall is as long as the gap beyond the
 * slack (this host may be the one that stalled: the peer's clock is not judged, and
 * a tool that would have used it takes its own), else -EPROTO (a peer that
 * misreports). Says which, naming both figures and the stall. Pure.
 */
#define RB_STEPEND_DOUBT 1
int rb_stepend_judge_clock(const char *peer, uint64_t own_ns, uint64_t peer_ns, const struct rb_step_host *h);
/* This host's evidence now: the channel's round trip, the window, the stall since the step's mark. */
struct rb_oob;
void rb_step_host_now(const struct rb_oob *o, struct rb_step_host *h);
/*
 * The most the peer's step can have lasted, by causality alone: it began after this
 * side's BARRIER left (o->barrier_ns) and ended before its DONE arrived (now). Holds
 * whatever the scheduler did to this side in between; 0 before any barrier.
 */
uint64_t rb_stepend_window_ns(const struct rb_oob *o);
/*
 * rb_stepend_judge_clock with this host's evidence now: 0, RB_STEPEND_DOUBT (warned),
 * or -EPROTO (said).
 */
int rb_stepend_check_clock(struct rb_oob *o, uint64_t own_ns, uint64_t peer_ns);
/*
 * -D SEC: how long after SEC a receiver still waits for the step to end before it
 * ends it itself: max(2 s, SEC / 4) (what was posted before -D drains, the last frames cross).
 */
uint64_t rb_step_grace_ns(double duration_s);
/*
 * The most of this host's own waits a step's bound allows for: twice the grace, and
 * at least RB_STEP_EXCUSE_NS (CI hosts have held a process off its CPUs for 11 s).
 * A bound still: the waits grow only while this side is not running.
 */
#define RB_STEP_EXCUSE_NS 30000000000ull /* 30 s */
uint64_t rb_step_excuse_ns(uint64_t grace_ns);
/*
 * A silence bound's credit for this side's absence (gap, rb_cpuwait_gap): the part of
 * gap a step still allows, at most max(--timeout, RB_STEP_EXCUSE_NS) in all, so a host
 * starved at every turn still meets the bound; *credited keeps the step's total.
 */
uint64_t rb_step_credit(uint64_t *credited, uint64_t gap, unsigned timeout_s);
/*
 * A step that took took_ns of this side's clock against -D duration_s, grace_ns and
 * waited_ns, the time this side's threads waited for a CPU (or its control thread
 * did not run) since it began: on time within -D plus the grace plus that wait (at
 * most rb_step_excuse_ns of it); past that,
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
 * The end of a bandwidth step, one rule for every tool: this side's figures go out as
 * DONE, and every figure of the peer's DONE is held to what this side knows itself
 * (struct rb_step_view) before any of it reaches a row. The closing agreement follows
 * in the driver (agree.h).
 */
enum { RB_STEPEND_PEAK = 1u, RB_STEPEND_CPU = 2u };
#define RB_STEPEND_ANY UINT64_MAX /* want_msgs: any count (a -D step) */

/* How the peer's sends reach this side. */
enum rb_peer_sends {
	RB_PEER_SENDS_NOTHING, /* no direction towards this side: the peer's counts must be 0 */
	RB_PEER_SENDS_COUNTED, /* this side counted what arrived: the peer's counts must be those */
	RB_PEER_SENDS_UNSEEN,  /* its WRITEs land without telling: bounded by the port and the window */
};

/* What this side knows of the step, to hold the peer's DONE to. */
struct rb_step_view {
	enum rb_peer_sends sends;
	uint64_t rcvd_msgs, rcvd_bytes; /* RB_PEER_SENDS_COUNTED: what arrived here */
	uint64_t msg_bytes;             /* every message of the peer's weighs this (0: not fixed) */
	uint64_t want_msgs;             /* how many it must have sent, or RB_STEPEND_ANY */
	double link_gbps;               /* this port's rate (0: none to bound by, as over TCP) */
	uint64_t own_ns;                /* this side's clock over the step (0: not compared) */
	unsigned need, none;            /* figures (RB_STEPEND_*) the peer must send, and must not */
};

/*
 * The peer's DONE held to the view and this host's evidence: its counts (exactly what
 * arrived, nothing where nothing comes this way, the messages' weight and number), a
 * direction this side cannot see by the port's rate (half again for rxe's nominal one;
 * the peak too) and the causal window, its clock by the clock rule. 0,
 * RB_STEPEND_DOUBT (the clock not judged: warned), or -EPROTO after naming the figure
 * and what this side saw. Pure but for what it says.
 */
int rb_stepend_hold(const char *peer, const struct rb_step_view *v, const struct rb_step_host *h,
                    const struct rb_stepend *p);

/* This side's figures as DONE: 0 or the send's error (said). */
int rb_stepend_send(struct rb_oob *o, const struct rb_stepend *own);
/* A DONE payload decoded and held to need and none: 0 or -EPROTO, without a word. */
struct rb_frame;
int rb_stepend_accept(const struct rb_frame *f, unsigned need, unsigned none, struct rb_stepend *peer);
/*
 * The peer's DONE taken and held (rb_stepend_hold with this host's evidence now):
 * when got is NULL it is awaited within timeout_ms ("malformed DONE from PEER" for one
 * that does not decode or lacks a figure of v->need); else got is the DONE a tool's
 * own loop already accepted. 0, RB_STEPEND_DOUBT, -EPROTO or the channel's error;
 * *peer is the DONE as sent.
 */
int rb_stepend_take(struct rb_oob *o, const struct rb_step_view *v, int timeout_ms,
                    const struct rb_stepend *got, struct rb_stepend *peer);
/*
 * Two views of one transfer (who: "the peer sent", other: "we received"): 0 when
 * messages and bytes agree, else -EPROTO after naming both.
 */
int rb_stepend_counts(const char *who, uint64_t msgs, uint64_t bytes, const char *other, uint64_t omsgs,
                      uint64_t obytes);

#endif

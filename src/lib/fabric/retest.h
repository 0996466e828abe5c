/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Re-tests that isolate what an all-pairs schedule found slow: a transmit or receive
 * path of one NIC (an end: rank x rails + rail), or one link. Pure: the coordinator
 * asks for a round of pairs, runs them, and records what each measured.
 *
 * Every bad result c -> s (slow or failed; client end c sent, server end s received)
 * has three explanations, each a hypothesis tested against partners that measured
 * well:
 *   transmit of c    c -> g, g an end whose receive is trusted
 *   receive of s     g -> s, g an end whose transmit is trusted
 *   link c -> s      c -> s again, once both of its ends were cleared
 * A round-trip tool (latency) crosses both directions in every sample: one
 * hypothesis per end, tested as c <-> g. Trusted: in no bad result of the schedule
 * in that role, or cleared, or every bad result it was in explained by another fault.
 *
 * A hypothesis is confirmed when R re-tests in turn, each against another partner
 * (never one twice; with fewer trusted partners than R, slow with every one of them
 * and at least two), were all slow, and cleared by the first that was not: a broken path is slow every
 * time, while noise or a passing spell of the host, which made the schedule's sample
 * slow, rarely is R times over. So a fault costs R runs and a false alarm usually
 * one. The schedule must agree too: an end slow in every re-test but in no more than
 * half of its schedule results in that role is unsteady (noise that held, or a fault
 * that comes and goes), not confirmed. A link has one schedule result, so its guard
 * is the noise itself: with a share u of the schedule's results slow and not
 * explained by a confirmed end, L links tested would give L x u^R false alarms; when
 * that is above 0.05, no link is confirmed (each is unsteady) and rb_retest_finish
 * says so. Fewest runs: the hypothesis that explains the most unexplained bad
 * results goes first, and a result explained by a confirmed fault needs none of its other explanations
 * tested; a NIC whose transmit is bad is one hypothesis, not its N - 1 slow pairs and their partners. Runs <=
 * R x (E + L), E the end hypotheses left unexplained (at most 2 per end in a bad result), L the links whose
 * ends were both cleared; they run in parallel, each rank in one pair per round. (ClusterKit halves a group
 * of suspects per test; a pair run measures one pair, so here the halving is in what is left to explain: one
 * confirmed end removes every result it explains.)
 */
#ifndef RB_RETEST_H
#define RB_RETEST_H

#include "measure/measure.h"

#include <stdbool.h>
#include <stdint.h>

enum rb_rt_state {
	RB_RT_NONE,      /* in no bad result: trusted */
	RB_RT_OPEN,      /* to be tested */
	RB_RT_CONFIRMED, /* R re-tests slow */
	RB_RT_CLEARED,   /* a re-test not slow */
	RB_RT_EXPLAINED, /* every bad result it was in is explained by a confirmed fault */
	RB_RT_UNDECIDED, /* no trusted partner to test it against */
	RB_RT_UNSTEADY,  /* R re-tests slow, but most of the schedule's results fine: not a steady fault */
};

enum rb_rt_kind { RB_RT_TX, RB_RT_RX, RB_RT_END, RB_RT_LINK };

#define RB_RT_MAX_R 15 /* --retests at most */

struct rb_rt_hyp {
	enum rb_rt_kind kind;
	enum rb_rt_state state;
	uint32_t a, b;      /* the end (a), or the link's client end (a) and server end (b) */
	uint32_t bad, seen; /* in the schedule: results in this role, bad ones */
	uint32_t tests, slow;
	uint32_t turn;              /* the next partner to try (they rotate) */
	uint32_t used[RB_RT_MAX_R]; /* the partner ranks of its re-tests: each once */
};

struct rb_rt_bad {
	uint32_t c, s; /* ends */
	uint32_t link; /* its link hypothesis (index into links) */
	bool explained;
};

struct rb_retest {
	uint32_t ranks, rails, need; /* need: R slow re-tests confirm */
	bool round_trip;
	struct rb_rt_hyp *ends;  /* directional: end x 2 + (0 transmit, 1 receive); else end */
	struct rb_rt_hyp *links; /* one per bad result (a repeat of c -> s shares it) */
	struct rb_rt_bad *bad;
	uint32_t nlinks, nbad, cap;
	uint32_t rounds, runs; /* re-tests planned so far */
	/* rb_retest_finish: the unexplained slow share of the schedule, and the false alarms expected among
	 * the links. */
	double noise, false_alarms;
	uint32_t links_tested;
	bool *busy; /* per rank, while a round is planned */
};

/*
 * For ranks x rails ends; retests R (1 to RB_RT_MAX_R). round_trip: one hypothesis per end.
 * 0 or -ENOMEM.
 */
int rb_retest_init(struct rb_retest *p, uint32_t ranks, uint32_t rails, uint32_t retests, bool round_trip);
void rb_retest_free(struct rb_retest *p);
/* n results of the schedule that were fine, end e in a role (0 it sent, 1 it received). */
void rb_retest_add_seen(struct rb_retest *p, uint32_t e, int role, uint32_t n);
/* One result of the schedule (ends; bad: slow or failed). 0, -EINVAL or -ENOMEM. */
int rb_retest_seen(struct rb_retest *p, uint32_t c, uint32_t s, bool bad);
/*
 * The next round's rank pairs (out: room for ranks / 2) and the hypothesis each
 * tests (hyp: as rb_retest_hyp numbers them; its rail is its end's); returns how
 * many, 0 when every hypothesis is decided (those left without a trusted partner
 * are undecided).
 */
uint32_t rb_retest_plan(struct rb_retest *p, struct rb_pair *out, uint32_t *hyp);
/* What the re-test of hypothesis hyp measured on its rail (bad: slow or failed). */
void rb_retest_record(struct rb_retest *p, uint32_t hyp, bool bad);
/*
 * After the last round: results is the schedule's count. Links confirmed where the
 * expected false alarms exceed 0.05 become unsteady. Returns the false alarms expected.
 */
double rb_retest_finish(struct rb_retest *p, uint64_t results);
/* The hypotheses: nend end ones (index as in ends), then the links. */
uint32_t rb_retest_count(const struct rb_retest *p);
const struct rb_rt_hyp *rb_retest_hyp(const struct rb_retest *p, uint32_t i);
/* "transmit", "receive", "both directions", "link". */
const char *rb_rt_kind_name(enum rb_rt_kind k);
const char *rb_rt_state_name(enum rb_rt_state s);

#endif

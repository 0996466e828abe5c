/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * --pattern: the traffic patterns of the fabric under load, as rounds of flows that all
 * run at once (every flow of a round starts on the coordinator's GO and runs the same
 * -D). A flow is a struct rb_pair: its client sends, its server receives. Pure functions.
 *
 *   pairs          the all-pairs schedule (schedule.h): one flow per rank a round
 *   incast:K       K senders to one receiver, the receiver rotating: n rounds, round r
 *                  has ranks r+1 .. r+K (mod n) sending to rank r
 *   one-to-many:K  one sender to K receivers, rotating likewise
 *   bisection      half the ranks to the other half, all at once: --permute N rounds,
 *                  the first halving ranks 0..n/2-1 to n/2..n-1, the others drawn at
 *                  random (seeded); an odd rank out sits the round out
 *   all-to-all     every rank to every other, all at once: one round of n(n-1) flows
 *   ring           rank i to rank i+1 (mod n), all at once: one round of n flows
 */
#ifndef RB_TRAFFIC_H
#define RB_TRAFFIC_H

#include "schedule.h"

#include <stddef.h>
#include <stdint.h>

enum rb_pattern_kind {
	RB_PAT_PAIRS,
	RB_PAT_INCAST,
	RB_PAT_ONE_TO_MANY,
	RB_PAT_BISECTION,
	RB_PAT_ALL_TO_ALL,
	RB_PAT_RING,
};

struct rb_pattern {
	enum rb_pattern_kind kind;
	uint32_t k;       /* incast:K, one-to-many:K */
	uint32_t permute; /* bisection: its rounds (--permute; 0 = 1) */
};

/* The most flows one rank takes part in at once (all-to-all: 2 (n - 1)). */
#define RB_PATTERN_RANK_FLOWS 64

/* "pairs", "incast:K", "one-to-many:K", "bisection", "all-to-all", "ring"; 0 or -EINVAL. */
int rb_pattern_parse(const char *s, struct rb_pattern *out);
#define RB_PATTERN_ALLOWED "pairs, incast:K, one-to-many:K (K >= 1), bisection, all-to-all or ring"
/* The pattern as --pattern spells it ("incast:3"). */
const char *rb_pattern_name(const struct rb_pattern *p, char *buf, size_t cap);
/*
 * Whether n ranks can run it: 0, or -EINVAL with why in why (K above n - 1, fewer than
 * 2 ranks, more than RB_PATTERN_RANK_FLOWS flows at one rank).
 */
int rb_pattern_fits(const struct rb_pattern *p, uint32_t n, char *why, size_t cap);
/* Its rounds for n ranks (pairs: none here; the schedule's). */
uint32_t rb_pattern_rounds(const struct rb_pattern *p, uint32_t n);
/* The most flows a round of it has for n ranks: the room rb_pattern_round needs. */
uint32_t rb_pattern_max_flows(const struct rb_pattern *p, uint32_t n);
/* Round r's flows into out; returns how many. seed: bisection's draws (the same on every rank). */
uint32_t rb_pattern_round(const struct rb_pattern *p, uint32_t n, uint64_t seed, uint32_t r,
                          struct rb_pair *out);

/* A round's flows together: their figures (NaN: failed, left out of all but nfailed). */
struct rb_flow_stats {
	uint32_t n, nfailed;
	double sum, min, max, mean;
	double jain;     /* Jain's fairness index: (sum x)^2 / (n sum x^2), 1 when all are equal */
	uint32_t argmin; /* the index of the smallest */
};
void rb_flow_stats(const double *v, uint32_t n, struct rb_flow_stats *out);

#endif

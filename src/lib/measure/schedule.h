/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The all-pairs schedule: rounds in which every rank is in at most one pair, so all
 * pairs of a round measure at once, as they would under load. Pure functions.
 *
 *   all       the circle method: N - 1 rounds for even N (N for odd N, one rank
 *             idle per round); every pair once.
 *   ring      rank i with rank i + 1 (mod N): 2 rounds for even N, 3 for odd.
 *   random:K  K rounds of the circle method drawn at random (seeded): every rank
 *             meets K different partners.
 *
 * With two directions (--directions both) every round runs twice, the second time
 * with each pair's server and client swapped: twice the rounds, and a NIC's transmit
 * and receive paths are each measured with every partner.
 */
#ifndef RB_SCHEDULE_H
#define RB_SCHEDULE_H

#include <stdint.h>

enum rb_pairs_mode { RB_PAIRS_ALL, RB_PAIRS_RING, RB_PAIRS_RANDOM };

struct rb_pairs_spec {
	enum rb_pairs_mode mode;
	uint32_t k;    /* random:K */
	uint32_t dirs; /* 2: each pair both ways (round 2i, then 2i + 1 reversed); else one */
};

/* "all", "ring", "random:K" (K >= 1); 0 or -EINVAL. */
int rb_pairs_parse(const char *s, struct rb_pairs_spec *out);
#define RB_PAIRS_ALLOWED "all, ring or random:K (K >= 1)"

/* One measurement: the server rank (receives) and the client rank (sends). */
struct rb_pair {
	uint32_t server, client;
};

/*
 * Rounds of a schedule for n ranks (n >= 2), times its directions; random:K with K
 * above the circle method's rounds is capped at them.
 */
uint32_t rb_sched_rounds(const struct rb_pairs_spec *s, uint32_t n);
/*
 * Round r's pairs, into out (room for n / 2); returns how many. seed: the same on
 * every rank (random:K draws from it); each rank computes the plan itself.
 */
uint32_t rb_sched_round(const struct rb_pairs_spec *s, uint32_t n, uint64_t seed, uint32_t r,
                        struct rb_pair *out);
/* splitmix64: a small, seedable generator that gives every rank the same draw. */
uint64_t rb_sched_mix(uint64_t *s);
/* Rank me's pair in round r: 1 and *p set, or 0 when me sits the round out. */
int rb_sched_mine(const struct rb_pairs_spec *s, uint32_t n, uint64_t seed, uint32_t r, uint32_t me,
                  struct rb_pair *p);

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
#include "schedule.h"

#include "base/base.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int rb_pairs_parse(const char *s, struct rb_pairs_spec *out)
{
	uint64_t k;
	uint32_t dirs = out->dirs; /* --directions, parsed on its own */

	memset(out, 0, sizeof(*out));
	out->dirs = dirs;
	if (!strcmp(s, "all")) {
		out->mode = RB_PAIRS_ALL;
		return 0;
	}
	if (!strcmp(s, "ring")) {
		out->mode = RB_PAIRS_RING;
		return 0;
	}
	if (!strncmp(s, "random:", 7) && !rb_parse_u64(s + 7, &k) && k >= 1 && k <= UINT32_MAX) {
		out->mode = RB_PAIRS_RANDOM;
		out->k = (uint32_t)k;
		return 0;
	}
	return -EINVAL;
}

/* The circle method over m positions (m even): position 0 stays, the others rotate. */
static uint32_t circle_rounds(uint32_t n)
{
	return n % 2 ? n : n - 1;
}

/*
 * Round r of the circle method: position 0 holds rank m - 1; position i > 0 holds
 * rank (i - 1 + r) mod (m - 1). Pairs: position i with position m - 1 - i. For odd
 * n, rank n (= m - 1) is the bye: its partner sits the round out.
 */
static uint32_t circle(uint32_t n, uint32_t r, struct rb_pair *out)
{
	uint32_t m = n % 2 ? n + 1 : n, cnt = 0;

	for (uint32_t i = 0; i < m / 2; i++) {
		uint32_t j = m - 1 - i;
		uint32_t a = i == 0 ? m - 1 : (i - 1 + r) % (m - 1);
		uint32_t b = (j - 1 + r) % (m - 1);

		if (a >= n || b >= n)
			continue;
		/* Alternate who sends, so no rank is the server in every round. */
		if ((r + i) % 2) {
			uint32_t t = a;
			a = b;
			b = t;
		}
		out[cnt].server = a;
		out[cnt].client = b;
		cnt++;
	}
	return cnt;
}

uint64_t rb_sched_mix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* The r-th of the K circle rounds random:K draws: a seeded Fisher-Yates prefix. */
static uint32_t random_round(uint32_t total, uint64_t seed, uint32_t r)
{
	uint32_t *perm = malloc(sizeof(*perm) * total), pick;
	uint64_t s = seed;

	if (!perm || r >= total) {
		free(perm);
		return total ? r % total : 0;
	}
	for (uint32_t i = 0; i < total; i++)
		perm[i] = i;
	for (uint32_t i = 0; i <= r && i < total; i++) {
		uint32_t j = i + (uint32_t)(rb_sched_mix(&s) % (total - i));
		uint32_t t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
	pick = perm[r];
	free(perm);
	return pick;
}

/* Each pair's directions: two (the second pass reversed) or one. */
static uint32_t dirs(const struct rb_pairs_spec *s)
{
	return s->dirs == 2 ? 2 : 1;
}

static uint32_t base_rounds(const struct rb_pairs_spec *s, uint32_t n)
{
	if (n < 2)
		return 0;
	switch (s->mode) {
	case RB_PAIRS_RING: return n == 2 ? 1 : n % 2 ? 3 : 2;
	case RB_PAIRS_RANDOM: return s->k < circle_rounds(n) ? s->k : circle_rounds(n);
	default: return circle_rounds(n);
	}
}

uint32_t rb_sched_rounds(const struct rb_pairs_spec *s, uint32_t n)
{
	return base_rounds(s, n) * dirs(s);
}

/* Ring: edge (i, i + 1 mod n) lands in round i mod 2, the wrap-around edge of odd n in round 2. */
static uint32_t ring(uint32_t n, uint32_t r, struct rb_pair *out)
{
	uint32_t cnt = 0, edges = n == 2 ? 1 : n;

	for (uint32_t i = 0; i < edges; i++) {
		uint32_t round = (n % 2 && i == n - 1) ? 2 : i % 2;

		if (round != r)
			continue;
		out[cnt].server = (i + 1) % n;
		out[cnt].client = i;
		cnt++;
	}
	return cnt;
}

uint32_t rb_sched_round(const struct rb_pairs_spec *s, uint32_t n, uint64_t seed, uint32_t r,
                        struct rb_pair *out)
{
	uint32_t cnt, base = r / dirs(s);

	if (r >= rb_sched_rounds(s, n))
		return 0;
	switch (s->mode) {
	case RB_PAIRS_RING: cnt = ring(n, base, out); break;
	case RB_PAIRS_RANDOM: cnt = circle(n, random_round(circle_rounds(n), seed, base), out); break;
	default: cnt = circle(n, base, out); break;
	}
	/* The second pass of a round: the same pairs, the other way. */
	for (uint32_t i = 0; r % dirs(s) && i < cnt; i++)
		out[i] = (struct rb_pair){.server = out[i].client, .client = out[i].server};
	return cnt;
}

int rb_sched_mine(const struct rb_pairs_spec *s, uint32_t n, uint64_t seed, uint32_t r, uint32_t me,
                  struct rb_pair *p)
{
	struct rb_pair *all = malloc(sizeof(*all) * (n / 2 + 1));
	uint32_t cnt;
	int found = 0;

	if (!all)
		return 0;
	cnt = rb_sched_round(s, n, seed, r, all);
	for (uint32_t i = 0; i < cnt && !found; i++) {
		if (all[i].server == me || all[i].client == me) {
			*p = all[i];
			found = 1;
		}
	}
	free(all);
	return found;
}

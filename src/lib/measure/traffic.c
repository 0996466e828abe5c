/* SPDX-License-Identifier: BSD-2-Clause */
#include "traffic.h"

#include "base/base.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int parse_k(const char *s, uint32_t *k)
{
	uint64_t v;

	if (rb_parse_u64(s, &v) || v < 1 || v > UINT32_MAX)
		return -EINVAL;
	*k = (uint32_t)v;
	return 0;
}

int rb_pattern_parse(const char *s, struct rb_pattern *out)
{
	uint32_t permute = out->permute; /* --permute, parsed on its own */

	memset(out, 0, sizeof(*out));
	out->permute = permute;
	if (!strcmp(s, "pairs"))
		out->kind = RB_PAT_PAIRS;
	else if (!strcmp(s, "bisection"))
		out->kind = RB_PAT_BISECTION;
	else if (!strcmp(s, "all-to-all"))
		out->kind = RB_PAT_ALL_TO_ALL;
	else if (!strcmp(s, "ring"))
		out->kind = RB_PAT_RING;
	else if (!strncmp(s, "incast:", 7) && !parse_k(s + 7, &out->k))
		out->kind = RB_PAT_INCAST;
	else if (!strncmp(s, "one-to-many:", 12) && !parse_k(s + 12, &out->k))
		out->kind = RB_PAT_ONE_TO_MANY;
	else
		return -EINVAL;
	return 0;
}

const char *rb_pattern_name(const struct rb_pattern *p, char *buf, size_t cap)
{
	static const char *const names[] = {"pairs",     "incast",     "one-to-many",
	                                    "bisection", "all-to-all", "ring"};

	if (p->kind == RB_PAT_INCAST || p->kind == RB_PAT_ONE_TO_MANY)
		snprintf(buf, cap, "%s:%u", names[p->kind], p->k);
	else
		snprintf(buf, cap, "%s", names[p->kind]);
	return buf;
}

/* The flows one rank takes part in at once, at most. */
static uint64_t rank_flows(const struct rb_pattern *p, uint32_t n)
{
	switch (p->kind) {
	case RB_PAT_INCAST:
	case RB_PAT_ONE_TO_MANY: return p->k;
	case RB_PAT_ALL_TO_ALL: return 2ull * (n - 1);
	case RB_PAT_RING: return 2;
	default: return 1;
	}
}

int rb_pattern_fits(const struct rb_pattern *p, uint32_t n, char *why, size_t cap)
{
	char name[32];

	rb_pattern_name(p, name, sizeof(name));
	if (n < 2) {
		snprintf(why, cap, "--pattern %s needs at least 2 ranks (the launcher started %u)", name, n);
		return -EINVAL;
	}
	if ((p->kind == RB_PAT_INCAST || p->kind == RB_PAT_ONE_TO_MANY) && p->k > n - 1) {
		snprintf(why, cap, "--pattern %s needs at least %u ranks (K + 1); the launcher started %u",
		         name, p->k + 1, n);
		return -EINVAL;
	}
	if (rank_flows(p, n) > RB_PATTERN_RANK_FLOWS) {
		snprintf(
		    why, cap,
		    "--pattern %s with %u ranks: %llu flows at one rank at once, where a rank runs at most "
		    "%u (one process each)",
		    name, n, (unsigned long long)rank_flows(p, n), RB_PATTERN_RANK_FLOWS);
		return -EINVAL;
	}
	return 0;
}

uint32_t rb_pattern_rounds(const struct rb_pattern *p, uint32_t n)
{
	switch (p->kind) {
	case RB_PAT_INCAST:
	case RB_PAT_ONE_TO_MANY: return n;
	case RB_PAT_BISECTION: return p->permute ? p->permute : 1;
	case RB_PAT_ALL_TO_ALL:
	case RB_PAT_RING: return 1;
	default: return 0;
	}
}

uint32_t rb_pattern_max_flows(const struct rb_pattern *p, uint32_t n)
{
	switch (p->kind) {
	case RB_PAT_INCAST:
	case RB_PAT_ONE_TO_MANY: return p->k;
	case RB_PAT_ALL_TO_ALL: return n * (n - 1);
	case RB_PAT_RING: return n;
	default: return n / 2 + 1;
	}
}

/* Round r's halving: identity first, then a seeded shuffle per round (Fisher-Yates). */
static void halving(uint32_t n, uint64_t seed, uint32_t r, uint32_t *perm)
{
	uint64_t s = seed ^ (0x9e3779b97f4a7c15ull * (r + 1));

	for (uint32_t i = 0; i < n; i++)
		perm[i] = i;
	if (r == 0)
		return;
	for (uint32_t i = n - 1; i > 0; i--) {
		uint32_t j = (uint32_t)(rb_sched_mix(&s) % (i + 1)), t = perm[i];

		perm[i] = perm[j];
		perm[j] = t;
	}
}

uint32_t rb_pattern_round(const struct rb_pattern *p, uint32_t n, uint64_t seed, uint32_t r,
                          struct rb_pair *out)
{
	uint32_t cnt = 0;

	switch (p->kind) {
	case RB_PAT_INCAST:
	case RB_PAT_ONE_TO_MANY:
		for (uint32_t i = 1; i <= p->k; i++) {
			uint32_t one = r % n, other = (r + i) % n;

			out[cnt++] = p->kind == RB_PAT_INCAST
			                 ? (struct rb_pair){.server = one, .client = other}
			                 : (struct rb_pair){.server = other, .client = one};
		}
		return cnt;
	case RB_PAT_BISECTION: {
		uint32_t *perm = malloc(sizeof(*perm) * n);

		if (!perm)
			return 0;
		halving(n, seed, r, perm);
		for (uint32_t i = 0; i < n / 2; i++)
			out[cnt++] = (struct rb_pair){.server = perm[n / 2 + i], .client = perm[i]};
		free(perm);
		return cnt;
	}
	case RB_PAT_ALL_TO_ALL:
		for (uint32_t c = 0; c < n; c++)
			for (uint32_t s = 0; s < n; s++)
				if (s != c)
					out[cnt++] = (struct rb_pair){.server = s, .client = c};
		return cnt;
	case RB_PAT_RING:
		for (uint32_t c = 0; c < n; c++)
			out[cnt++] = (struct rb_pair){.server = (c + 1) % n, .client = c};
		return cnt;
	default: return 0;
	}
}

void rb_flow_stats(const double *v, uint32_t n, struct rb_flow_stats *out)
{
	double sq = 0;

	memset(out, 0, sizeof(*out));
	out->min = out->max = out->mean = out->jain = NAN;
	for (uint32_t i = 0; i < n; i++) {
		if (!isfinite(v[i])) {
			out->nfailed++;
			continue;
		}
		if (!out->n || v[i] < out->min) {
			out->min = v[i];
			out->argmin = i;
		}
		if (!out->n || v[i] > out->max)
			out->max = v[i];
		out->n++;
		out->sum += v[i];
		sq += v[i] * v[i];
	}
	if (!out->n)
		return;
	out->mean = out->sum / out->n;
	out->jain = sq > 0 ? out->sum * out->sum / (out->n * sq) : 1;
}

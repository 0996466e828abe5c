/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * --pattern, the pure parts: each pattern's rounds hold the flows its definition says
 * (who sends to whom, all at once), what a job of n ranks cannot run is refused with
 * why, and a round's flows together (sum, spread, Jain's fairness index).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "measure/traffic.h"

#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define MAXN 40

static void parse(void **state)
{
	static const char *const bad[] = {
	    "",    "incast", "incast:",     "incast:0", "incast:x", "one-to-many:-1",
	    "all", "ring:2", "bisection:2", "Pairs"};
	struct rb_pattern p = {.permute = 7};
	char name[32];

	(void)state;
	assert_int_equal(rb_pattern_parse("incast:3", &p), 0);
	assert_int_equal(p.kind, RB_PAT_INCAST);
	assert_int_equal(p.k, 3);
	assert_int_equal(p.permute, 7); /* --permute is its own option */
	assert_string_equal(rb_pattern_name(&p, name, sizeof(name)), "incast:3");
	assert_int_equal(rb_pattern_parse("one-to-many:2", &p), 0);
	assert_string_equal(rb_pattern_name(&p, name, sizeof(name)), "one-to-many:2");
	assert_int_equal(rb_pattern_parse("bisection", &p), 0);
	assert_int_equal(p.kind, RB_PAT_BISECTION);
	assert_int_equal(rb_pattern_parse("all-to-all", &p), 0);
	assert_int_equal(p.kind, RB_PAT_ALL_TO_ALL);
	assert_int_equal(rb_pattern_parse("ring", &p), 0);
	assert_int_equal(p.kind, RB_PAT_RING);
	assert_int_equal(rb_pattern_parse("pairs", &p), 0);
	assert_int_equal(p.kind, RB_PAT_PAIRS);
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(rb_pattern_parse(bad[i], &p), -EINVAL);
}

/* Every flow in range, never a rank to itself, no flow twice in a round; returns the flows. */
static uint32_t round_ok(const struct rb_pattern *p, uint32_t n, uint64_t seed, uint32_t r, struct rb_pair *f)
{
	uint32_t nf = rb_pattern_round(p, n, seed, r, f);
	static unsigned seen[MAXN][MAXN];

	assert_true(nf <= rb_pattern_max_flows(p, n));
	memset(seen, 0, sizeof(seen));
	for (uint32_t i = 0; i < nf; i++) {
		assert_true(f[i].server < n && f[i].client < n);
		assert_int_not_equal(f[i].server, f[i].client);
		assert_int_equal(seen[f[i].client][f[i].server]++, 0);
	}
	return nf;
}

static void incast_and_one_to_many(void **state)
{
	struct rb_pair f[MAXN * MAXN];
	struct rb_pattern p;

	(void)state;
	for (uint32_t n = 2; n <= 9; n++)
		for (uint32_t k = 1; k < n; k++) {
			unsigned received[MAXN] = {0};

			p = (struct rb_pattern){.kind = RB_PAT_INCAST, .k = k};
			assert_int_equal(rb_pattern_rounds(&p, n), n);
			for (uint32_t r = 0; r < n; r++) {
				assert_int_equal(round_ok(&p, n, 1, r, f), k);
				/* K senders, one receiver: rank r, each round another */
				for (uint32_t i = 0; i < k; i++)
					assert_int_equal(f[i].server, r);
				received[r]++;
			}
			for (uint32_t r = 0; r < n; r++)
				assert_int_equal(received[r], 1);
			p.kind = RB_PAT_ONE_TO_MANY;
			for (uint32_t r = 0; r < n; r++) {
				assert_int_equal(round_ok(&p, n, 1, r, f), k);
				for (uint32_t i = 0; i < k; i++)
					assert_int_equal(f[i].client, r);
			}
		}
}

static void bisection(void **state)
{
	struct rb_pair f[MAXN], g[MAXN];
	struct rb_pattern p = {.kind = RB_PAT_BISECTION, .permute = 6};
	bool moved = false;

	(void)state;
	assert_int_equal(rb_pattern_rounds(&p, 8), 6);
	assert_int_equal(rb_pattern_rounds(&(struct rb_pattern){.kind = RB_PAT_BISECTION}, 8), 1);
	for (uint32_t n = 2; n <= 11; n++)
		for (uint32_t r = 0; r < 6; r++) {
			unsigned in[MAXN] = {0};
			uint32_t nf = round_ok(&p, n, 42, r, f);

			/* Half to half, all at once: every rank in one flow, an odd one out in none. */
			assert_int_equal(nf, n / 2);
			for (uint32_t i = 0; i < nf; i++)
				in[f[i].server]++, in[f[i].client]++;
			for (uint32_t k = 0, idle = 0; k < n; k++) {
				assert_true(in[k] <= 1);
				idle += !in[k];
				assert_true(idle <= n % 2);
			}
			if (r == 0)
				for (uint32_t i = 0; i < nf; i++)
					assert_true(f[i].client == i && f[i].server == n / 2 + i);
			/* The same seed, the same halving on every rank; another seed, another. */
			assert_int_equal(rb_pattern_round(&p, n, 42, r, g), nf);
			assert_memory_equal(f, g, nf * sizeof(*f));
			if (r > 0 && n >= 8) {
				rb_pattern_round(&p, n, 43, r, g);
				moved = moved || memcmp(f, g, nf * sizeof(*f)) != 0;
			}
		}
	assert_true(moved);
}

static void all_to_all_and_ring(void **state)
{
	static struct rb_pair f[MAXN * MAXN];
	struct rb_pattern a = {.kind = RB_PAT_ALL_TO_ALL}, ring = {.kind = RB_PAT_RING};

	(void)state;
	for (uint32_t n = 2; n <= 12; n++) {
		assert_int_equal(rb_pattern_rounds(&a, n), 1);
		/* every ordered pair once (round_ok: none twice) */
		assert_int_equal(round_ok(&a, n, 0, 0, f), n * (n - 1));
		assert_int_equal(rb_pattern_rounds(&ring, n), 1);
		assert_int_equal(round_ok(&ring, n, 0, 0, f), n);
		for (uint32_t i = 0; i < n; i++)
			assert_true(f[i].client == i && f[i].server == (i + 1) % n);
	}
}

static void fits(void **state)
{
	char why[256];
	struct rb_pattern p = {.kind = RB_PAT_INCAST, .k = 4};

	(void)state;
	assert_int_equal(rb_pattern_fits(&p, 5, why, sizeof(why)), 0);
	assert_int_equal(rb_pattern_fits(&p, 4, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "incast:4 needs at least 5 ranks"));
	p = (struct rb_pattern){.kind = RB_PAT_ALL_TO_ALL};
	assert_int_equal(rb_pattern_fits(&p, 33, why, sizeof(why)), 0);
	assert_int_equal(rb_pattern_fits(&p, 34, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "66 flows at one rank"));
	p = (struct rb_pattern){.kind = RB_PAT_INCAST, .k = 65};
	assert_int_equal(rb_pattern_fits(&p, 100, why, sizeof(why)), -EINVAL);
	p = (struct rb_pattern){.kind = RB_PAT_RING};
	assert_int_equal(rb_pattern_fits(&p, 1, why, sizeof(why)), -EINVAL);
	assert_int_equal(rb_pattern_fits(&p, 2, why, sizeof(why)), 0);
}

static void flow_stats(void **state)
{
	struct rb_flow_stats s;
	const double equal[] = {4, 4, 4}, one[] = {8, 0, 0, 0}, mixed[] = {3, NAN, 1, 2};

	(void)state;
	rb_flow_stats(equal, 3, &s);
	assert_true(s.n == 3 && s.nfailed == 0 && fabs(s.jain - 1) < 1e-12 && s.sum == 12);
	rb_flow_stats(one, 4, &s);
	assert_true(fabs(s.jain - 0.25) < 1e-12); /* one flow took it all: 1 / n */
	assert_true(s.argmin == 1 && s.min == 0 && s.max == 8);
	rb_flow_stats(mixed, 4, &s);
	assert_true(s.n == 3 && s.nfailed == 1 && s.sum == 6 && s.argmin == 2 && s.max == 3);
	assert_true(fabs(s.jain - 36.0 / (3 * 14)) < 1e-12);
	rb_flow_stats(mixed + 1, 1, &s);
	assert_true(s.n == 0 && s.nfailed == 1 && isnan(s.jain));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(parse),     cmocka_unit_test(incast_and_one_to_many),
	    cmocka_unit_test(bisection), cmocka_unit_test(all_to_all_and_ring),
	    cmocka_unit_test(fits),      cmocka_unit_test(flow_stats),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

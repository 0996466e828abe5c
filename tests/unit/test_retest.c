/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The --all-pairs re-test planner against a simulated fabric: for many N, rails and
 * fault placements (a bad transmit, a bad receive, a bad node, a bad link, two bad
 * nodes and a bad link, a slow spell in the schedule only), every hypothesis is
 * decided, exactly the faults placed are confirmed, everything else is cleared or
 * explained, and the re-tests stay within the stated bound: each hypothesis at most
 * R runs, runs <= R x the hypotheses tested. A fabric whose faults are steady: a
 * fault slows every run through it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fabric/retest.h"
#include "measure/schedule.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXE 128

struct fabric {
	uint32_t ranks, rails;
	bool tx[MAXE], rx[MAXE];   /* per end */
	uint32_t link_c, link_s;   /* one bad link between ends (UINT32_MAX: none) */
	uint32_t spell_c, spell_s; /* bad in the schedule only (UINT32_MAX: none) */
	bool round_trip;
};

static bool measure(const struct fabric *f, uint32_t c, uint32_t s, bool schedule)
{
	bool link = (c == f->link_c && s == f->link_s) || (f->round_trip && c == f->link_s && s == f->link_c);
	bool spell = schedule && ((c == f->spell_c && s == f->spell_s) ||
	                          (f->round_trip && c == f->spell_s && s == f->spell_c));

	if (c >= MAXE || s >= MAXE) {
		fail_msg("end %u or %u out of range", c, s);
		return false;
	}
	if (f->round_trip)
		return f->tx[c] || f->rx[c] || f->tx[s] || f->rx[s] || link || spell;
	return f->tx[c] || f->rx[s] || link || spell;
}

/*
 * A planned round: each pair measures the hypothesis it was planned for, on its rail,
 * and puts the end (or the link) under test on the right side of the pair.
 */
static void play(struct rb_retest *p, const struct rb_pair *pairs, const uint32_t *hyp, uint32_t np,
                 uint32_t rails, bool (*slow)(const void *arg, uint32_t c, uint32_t s), const void *arg)
{
	for (uint32_t i = 0; i < np; i++) {
		const struct rb_rt_hyp *h = rb_retest_hyp(p, hyp[i]);
		uint32_t rail = h->a % rails, c = pairs[i].client * rails + rail,
		         s = pairs[i].server * rails + rail;

		switch (h->kind) {
		case RB_RT_TX: assert_int_equal(c, h->a); break;
		case RB_RT_RX: assert_int_equal(s, h->a); break;
		case RB_RT_END: assert_true(c == h->a || s == h->a); break;
		default: assert_true(c == h->a && s == h->b); break;
		}
		rb_retest_record(p, hyp[i], slow(arg, c, s));
	}
}

/* A re-test on the simulated fabric: its steady faults only. */
static bool fabric_slow(const void *arg, uint32_t c, uint32_t s)
{
	return measure(arg, c, s, false);
}

static bool sender_5_slow(const void *arg, uint32_t c, uint32_t s)
{
	(void)arg;
	(void)s;
	return c == 5;
}

static bool link_3_7_slow(const void *arg, uint32_t c, uint32_t s)
{
	(void)arg;
	return c == 3 && s == 7;
}

/* The schedule (every pair, both directions unless round trip), then re-tests until decided. */
static void run(const struct fabric *f, uint32_t R, const char *what)
{
	struct rb_pairs_spec all = {RB_PAIRS_ALL, 0, 1};
	struct rb_retest p;
	struct rb_pair pairs[MAXE];
	uint32_t n = f->ranks, tested = 0, rounds = 0, hyp[MAXE];

	assert_int_equal(rb_retest_init(&p, n, f->rails, R, f->round_trip), 0);
	for (uint32_t r = 0; r < rb_sched_rounds(&all, n); r++) {
		uint32_t np = rb_sched_round(&all, n, 1, r, pairs);

		for (uint32_t i = 0; i < np; i++)
			for (int dir = 0; dir < (f->round_trip ? 1 : 2); dir++)
				for (uint32_t rail = 0; rail < f->rails; rail++) {
					uint32_t c =
					    (dir ? pairs[i].server : pairs[i].client) * f->rails + rail;
					uint32_t s =
					    (dir ? pairs[i].client : pairs[i].server) * f->rails + rail;

					assert_int_equal(rb_retest_seen(&p, c, s, measure(f, c, s, true)), 0);
				}
	}
	for (uint32_t np; (np = rb_retest_plan(&p, pairs, hyp)) > 0;) {
		bool busy[MAXE] = {false};

		assert_true(++rounds < 1000);
		for (uint32_t i = 0; i < np; i++) {
			assert_true(pairs[i].server < n && pairs[i].client < n);
			assert_true(pairs[i].server != pairs[i].client);
			assert_false(busy[pairs[i].server] || busy[pairs[i].client]);
			busy[pairs[i].server] = busy[pairs[i].client] = true;
		}
		play(&p, pairs, hyp, np, f->rails, fabric_slow, f);
	}
	for (uint32_t i = 0; i < rb_retest_count(&p); i++) {
		const struct rb_rt_hyp *h = rb_retest_hyp(&p, i);
		bool truth;

		switch (h->kind) {
		case RB_RT_TX: truth = f->tx[h->a]; break;
		case RB_RT_RX: truth = f->rx[h->a]; break;
		case RB_RT_END: truth = f->tx[h->a] || f->rx[h->a]; break;
		default:
			truth = (h->a == f->link_c && h->b == f->link_s) ||
			        (f->round_trip && h->a == f->link_s && h->b == f->link_c);
			/* A link through a confirmed bad end is explained, not tested. */
			if (truth &&
			    (f->tx[h->a] || f->rx[h->b] || (f->round_trip && (f->rx[h->a] || f->tx[h->b]))))
				truth = false;
		}
		/*
		 * Each re-test has a partner of its own: with fewer than R, a fault stays
		 * undecided, and so do the links through it; never a wrong confirmation.
		 */
		if (R > n - 1 && h->state == RB_RT_UNDECIDED)
			h = NULL;
		if (h && (h->state == RB_RT_OPEN || h->state == RB_RT_UNDECIDED ||
		          (h->state == RB_RT_CONFIRMED) != truth))
			fail_msg(
			    "%s, N %u, rails %u, R %u: %s %u -> %u is %s (%u of %u re-tests slow), truth %d",
			    what, n, f->rails, R, rb_rt_kind_name(h->kind), h->a, h->b,
			    rb_rt_state_name(h->state), h->slow, h->tests, truth);
		h = rb_retest_hyp(&p, i);
		assert_true(h->tests <= R);
		tested += h->tests > 0;
	}
	assert_true(p.runs <= R * tested);
	assert_int_equal(p.rounds, rounds);
	rb_retest_free(&p);
}

static void clean(struct fabric *f, uint32_t n, uint32_t rails, bool rt)
{
	memset(f, 0, sizeof(*f));
	f->ranks = n;
	f->rails = rails;
	f->link_c = f->link_s = f->spell_c = f->spell_s = UINT32_MAX;
	f->round_trip = rt;
}

static void placements(void **state)
{
	(void)state;
	for (int rt = 0; rt < 2; rt++)
		for (uint32_t rails = 1; rails <= 2; rails++)
			for (uint32_t n = 4; n * rails <= MAXE && n <= 33; n += n < 10 ? 1 : 7)
				for (uint32_t R = 1; R <= 4; R++) {
					struct fabric f;
					uint32_t e = (n / 2) * rails + rails - 1, o = (n - 1) * rails;

					clean(&f, n, rails, rt);
					run(&f, R, "a clean fabric");
					f.tx[e] = true;
					run(&f, R, "a bad transmit");
					clean(&f, n, rails, rt);
					f.rx[e] = true;
					run(&f, R, "a bad receive");
					f.tx[e] = true;
					run(&f, R, "a bad node");
					clean(&f, n, rails, rt);
					f.link_c = e;
					f.link_s = o;
					run(&f, R, "a bad link");
					clean(&f, n, rails, rt);
					f.spell_c = o;
					f.spell_s = e;
					run(&f, R, "a slow spell in the schedule");
					if (n < 6)
						continue;
					clean(&f, n, rails, rt);
					f.tx[0] = true;
					f.rx[e] = true;
					f.tx[e] = true;
					f.link_c = 1 * rails;
					f.link_s = o;
					run(&f, R, "two bad nodes and a bad link");
				}
}

/* The cost stated in retest.h: a bad transmit path at N = 32 takes R runs, not N. */
static void fewest_runs(void **state)
{
	uint32_t hyp[MAXE];
	struct fabric f;
	struct rb_pairs_spec all = {RB_PAIRS_ALL, 0, 1};
	struct rb_pair pairs[MAXE];
	struct rb_retest p;

	(void)state;
	clean(&f, 32, 1, false);
	f.tx[17] = true;
	assert_int_equal(rb_retest_init(&p, 32, 1, 3, false), 0);
	for (uint32_t r = 0; r < rb_sched_rounds(&all, 32); r++) {
		uint32_t np = rb_sched_round(&all, 32, 1, r, pairs);

		for (uint32_t i = 0; i < np; i++) {
			uint32_t a = pairs[i].client, b = pairs[i].server;

			assert_int_equal(rb_retest_seen(&p, a, b, measure(&f, a, b, true)), 0);
			assert_int_equal(rb_retest_seen(&p, b, a, measure(&f, b, a, true)), 0);
		}
	}
	for (uint32_t np; (np = rb_retest_plan(&p, pairs, hyp)) > 0;)
		play(&p, pairs, hyp, np, 1, fabric_slow, &f);
	assert_int_equal(p.runs, 3);
	assert_int_equal(p.rounds, 3);
	assert_int_equal(rb_retest_hyp(&p, 17 * 2)->state, RB_RT_CONFIRMED);
	assert_int_equal(rb_retest_hyp(&p, 17 * 2)->bad, 31);
	rb_retest_free(&p);
}

/*
 * Noise that held: rank 5's sending was slow in one pair of the schedule and in every
 * re-test, but fine in its other schedule pairs. Not a steady fault: unsteady, and
 * nobody is confirmed.
 */
static void unsteady(void **state)
{
	uint32_t hyp[MAXE];
	struct rb_pairs_spec all = {RB_PAIRS_ALL, 0, 1};
	struct rb_pair pairs[MAXE];
	struct rb_retest p;

	(void)state;
	assert_int_equal(rb_retest_init(&p, 8, 1, 3, false), 0);
	for (uint32_t r = 0; r < rb_sched_rounds(&all, 8); r++) {
		uint32_t np = rb_sched_round(&all, 8, 1, r, pairs);

		for (uint32_t i = 0; i < np; i++) {
			uint32_t a = pairs[i].client, b = pairs[i].server;

			assert_int_equal(rb_retest_seen(&p, a, b, a == 5 && b == 2), 0);
			assert_int_equal(rb_retest_seen(&p, b, a, b == 5 && a == 2), 0);
		}
	}
	for (uint32_t np; (np = rb_retest_plan(&p, pairs, hyp)) > 0;)
		play(&p, pairs, hyp, np, 1, sender_5_slow, NULL);
	assert_int_equal(rb_retest_hyp(&p, 5 * 2)->state, RB_RT_UNSTEADY);
	assert_int_equal(rb_retest_hyp(&p, 5 * 2)->slow, 3);
	for (uint32_t i = 0; i < rb_retest_count(&p); i++)
		assert_int_not_equal(rb_retest_hyp(&p, i)->state, RB_RT_CONFIRMED);
	rb_retest_free(&p);
}

/*
 * A fabric so noisy that about 30 % of the schedule's results are slow (spells that
 * pass), and one pair, 3 -> 7, slow in every re-test. With that much noise the links
 * tested would give more than 0.05 false alarms: 3 -> 7 is unsteady, nobody confirmed.
 * Without the noise the same link is confirmed.
 */
static void noisy_link(void **state)
{
	uint32_t hyp[MAXE];
	struct rb_pairs_spec all = {RB_PAIRS_ALL, 0, 1};
	struct rb_pair pairs[MAXE];

	(void)state;
	for (int noisy = 0; noisy < 2; noisy++) {
		struct rb_retest p;
		uint32_t results = 0;

		assert_int_equal(rb_retest_init(&p, 16, 1, 3, false), 0);
		for (uint32_t r = 0; r < rb_sched_rounds(&all, 16); r++) {
			uint32_t np = rb_sched_round(&all, 16, 1, r, pairs);

			for (uint32_t i = 0; i < np; i++)
				for (int dir = 0; dir < 2; dir++) {
					uint32_t a = dir ? pairs[i].server : pairs[i].client;
					uint32_t b = dir ? pairs[i].client : pairs[i].server;
					bool spell = noisy && (a * 7 + b * 13) % 10 < 3;

					assert_int_equal(
					    rb_retest_seen(&p, a, b, spell || (a == 3 && b == 7)), 0);
					results++;
				}
		}
		for (uint32_t np; (np = rb_retest_plan(&p, pairs, hyp)) > 0;)
			play(&p, pairs, hyp, np, 1, link_3_7_slow, NULL);
		rb_retest_finish(&p, results);
		for (uint32_t i = 0; i < rb_retest_count(&p); i++) {
			const struct rb_rt_hyp *h = rb_retest_hyp(&p, i);

			if (h->kind == RB_RT_LINK && h->a == 3 && h->b == 7)
				assert_int_equal(h->state, noisy ? RB_RT_UNSTEADY : RB_RT_CONFIRMED);
			else
				assert_int_not_equal(h->state, RB_RT_CONFIRMED);
		}
		assert_true(noisy ? p.false_alarms > 0.05 : p.false_alarms < 0.05);
		rb_retest_free(&p);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(placements),
	    cmocka_unit_test(fewest_runs),
	    cmocka_unit_test(unsteady),
	    cmocka_unit_test(noisy_link),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

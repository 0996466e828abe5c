/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * --all-pairs, the pure parts: the schedule (each rank at most once per round, the
 * coverage each mode promises), the outliers (slow pairs, suspect ranks) and the
 * control frames read as a hostile peer wrote them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "fabric/fabmsg.h"
#include "fabric/outliers.h"
#include "measure/schedule.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MAXN 41

/* Every round of a plan: no rank twice, ranks in range, the server unlike the client. */
static unsigned plan(const struct rb_pairs_spec *s, uint32_t n, uint64_t seed, unsigned cover[MAXN][MAXN],
                     unsigned served[MAXN])
{
	struct rb_pair p[MAXN];
	unsigned total = 0;

	memset(cover, 0, sizeof(unsigned) * MAXN * MAXN);
	memset(served, 0, sizeof(unsigned) * MAXN);
	for (uint32_t r = 0; r < rb_sched_rounds(s, n); r++) {
		unsigned seen[MAXN] = {0};
		uint32_t np = rb_sched_round(s, n, seed, r, p);

		assert_true(np <= n / 2);
		for (uint32_t i = 0; i < np; i++) {
			struct rb_pair mine;

			assert_true(p[i].server < n && p[i].client < n && p[i].server != p[i].client);
			assert_int_equal(seen[p[i].server]++, 0);
			assert_int_equal(seen[p[i].client]++, 0);
			cover[p[i].server][p[i].client]++;
			cover[p[i].client][p[i].server]++;
			served[p[i].server]++;
			/* Each rank finds its own pair the same way. */
			assert_int_equal(rb_sched_mine(s, n, seed, r, p[i].client, &mine), 1);
			assert_true(mine.server == p[i].server && mine.client == p[i].client);
			total++;
		}
		/* Even n: the circle method pairs everyone in every round. */
		if (s->mode != RB_PAIRS_RING && n % 2 == 0)
			assert_int_equal(np, n / 2);
		for (uint32_t k = 0; k < n; k++) {
			struct rb_pair mine;
			assert_int_equal(rb_sched_mine(s, n, seed, r, k, &mine), seen[k] ? 1 : 0);
		}
	}
	return total;
}

static void schedule_all(void **state)
{
	struct rb_pairs_spec s = {RB_PAIRS_ALL, 0, 1};
	static unsigned cover[MAXN][MAXN];
	unsigned served[MAXN];
	(void)state;
	for (uint32_t n = 2; n <= MAXN; n++) {
		assert_int_equal(rb_sched_rounds(&s, n), n % 2 ? n : n - 1);
		assert_int_equal(plan(&s, n, 0, cover, served), n * (n - 1) / 2);
		for (uint32_t a = 0; a < n; a++) {
			for (uint32_t b = 0; b < n; b++)
				assert_int_equal(cover[a][b], a == b ? 0 : 1);
			/* Who serves alternates: nobody serves in every round of a larger job. */
			if (n >= 4)
				assert_true(served[a] < rb_sched_rounds(&s, n));
		}
	}
}

/* --directions both: every ordered pair once, the second round of each two the first reversed. */
static void schedule_both_ways(void **state)
{
	(void)state;
	for (int mode = 0; mode < 3; mode++)
		for (uint32_t n = 2; n <= MAXN; n++) {
			struct rb_pairs_spec one = {(enum rb_pairs_mode)mode, 3, 1},
			                     two = {(enum rb_pairs_mode)mode, 3, 2};
			static unsigned sent[MAXN][MAXN];
			struct rb_pair a[MAXN], b[MAXN];

			memset(sent, 0, sizeof(sent));
			assert_int_equal(rb_sched_rounds(&two, n), 2 * rb_sched_rounds(&one, n));
			for (uint32_t r = 0; r < rb_sched_rounds(&one, n); r++) {
				uint32_t na = rb_sched_round(&two, n, 5, 2 * r, a),
				         nb = rb_sched_round(&two, n, 5, 2 * r + 1, b);

				assert_int_equal(na, nb);
				for (uint32_t i = 0; i < na; i++) {
					assert_true(a[i].server == b[i].client && a[i].client == b[i].server);
					sent[a[i].client][a[i].server]++;
					sent[b[i].client][b[i].server]++;
				}
			}
			for (uint32_t x = 0; mode == RB_PAIRS_ALL && x < n; x++)
				for (uint32_t y = 0; y < n; y++)
					assert_int_equal(sent[x][y], x == y ? 0 : 1);
		}
}

static void schedule_ring(void **state)
{
	struct rb_pairs_spec s = {RB_PAIRS_ALL, 0, 1};
	static unsigned cover[MAXN][MAXN];
	unsigned served[MAXN];
	(void)state;
	assert_int_equal(rb_pairs_parse("ring", &s), 0);
	for (uint32_t n = 2; n <= MAXN; n++) {
		assert_int_equal(rb_sched_rounds(&s, n), n == 2 ? 1 : n % 2 ? 3 : 2);
		assert_int_equal(plan(&s, n, 0, cover, served), n == 2 ? 1 : n);
		for (uint32_t a = 0; a < n; a++)
			assert_int_equal(cover[a][(a + 1) % n], 1);
	}
}

static void schedule_random(void **state)
{
	struct rb_pairs_spec s = {RB_PAIRS_ALL, 0, 1};
	static unsigned cover[MAXN][MAXN];
	unsigned served[MAXN];
	(void)state;
	assert_int_equal(rb_pairs_parse("random:3", &s), 0);
	assert_int_equal(s.k, 3);
	for (uint32_t n = 4; n <= MAXN; n += 2) {
		for (uint64_t seed = 1; seed < 5; seed++) {
			assert_int_equal(plan(&s, n, seed, cover, served), 3 * n / 2);
			/* Every rank meets 3 different partners. */
			for (uint32_t a = 0; a < n; a++) {
				unsigned partners = 0;
				for (uint32_t b = 0; b < n; b++) {
					assert_true(cover[a][b] <= 1);
					partners += cover[a][b];
				}
				assert_int_equal(partners, 3);
			}
		}
	}
	/* K beyond the rounds there are is all of them. */
	assert_int_equal(rb_pairs_parse("random:100", &s), 0);
	assert_int_equal(rb_sched_rounds(&s, 6), 5);
	/* The same seed draws the same plan on every rank; another seed another one. */
	{
		struct rb_pair a[8], b[8];
		bool differ = false;
		assert_int_equal(rb_pairs_parse("random:1", &s), 0);
		for (uint64_t seed = 1; seed < 20 && !differ; seed++) {
			rb_sched_round(&s, 16, 7, 0, a);
			rb_sched_round(&s, 16, 7, 0, b);
			assert_memory_equal(a, b, sizeof(a));
			rb_sched_round(&s, 16, seed + 100, 0, b);
			differ = memcmp(a, b, sizeof(a)) != 0;
		}
		assert_true(differ);
	}
	for (const char **bad = (const char *[]){"", "al", "random", "random:", "random:0", "random:x",
	                                         "ring2", "random:-1", NULL};
	     *bad; bad++)
		assert_int_equal(rb_pairs_parse(*bad, &s), -EINVAL);
}

/* Results into a summary: {server, client, value} each. */
struct res {
	uint32_t server, client;
	double value;
};

static double judge(struct rb_outliers *o, const struct res *r, unsigned n, bool lower_better, bool *complete)
{
	o->lower_better = lower_better;
	for (unsigned i = 0; i < n; i++)
		assert_int_equal(rb_outliers_add(o, r[i].server, r[i].client, r[i].value, "why"), 0);
	return rb_outliers_judge(o, 0.8, false, complete);
}

/* Whether the judged summary holds (server, client) as slow. */
static bool is_slow(const struct rb_outliers *o, uint32_t server, uint32_t client)
{
	for (uint32_t i = 0; i < o->nworst; i++)
		if (o->worst[i].server == server && o->worst[i].client == client)
			return o->worst[i].slow;
	return false;
}

static void outliers_bw(void **state)
{
	/* 4 ranks, every pair through rank 3 at a third of the rest. */
	const struct res p[] = {
	    {0, 1, 10.0}, {2, 3, 3.0}, {0, 2, 9.8}, {1, 3, 3.2}, {3, 0, 3.1}, {1, 2, 10.2},
	};
	struct rb_outliers o;
	bool complete;
	double med;
	(void)state;
	assert_int_equal(rb_outliers_init(&o, 4, 64), 0);
	med = judge(&o, p, 6, false, &complete);
	assert_true(fabs(med - (3.2 + 9.8) / 2) < 1e-9);
	assert_true(complete);
	/* median 6.5: 0.8 x median = 5.2; the three through rank 3 are slow, in the order they came. */
	assert_false(is_slow(&o, 0, 1));
	assert_true(is_slow(&o, 2, 3) && is_slow(&o, 1, 3) && is_slow(&o, 3, 0));
	assert_true(o.worst[0].seq < o.worst[1].seq);
	assert_true(o.tally[3].suspect);
	assert_int_equal(o.tally[3].slow, 3);
	assert_int_equal(o.tally[3].measured, 3);
	/* Rank 3 sent once (3 -> 0: server 0, client 3) and received twice. */
	assert_int_equal(o.tally[3].slow_as[0], 2);
	assert_int_equal(o.tally[3].slow_as[1], 1);
	for (int r = 0; r < 3; r++) {
		assert_false(o.tally[r].suspect);
		assert_int_equal(o.tally[r].slow, 1);
	}
	rb_outliers_free(&o);
}

static void outliers_lat_and_failed(void **state)
{
	/* Latency: higher is worse. One pair failed (NaN): counted, not measured. */
	const struct res p[] = {{0, 1, 2.0}, {2, 3, 2.1}, {0, 2, 9.0}, {1, 3, NAN}};
	const struct res none[] = {{0, 1, NAN}, {2, 3, NAN}};
	struct rb_outliers o;
	double med;
	(void)state;
	assert_int_equal(rb_outliers_init(&o, 4, 64), 0);
	med = judge(&o, p, 4, true, NULL);
	assert_true(fabs(med - 2.1) < 1e-9);
	assert_false(is_slow(&o, 0, 1) || is_slow(&o, 2, 3));
	assert_true(is_slow(&o, 0, 2));
	assert_int_equal(o.nfailed, 1);
	assert_int_equal(o.nfailed_kept, 1);
	assert_string_equal(o.err[0], "why");
	assert_int_equal(o.tally[1].failed, 1);
	assert_int_equal(o.tally[1].measured, 1);
	assert_true(o.tally[2].suspect == false); /* 1 of 2 measured slow: not more than half */
	assert_true(o.tally[0].suspect == false);
	/* An end out of range is refused. */
	assert_int_equal(rb_outliers_add(&o, 4, 0, 1.0, NULL), -EINVAL);
	rb_outliers_free(&o);
	/* Nothing measured: no median, nothing slow. */
	assert_int_equal(rb_outliers_init(&o, 4, 64), 0);
	assert_true(isnan(judge(&o, none, 2, true, NULL)));
	assert_int_equal(o.nworst, 0);
	rb_outliers_free(&o);
}

/*
 * The bound: 1.1 million results (past the exact median's 1 M) into a summary that
 * holds 100 of the worst and 100 failures. The median comes from the histogram within
 * its error; the slow results are exactly the 61 placed; failures beyond 100 are
 * counted, not held; and with 150 slow results the summary says it is not whole.
 */
static void outliers_bounded(void **state)
{
	struct rb_outliers o;
	bool complete;
	uint32_t slow, held;
	(void)state;
	for (int over = 0; over < 2; over++) {
		uint32_t placed = over ? 150 : 60;

		assert_int_equal(rb_outliers_init(&o, 64, 100), 0);
		slow = 0;
		for (uint32_t i = 0; i < 1100000; i++) {
			bool bad = i % (1100000 / placed) == 7;
			double v = bad ? 1.0 : 90.0 + (double)(i % 1000) / 100.0;

			slow += bad;
			assert_int_equal(rb_outliers_add(&o, i % 64, (i + 1) % 64, v, NULL), 0);
		}
		for (uint32_t i = 0; i < 125; i++)
			assert_int_equal(rb_outliers_add(&o, 1, 2, NAN, "failed"), 0);
		assert_null(o.values);
		assert_true(fabs(rb_outliers_judge(&o, 0.8, false, &complete) - 95.0) < 95.0 * 0.001);
		held = 0;
		for (uint32_t i = 0; i < o.nworst; i++)
			held += o.worst[i].slow;
		assert_int_equal(held, over ? 100 : slow);
		assert_true(complete == !over);
		assert_int_equal(o.nfailed, 125);
		assert_int_equal(o.nfailed_kept, 100);
		assert_int_equal(o.results, 1100125);
		rb_outliers_free(&o);
	}
}

static void frames(void **state)
{
	static uint8_t buf[RB_FAB_ROW_MAX];
	struct rb_wbuf w = {buf, 0, sizeof(buf), false};
	struct rb_row row;
	static struct rb_fab_row back;
	struct rb_fab_join
	    j = {2, 4, 77, 2, "0123456789abcde", "node-a", "rbrxe0,rbrxe1", "node-a 4000,4001 0"},
	    j2;
	struct rb_fab_end e = {1, 3, 1, "peer closed", "mlx5_0"}, e2;
	struct rb_fab_go g = {.round = 7, .partner = 3, .role = RB_GO_CLIENT, .phase = RB_GO_RETEST}, g2;
	(void)state;

	memset(&row, 0, sizeof(row));
	rb_row_u64(&row, "bytes", "#bytes", 65536);
	rb_row_dbl(&row, "bw_avg_gbps", "BW average[Gb/s]", 3, 12.5);
	rb_row_bool(&row, "verify", NULL, true);
	rb_row_str(&row, "mode", NULL, "write");
	rb_fab_row_encode(&w, 2, 1, 3, 1, &row);
	assert_false(w.err);
	assert_int_equal(rb_fab_row_decode(buf, w.len, &back), 0);
	assert_int_equal(back.round, 2);
	assert_int_equal(back.server, 1);
	assert_int_equal(back.client, 3);
	assert_int_equal(back.rail, 1);
	assert_int_equal(back.row.n, 4);
	assert_string_equal(back.row.f[1].key, "bw_avg_gbps");
	assert_string_equal(back.row.f[1].label, "BW average[Gb/s]");
	assert_true(back.row.f[1].v.d == 12.5);
	assert_null(back.row.f[2].label);
	assert_string_equal(back.row.f[3].s, "write");
	/* Every truncation, and one byte too many, is refused. */
	for (size_t len = 0; len < w.len; len++)
		assert_int_equal(rb_fab_row_decode(buf, len, &back), -EPROTO);
	assert_int_equal(rb_fab_row_decode(buf, w.len + 1, &back), -EPROTO);
	/* A field count beyond a row, an unknown type, a bool that is not 0 or 1. */
	buf[16] = 0xff;
	buf[17] = 0xff;
	assert_int_equal(rb_fab_row_decode(buf, w.len, &back), -EPROTO);
	buf[16] = 0;
	buf[17] = 4;
	buf[18] = 9;
	assert_int_equal(rb_fab_row_decode(buf, w.len, &back), -EPROTO);
	buf[18] = RB_F_U64;
	assert_int_equal(rb_fab_row_decode(buf, w.len, &back), 0);
	/* A bool is 0 or 1 (the row's last byte here). */
	{
		struct rb_row one;
		memset(&one, 0, sizeof(one));
		rb_row_bool(&one, "verify", NULL, true);
		w.len = 0;
		rb_fab_row_encode(&w, 0, 0, 1, 0, &one);
		assert_int_equal(rb_fab_row_decode(buf, w.len, &back), 0);
		buf[w.len - 1] = 2;
		assert_int_equal(rb_fab_row_decode(buf, w.len, &back), -EPROTO);
	}
	/* A key too long for the decoder's arrays is not encoded at all. */
	{
		struct rb_row big;
		char key[80];
		memset(key, 'k', sizeof(key) - 1);
		key[sizeof(key) - 1] = '\0';
		memset(&big, 0, sizeof(big));
		rb_row_u64(&big, key, NULL, 1);
		w.len = 0;
		rb_fab_row_encode(&w, 0, 0, 1, 0, &big);
		assert_true(w.err);
	}

	w = (struct rb_wbuf){buf, 0, sizeof(buf), false};
	rb_fab_join_encode(&w, &j);
	assert_int_equal(rb_fab_join_decode(buf, w.len, &j2), 0);
	assert_int_equal(j2.rank, 2);
	assert_string_equal(j2.dev, "rbrxe0,rbrxe1");
	assert_int_equal(j2.rails, 2);
	assert_memory_equal(j2.cookie, "0123456789abcde", RB_FAB_COOKIE_LEN);
	/* No rails, or more than a rank can have, is refused. */
	j.rails = 17;
	w.len = 0;
	rb_fab_join_encode(&w, &j);
	assert_int_equal(rb_fab_join_decode(buf, w.len, &j2), -EPROTO);
	j.rails = 0;
	w.len = 0;
	rb_fab_join_encode(&w, &j);
	assert_int_equal(rb_fab_join_decode(buf, w.len, &j2), -EPROTO);
	j.rails = 2;
	/* A rank outside the job's size is refused. */
	j.rank = 4;
	w.len = 0;
	rb_fab_join_encode(&w, &j);
	assert_int_equal(rb_fab_join_decode(buf, w.len, &j2), -EPROTO);

	w.len = 0;
	rb_fab_end_encode(&w, &e);
	assert_int_equal(rb_fab_end_decode(buf, w.len, &e2), 0);
	assert_string_equal(e2.error, "peer closed");
	assert_string_equal(e2.dev, "mlx5_0");
	e.code = 256;
	w.len = 0;
	rb_fab_end_encode(&w, &e);
	assert_int_equal(rb_fab_end_decode(buf, w.len, &e2), -EPROTO);

	w.len = 0;
	rb_fab_go_encode(&w, &g);
	assert_int_equal(rb_fab_go_decode(buf, w.len, &g2), 0);
	assert_true(g2.round == 7 && g2.partner == 3 && g2.role == RB_GO_CLIENT && g2.phase == RB_GO_RETEST);
	assert_int_equal(rb_fab_go_decode(buf, w.len - 1, &g2), -EPROTO);
	/* A role out of range, a pair without a partner, a rank that sits out with one. */
	for (int bad = 0; bad < 3; bad++) {
		struct rb_fab_go x = g;

		x.role = bad == 0 ? 5 : bad == 1 ? RB_GO_SERVER : RB_GO_IDLE;
		x.partner = bad == 1 ? UINT32_MAX : 3;
		w.len = 0;
		rb_fab_go_encode(&w, &x);
		assert_int_equal(rb_fab_go_decode(buf, w.len, &g2), -EPROTO);
	}
	/* --pattern: several flows at once, each a partner and a role; read as a hostile peer wrote it. */
	{
		static struct rb_fab_go f, x;

		memset(&f, 0, sizeof(f));
		f.round = 2;
		f.partner = UINT32_MAX;
		f.role = RB_GO_FLOWS;
		f.nflows = 3;
		f.flows[0] = (struct rb_fab_flow){1, RB_GO_SERVER};
		f.flows[1] =
		    (struct rb_fab_flow){1, RB_GO_CLIENT}; /* all-to-all: both ways with one partner */
		f.flows[2] = (struct rb_fab_flow){5, RB_GO_SERVER};
		w.len = 0;
		rb_fab_go_encode(&w, &f);
		assert_int_equal(rb_fab_go_decode(buf, w.len, &g2), 0);
		assert_true(g2.role == RB_GO_FLOWS && g2.nflows == 3 && g2.flows[2].partner == 5 &&
		            g2.flows[1].role == RB_GO_CLIENT);
		for (size_t len = 0; len < w.len; len++)
			assert_int_equal(rb_fab_go_decode(buf, len, &g2), -EPROTO);
		/* --victim: its own roles, beside a pattern flow with the same partner. */
		x = f;
		x.nflows = 4;
		x.flows[3] = (struct rb_fab_flow){1, RB_FLOW_VICTIM_SERVER};
		w.len = 0;
		rb_fab_go_encode(&w, &x);
		assert_int_equal(rb_fab_go_decode(buf, w.len, &g2), 0);
		assert_true(g2.nflows == 4 && g2.flows[3].role == RB_FLOW_VICTIM_SERVER);
		w.len = 0;
		rb_fab_go_encode(&w, &f);
		assert_int_equal(rb_fab_go_decode(buf, w.len + 1, &g2), -EPROTO);
		for (int bad = 0; bad < 5; bad++) {
			x = f;
			if (bad == 0)
				x.flows[2] = (struct rb_fab_flow){1, RB_GO_SERVER}; /* the same flow twice */
			else if (bad == 1)
				x.flows[1].role = RB_FLOW_VICTIM_CLIENT + 1;
			else if (bad == 2)
				x.flows[0].partner = UINT32_MAX;
			else if (bad == 3)
				x.partner = 4;
			w.len = 0;
			rb_fab_go_encode(&w, &x);
			if (bad ==
			    4) { /* no flows, or more than a rank runs: the count is checked before use */
				buf[10] = 0, buf[11] = 0;
				assert_int_equal(rb_fab_go_decode(buf, 12, &g2), -EPROTO);
				buf[10] = 0, buf[11] = RB_FAB_GO_FLOWS + 1;
			}
			assert_int_equal(rb_fab_go_decode(buf, w.len, &g2), -EPROTO);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(schedule_all),     cmocka_unit_test(schedule_both_ways),
	    cmocka_unit_test(schedule_ring),    cmocka_unit_test(schedule_random),
	    cmocka_unit_test(outliers_bw),      cmocka_unit_test(outliers_lat_and_failed),
	    cmocka_unit_test(outliers_bounded), cmocka_unit_test(frames),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

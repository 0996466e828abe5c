/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The send-queue planner (sendq.h) against a simulated send queue and CQ, over an
 * exhaustive grid of tx depth, post list, CQ moderation and message counts, with
 * verify windows and a -D stop at every point of a run.
 *
 * The simulated HCA executes posted WRs in order whenever the adversary lets it;
 * only a signaled WR produces a completion, and polling it retires every WR before
 * it on that QP (as the hardware frees send-queue slots). Whenever the planner
 * posts nothing and the step is not done, the HCA runs everything outstanding: if
 * that yields no completion, the run can never progress (a stall).
 *
 * The old rule (whole lists only, a WR signaled only when its number is a multiple
 * of the moderation or the target) is kept here as old_plan: the test proves the
 * simulator catches its stalls. RB_SENDQ_OLD_RULE=1 runs the whole grid with it.
 *
 * The planner under a timed model, feeding the peak estimator, is test_peak.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "measure/pace.h"
#include "measure/sendq.h"

#include <stdio.h>
#include <stdlib.h>
#include <math.h>
#include <string.h>

#define MAX_SEQ (1u << 16)
#define NO_STOP UINT64_MAX

enum policy {
	LAZY,     /* the HCA runs only when the engine waits; all completions polled at once */
	EAGER,    /* every WR executes as it is posted; one completion polled per turn */
	ONEBYONE, /* the HCA runs on waits; the engine polls one completion and replans */
	RANDOM,   /* the HCA runs a random number of WRs; random poll batches */
	NPOLICIES,
};

typedef struct rb_sendq_plan (*plan_fn)(const struct rb_sendq *q);
typedef void (*stop_fn)(struct rb_sendq *q);

struct sim {
	struct rb_sendq q;
	plan_fn plan;
	stop_fn stop;
	enum policy policy;
	uint64_t rng;
	uint64_t executed;           /* the HCA ran WRs 1..executed */
	unsigned cq_head, cq_n;      /* pending completions in cq[], oldest first */
	unsigned max_pending, bound; /* pending completions: most seen, allowed */
	bool vary_limit;             /* -D's in-flight limit drawn anew before every plan */
	char why[160];
	/* Written before they are read: not cleared between runs. */
	uint8_t sig[MAX_SEQ + 2]; /* sig[n]: WR n was signaled */
	uint64_t cq[MAX_SEQ];
};

static bool use_old_rule;

/* ---------------------------------------------------------------- the old rule */

static struct rb_sendq_plan old_plan(const struct rb_sendq *q)
{
	struct rb_sendq_plan p = {0, 0};
	uint64_t room = q->depth - (q->posted - q->completed), left = q->target - q->posted;
	uint64_t want = left < q->post_list ? left : q->post_list;

	if (q->posted >= q->target || room < want)
		return p;
	p.n = (unsigned)want;
	for (unsigned i = 0; i < p.n; i++) {
		uint64_t seq = q->posted + 1 + i;
		if (seq % q->sig_every == 0 || seq == q->target)
			p.sig |= 1ull << i;
	}
	return p;
}

static void old_stop(struct rb_sendq *q)
{
	q->target = (q->posted + q->sig_every - 1) / q->sig_every * q->sig_every;
}

/* ---------------------------------------------------------------- simulator */

static uint64_t rnd(struct sim *s)
{
	s->rng ^= s->rng << 13;
	s->rng ^= s->rng >> 7;
	s->rng ^= s->rng << 17;
	return s->rng;
}

/* The HCA executes WRs up to `upto`; signaled ones land in the CQ. */
static void execute(struct sim *s, uint64_t upto)
{
	while (s->executed < upto) {
		uint64_t seq = ++s->executed;
		if (s->sig[seq]) {
			s->cq[(s->cq_head + s->cq_n) % MAX_SEQ] = seq;
			s->cq_n++;
			if (s->cq_n > s->max_pending)
				s->max_pending = s->cq_n;
		}
	}
}

/* The engine polls up to `batch` completions. */
static void poll(struct sim *s, unsigned batch)
{
	while (batch-- && s->cq_n) {
		uint64_t seq = s->cq[s->cq_head];
		s->cq_head = (s->cq_head + 1) % MAX_SEQ;
		s->cq_n--;
		rb_sendq_complete(&s->q, seq);
	}
}

static bool post(struct sim *s, const struct rb_sendq_plan *p)
{
	struct rb_sendq *q = &s->q;

	if (p->n > q->post_list || p->n > RB_SENDQ_MAX_POST_LIST) {
		snprintf(s->why, sizeof(s->why), "a list of %u WRs (post list %u)", p->n, q->post_list);
		return false;
	}
	if (q->posted + p->n - q->completed > q->depth) {
		snprintf(s->why, sizeof(s->why), "overfilled: %llu outstanding + %u > depth",
		         (unsigned long long)(q->posted - q->completed), p->n);
		return false;
	}
	/* Past the limit only by the one signaled WR that keeps completions coming. */
	if (q->limit && q->posted + p->n - q->completed > q->limit && (p->n > 1 || p->sig != 1)) {
		snprintf(s->why, sizeof(s->why), "past the limit: %llu outstanding + %u > %u",
		         (unsigned long long)(q->posted - q->completed), p->n, q->limit);
		return false;
	}
	if (q->posted + p->n > q->target) {
		snprintf(s->why, sizeof(s->why), "posted past the target %llu",
		         (unsigned long long)q->target);
		return false;
	}
	if (q->posted + p->n > MAX_SEQ) {
		snprintf(s->why, sizeof(s->why), "simulator limit: more than %u WRs", MAX_SEQ);
		return false;
	}
	for (unsigned i = 0; i < p->n; i++)
		s->sig[q->posted + 1 + i] = p->sig >> i & 1;
	if (p->n && (p->sig >> (p->n - 1)) == 0 && q->posted + p->n == q->target) {
		snprintf(s->why, sizeof(s->why), "target %llu not signaled", (unsigned long long)q->target);
		return false;
	}
	rb_sendq_posted(q, p);
	return true;
}

/*
 * Runs one window: the engine plans and posts until every WR up to the target is
 * retired. stop_after: the number of engine actions after which -D runs out
 * (NO_STOP: never). Returns false with s->why set on a stall or a broken rule.
 */
static bool run_window(struct sim *s, uint64_t stop_after)
{
	struct rb_sendq *q = &s->q;
	uint64_t actions = 0, limit = 64 * (uint64_t)MAX_SEQ;

	while (!rb_sendq_done(q)) {
		struct rb_sendq_plan p;

		if (actions++ == stop_after) {
			uint64_t at = q->posted;
			s->stop(q);
			if (q->target != at && q->target != at + 1) {
				snprintf(s->why, sizeof(s->why), "stopped at %llu with target %llu",
				         (unsigned long long)at, (unsigned long long)q->target);
				return false;
			}
		}
		if (actions > limit) {
			snprintf(s->why, sizeof(s->why), "no end after %llu actions",
			         (unsigned long long)limit);
			return false;
		}
		if (s->policy == RANDOM && rnd(s) % 3 == 0)
			poll(s, 1 + (unsigned)(rnd(s) % 4));
		if (s->vary_limit)
			q->limit = (uint32_t)(rnd(s) % (q->depth + 1));
		p = s->plan(q);
		if (p.n) {
			if (!post(s, &p))
				return false;
			if (s->policy == EAGER)
				execute(s, q->posted);
			else if (s->policy == RANDOM)
				execute(s, s->executed + rnd(s) % (q->posted - s->executed + 1));
			if (s->policy == EAGER)
				poll(s, 1);
			continue;
		}
		if (rb_sendq_done(q))
			break;
		/* The engine waits: whatever is outstanding runs, and a completion must come. */
		execute(s, q->posted);
		if (!s->cq_n) {
			snprintf(s->why, sizeof(s->why),
			         "stall: %llu posted, %llu retired, target %llu, no signaled WR outstanding",
			         (unsigned long long)q->posted, (unsigned long long)q->completed,
			         (unsigned long long)q->target);
			return false;
		}
		poll(s, s->policy == ONEBYONE ? 1 : s->policy == RANDOM ? 1 + (unsigned)(rnd(s) % 16) : 16);
	}
	if (q->posted != q->target || q->completed != q->target) {
		snprintf(s->why, sizeof(s->why), "ended with %llu posted, %llu retired, target %llu",
		         (unsigned long long)q->posted, (unsigned long long)q->completed,
		         (unsigned long long)q->target);
		return false;
	}
	if (s->max_pending > s->bound) {
		snprintf(s->why, sizeof(s->why), "%u completions pending at once, bound %u", s->max_pending,
		         s->bound);
		return false;
	}
	return true;
}

static void sim_init(struct sim *s, uint32_t depth, uint32_t post_list, uint32_t sig_every, enum policy pol)
{
	bool vary = s->vary_limit;

	memset(s, 0, offsetof(struct sim, sig));
	s->vary_limit = vary;
	rb_sendq_init(&s->q, depth, post_list, sig_every);
	s->plan = use_old_rule ? old_plan : rb_sendq_plan;
	s->stop = use_old_rule ? old_stop : rb_sendq_stop;
	s->policy = pol;
	s->rng = 0x9e3779b97f4a7c15ull ^ ((uint64_t)depth << 32 | post_list << 16 | sig_every);
	s->bound = rb_sendq_max_signaled(depth, sig_every);
}

/*
 * One configuration: msgs messages in windows of `window` (verify mode: each
 * window is run to completion before the next), or -D (msgs == 0) stopped after
 * stop_after actions.
 */
static bool run_case(struct sim *s, uint32_t depth, uint32_t post_list, uint32_t sig_every, enum policy pol,
                     uint64_t msgs, uint64_t window, uint64_t stop_after)
{
	sim_init(s, depth, post_list, sig_every, pol);
	if (!msgs) {
		s->q.target = UINT64_MAX;
		return run_window(s, stop_after);
	}
	for (uint64_t base = 0; base < msgs; base += window) {
		s->q.target = base + window < msgs ? base + window : msgs;
		if (!run_window(s, NO_STOP))
			return false;
	}
	return true;
}

static const char *const policy_names[] = {"lazy", "eager", "one-by-one", "random"};

static unsigned failures, stalls;
static uint64_t cases;

static void report(const struct sim *s, const char *what, uint32_t depth, uint32_t post_list,
                   uint32_t sig_every, enum policy pol, uint64_t msgs, uint64_t window, uint64_t stop_after)
{
	stalls += !strncmp(s->why, "stall", 5);
	if (failures++ < 8)
		printf("FAIL %s -t %u -l %u -Q %u, %llu msgs, window %llu, stop after %lld, %s HCA: %s\n",
		       what, depth, post_list, sig_every, (unsigned long long)msgs,
		       (unsigned long long)window, stop_after == NO_STOP ? -1ll : (long long)stop_after,
		       policy_names[pol], s->why);
}

static void try_case(struct sim *s, const char *what, uint32_t depth, uint32_t post_list, uint32_t sig_every,
                     enum policy pol, uint64_t msgs, uint64_t window, uint64_t stop_after)
{
	cases++;
	if (!run_case(s, depth, post_list, sig_every, pol, msgs, window, stop_after))
		report(s, what, depth, post_list, sig_every, pol, msgs, window, stop_after);
}

static struct sim *sim_new(void)
{
	struct sim *s = malloc(sizeof(*s));

	assert_non_null(s);
	s->vary_limit = false;
	failures = stalls = 0;
	cases = 0;
	return s;
}

/* Depths: every one to 32, then the edges around powers of two and the default. */
static const uint32_t depths[] = {1,  2,  3,  4,  5,  6,  7,  8,  9,   10,  11,  12,  13,  14,
                                  15, 16, 17, 18, 19, 20, 21, 22, 23,  24,  25,  26,  27,  28,
                                  29, 30, 31, 32, 33, 63, 64, 65, 100, 127, 128, 129, 255, 256};
static const uint32_t big_values[] = {1,  2,  3,  5,  7,   8,   16,  31,  32, 33,
                                      50, 63, 64, 99, 100, 101, 127, 128, 129};

/* Every value 1..max up to 32, else a spread that keeps the edges. */
static unsigned values(uint32_t max, uint32_t *out)
{
	unsigned n = 0;

	if (max <= 32) {
		for (uint32_t v = 1; v <= max; v++)
			out[n++] = v;
		return n;
	}
	for (unsigned i = 0; i < sizeof(big_values) / sizeof(big_values[0]); i++)
		if (big_values[i] <= max)
			out[n++] = big_values[i];
	if (out[n - 1] != max)
		out[n++] = max;
	return n;
}

static void grid(void **state)
{
	struct sim *s = sim_new();

	(void)state;
	for (unsigned di = 0; di < sizeof(depths) / sizeof(depths[0]); di++) {
		uint32_t d = depths[di], ls[40], ms[40];
		unsigned nl = values(d < RB_SENDQ_MAX_POST_LIST ? d : RB_SENDQ_MAX_POST_LIST, ls);
		unsigned nm = values(d, ms); /* cq_mod is capped at the tx depth */

		for (unsigned li = 0; li < nl; li++)
			for (unsigned mi = 0; mi < nm; mi++) {
				uint32_t l = ls[li], m = ms[mi];
				/* Message counts around every multiple of the depth up to 3x, and windows. */
				uint64_t counts[] = {1, 2, l, m, d - 1, d, d + 1, 2 * d + 1, 3 * d + l, 257};
				for (unsigned ci = 0; ci < sizeof(counts) / sizeof(counts[0]); ci++) {
					uint64_t msgs = counts[ci];
					if (!msgs || (d > 32 && ci < 4 && msgs > 2))
						continue;
					for (enum policy pol = 0; pol < NPOLICIES; pol++) {
						try_case(s, "run", d, l, m, pol, msgs, msgs, NO_STOP);
						try_case(s, "run", d, l, m, pol, msgs, d, NO_STOP);
					}
				}
			}
	}
	printf("grid: %llu runs, %u failed (%u stalled)\n", (unsigned long long)cases, failures, stalls);
	free(s);
	assert_int_equal(failures, 0);
}

/* -D: the clock runs out after every possible number of engine actions. */
static void duration_stop(void **state)
{
	struct sim *s = sim_new();

	(void)state;
	for (uint32_t d = 1; d <= 12; d++)
		for (uint32_t l = 1; l <= d; l++)
			for (uint32_t m = 1; m <= d; m++)
				for (enum policy pol = 0; pol < NPOLICIES; pol++)
					for (uint64_t k = 0; k <= 4 * d + 2; k++)
						try_case(s, "-D", d, l, m, pol, 0, 0, k);
	for (unsigned i = 0; i < 3; i++) { /* the default depth and the settings */
		static const uint32_t cfg[][3] = {{128, 64, 100}, {128, 3, 128}, {16, 3, 16}};
		for (enum policy pol = 0; pol < NPOLICIES; pol++)
			for (uint64_t k = 0; k <= 600; k += 7)
				try_case(s, "-D", cfg[i][0], cfg[i][1], cfg[i][2], pol, 0, 0, k);
	}
	printf("-D stops: %llu runs, %u failed (%u stalled)\n", (unsigned long long)cases, failures, stalls);
	free(s);
	assert_int_equal(failures, 0);
}

/*
 * -D with its in-flight limit (sendq.h's limit) drawn anew before every plan, shrinking
 * below what is outstanding at will: never past it but by one signaled WR, never a
 * stall, every stop reached.
 */
static void shrinking_limit(void **state)
{
	struct sim *s = sim_new();

	(void)state;
	s->vary_limit = true;
	for (uint32_t d = 1; d <= 12; d++)
		for (uint32_t l = 1; l <= d; l++)
			for (uint32_t m = 1; m <= d; m++)
				for (enum policy pol = 0; pol < NPOLICIES; pol++)
					for (uint64_t k = 0; k <= 4 * d + 2; k += 3) {
						try_case(s, "-D limit", d, l, m, pol, 0, 0, k);
						try_case(s, "limit", d, l, m, pol, 3 * d + 1, 3 * d + 1,
						         NO_STOP);
					}
	printf("limited: %llu runs, %u failed (%u stalled)\n", (unsigned long long)cases, failures, stalls);
	free(s);
	assert_int_equal(failures, 0);
}

/* The simulator catches the old rule on the settings issue 8 names. */
static void old_rule_stalls(void **state)
{
	static const uint32_t cfg[][3] = {{128, 64, 100}, {16, 3, 16}, {128, 3, 128}};
	struct sim *s = malloc(sizeof(*s));
	bool saved = use_old_rule;

	(void)state;
	assert_non_null(s);
	s->vary_limit = false;
	use_old_rule = true;
	for (unsigned i = 0; i < 3; i++) {
		bool ok = run_case(s, cfg[i][0], cfg[i][1], cfg[i][2], LAZY, 1000, 1000, NO_STOP);
		printf("old rule, -t %u -l %u -Q %u: %s\n", cfg[i][0], cfg[i][1], cfg[i][2],
		       ok ? "ran" : s->why);
		assert_false(ok);
		assert_non_null(strstr(s->why, "stall"));
	}
	use_old_rule = false;
	/* The new rule runs the same settings to the end. */
	for (unsigned i = 0; i < 3; i++)
		assert_true(run_case(s, cfg[i][0], cfg[i][1], cfg[i][2], LAZY, 1000, 1000, NO_STOP));
	use_old_rule = saved;
	free(s);
}

/* Hand-checked decisions. */
static void decisions(void **state)
{
	struct rb_sendq q;
	struct rb_sendq_plan p;

	(void)state;
	/* -t 16 -l 3 -Q 16: five lists of 3, then one that cannot fit; the fifth signals. */
	rb_sendq_init(&q, 16, 3, 16);
	q.target = 1000;
	for (int i = 0; i < 4; i++) {
		p = rb_sendq_plan(&q);
		assert_int_equal(p.n, 3);
		assert_true(p.sig == 0);
		rb_sendq_posted(&q, &p);
	}
	p = rb_sendq_plan(&q);
	assert_int_equal(p.n, 3);
	assert_true(p.sig == 4); /* WR 15 */
	rb_sendq_posted(&q, &p);
	p = rb_sendq_plan(&q);
	assert_int_equal(p.n, 0); /* wait for WR 15 */
	assert_int_equal(rb_sendq_complete(&q, 15), 15);
	p = rb_sendq_plan(&q);
	assert_int_equal(p.n, 3);
	assert_true(p.sig == 1); /* WR 16: a multiple of 16 */
	/* The target is always signaled. */
	rb_sendq_init(&q, 128, 1, 100);
	q.target = 7;
	for (int i = 0; i < 6; i++) {
		p = rb_sendq_plan(&q);
		assert_true(p.n == 1 && p.sig == 0);
		rb_sendq_posted(&q, &p);
	}
	p = rb_sendq_plan(&q);
	assert_true(p.n == 1 && p.sig == 1);
	rb_sendq_posted(&q, &p);
	assert_int_equal(rb_sendq_plan(&q).n, 0);
	/* Stop: one more WR (signaled) when the last one posted is not. */
	rb_sendq_init(&q, 128, 1, 100);
	q.target = UINT64_MAX;
	p = rb_sendq_plan(&q);
	rb_sendq_posted(&q, &p);
	rb_sendq_stop(&q);
	assert_int_equal(q.target, 2);
	p = rb_sendq_plan(&q);
	assert_true(p.n == 1 && p.sig == 1);
	rb_sendq_posted(&q, &p);
	rb_sendq_complete(&q, 2);
	assert_true(rb_sendq_done(&q));
	/* Nothing outstanding: stop where we are. */
	rb_sendq_init(&q, 8, 1, 4);
	q.target = UINT64_MAX;
	rb_sendq_stop(&q);
	assert_int_equal(q.target, 0);
	assert_true(rb_sendq_done(&q));
	/* Completion bound per QP. */
	assert_int_equal(rb_sendq_max_signaled(128, 100), 4);
	assert_int_equal(rb_sendq_max_signaled(16, 1), 16);
	assert_int_equal(rb_sendq_max_signaled(1, 1), 1);
}

/* --rate_limit's bucket: a burst at once, then the rate, whatever the asking. */
static void pacing(void **state)
{
	struct rb_pace_opts o = {.rate = 1000, .unit = RB_PACE_PPS, .burst = 4};
	struct rb_pace p;
	uint64_t t0 = 1000000000ull, ms = 1000000ull;

	(void)state;
	rb_pace_start(&p, &o, 4096, t0);
	assert_int_equal(rb_pace_allow(&p, t0, 10), 4);
	rb_pace_posted(&p, 4);
	assert_int_equal(rb_pace_allow(&p, t0 + ms / 2, 10), 0);
	assert_int_equal(rb_pace_allow(&p, t0 + ms, 10), 1); /* 1000/s: one a millisecond */
	rb_pace_posted(&p, 1);
	/* A second idle: the bucket holds a burst, never what the second would have earned. */
	assert_int_equal(rb_pace_allow(&p, t0 + 1000 * ms, 100000), 4);
	rb_pace_posted(&p, 4);
	assert_int_equal(rb_pace_allow(&p, t0 + 1000 * ms, 100000), 0);
	/* A rate absurd for its size (1e9 Gb/s of 1 byte) after a long idle: still a burst. */
	o = (struct rb_pace_opts){.rate = 1e9, .unit = RB_PACE_GBPS, .burst = 2};
	rb_pace_start(&p, &o, 1, t0);
	assert_int_equal(rb_pace_allow(&p, t0 + 200000 * 1000 * ms, 100000), 2);
	/* Units: 8 Gb/s of 1 MB messages is 1000 a second; 1000 MiB/s of 1 MiB is 1000. */
	o = (struct rb_pace_opts){.rate = 8, .unit = RB_PACE_GBPS};
	assert_true(fabs(rb_pace_msgs_per_s(&o, 1000000) - 1000) < 1e-9);
	o = (struct rb_pace_opts){.rate = 1000, .unit = RB_PACE_MIBPS};
	assert_true(fabs(rb_pace_msgs_per_s(&o, 1048576) - 1000) < 1e-9);
	/* No rate: everything asked for. */
	o = (struct rb_pace_opts){0};
	rb_pace_start(&p, &o, 4096, t0);
	assert_int_equal(rb_pace_allow(&p, t0, 77), 77);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(decisions),     cmocka_unit_test(old_rule_stalls), cmocka_unit_test(grid),
	    cmocka_unit_test(duration_stop), cmocka_unit_test(shrinking_limit), cmocka_unit_test(pacing),
	};
	const char *old = getenv("RB_SENDQ_OLD_RULE");

	use_old_rule = old && !strcmp(old, "1");
	if (use_old_rule)
		printf("RB_SENDQ_OLD_RULE=1: the grid runs the old rule and must fail\n");
	return cmocka_run_group_tests(tests, NULL, NULL);
}

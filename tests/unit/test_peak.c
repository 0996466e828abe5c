/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The peak estimator (stats.h, rb_rate) fed by the send-queue planner (sendq.h)
 * in a timed model: QPs sharing one link of known rate, completions seen only for
 * signaled WRs. At any QP count and moderation, average <= peak <= link rate; and
 * on hand-made marks the best window wins, the average is the floor and a step
 * shorter than the grid falls back to it. The planner's own rules, against a
 * simulated send queue, are test_sendq.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "measure/grid.h"
#include "measure/sendq.h"
#include "measure/stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

struct link_cfg {
	unsigned qps;
	uint32_t depth, post_list, sig_every;
	uint64_t size, msgs; /* per QP */
	double post_ns;      /* one ibv_post_send call */
};

struct cqe {
	unsigned qp;
	uint64_t seq;
	double t;
};

#define LINK_BPNS  1.25 /* bytes per ns: 10 Gb/s */
#define LINK_GBPS  10.0
#define LATENCY_NS 2000.0

/*
 * One step over a FIFO link shared by every QP: a WR goes on the wire when it is
 * posted and the link is free, completes LATENCY_NS after its last byte, and only a
 * signaled WR shows up in the CQ. The engine posts what the planner allows on
 * every QP, then polls (16 at a time); with nothing to do it waits for the next
 * completion. Returns the average; *peak gets rb_rate's peak.
 */
static double run_link(const struct link_cfg *c, double *peak)
{
	struct rb_sendq *q = calloc(c->qps, sizeof(*q));
	size_t cap = (size_t)c->qps * c->depth + 1, head = 0, n = 0;
	struct cqe *cq = calloc(cap, sizeof(*cq));
	struct rb_rate r;
	double now = 0, link_free = 0, t_last = 0;
	uint64_t posted = 0, done = 0, total = c->msgs * c->qps;

	assert_true(q && cq);
	for (unsigned i = 0; i < c->qps; i++) {
		rb_sendq_init(&q[i], c->depth, c->post_list, c->sig_every);
		q[i].target = c->msgs;
	}
	rb_rate_init(&r, 0, 1000000);
	while (done < total) {
		bool busy = false;

		for (unsigned i = 0; i < c->qps; i++) {
			struct rb_sendq_plan p;
			while ((p = rb_sendq_plan(&q[i])).n) {
				now += c->post_ns;
				for (unsigned k = 0; k < p.n; k++) {
					double start = now > link_free ? now : link_free;
					link_free = start + (double)c->size / LINK_BPNS;
					if (p.sig >> k & 1) {
						assert_true(n < cap);
						cq[(head + n++) % cap] = (struct cqe){i, q[i].posted + 1 + k,
						                                      link_free + LATENCY_NS};
					}
				}
				rb_sendq_posted(&q[i], &p);
				posted += p.n;
				busy = true;
				rb_rate_update(&r, (uint64_t)now, posted * c->size, done * c->size);
			}
		}
		now += 50; /* the poll */
		for (unsigned k = 0; k < 16 && n && cq[head].t <= now; k++, n--, head = (head + 1) % cap) {
			done += rb_sendq_complete(&q[cq[head].qp], cq[head].seq);
			t_last = now;
			busy = true;
		}
		if (!busy) {
			assert_true(n > 0); /* the planner's invariant, again */
			now = cq[head].t;
		}
		rb_rate_update(&r, (uint64_t)now, posted * c->size, done * c->size);
	}
	*peak = rb_rate_peak_gbps(&r, (uint64_t)t_last, total * c->size);
	free(q);
	free(cq);
	return rb_gbps(total * c->size, (uint64_t)t_last);
}

static void peak_bounded(void **state)
{
	static const unsigned qps[] = {1, 4, 16, 64};
	static const uint64_t sizes[] = {64, 4096, 65536, 1u << 20};
	static const uint32_t mods[][2] = {{1, 1}, {100, 1}, {100, 64}, {128, 3}};
	static const double post_ns[] = {60, 20000}; /* a NIC, rxe (a system call) */
	unsigned runs = 0, above_avg = 0;

	(void)state;
	for (unsigned a = 0; a < 4; a++)
		for (unsigned b = 0; b < 4; b++)
			for (unsigned m = 0; m < 4; m++)
				for (unsigned p = 0; p < 2; p++) {
					struct link_cfg c = {qps[a],   128, mods[m][1], mods[m][0],
					                     sizes[b], 0,   post_ns[p]};
					double avg, peak;

					/* About 5 ms of link time or 300 messages per QP, whichever is more.
					 */
					c.msgs = 6250000 / (c.size * c.qps) > 300 ? 6250000 / (c.size * c.qps)
					                                          : 300;
					avg = run_link(&c, &peak);
					runs++;
					above_avg += peak > avg * 1.0001;
					if (!(peak >= avg * (1 - 1e-9) && peak <= LINK_GBPS * (1 + 1e-9)))
						printf("FAIL -q %u -s %llu -Q %u -l %u, post %.0f ns: avg "
						       "%.4f peak %.4f "
						       "link %.1f Gb/s\n",
						       c.qps, (unsigned long long)c.size, c.sig_every,
						       c.post_list, c.post_ns, avg, peak, LINK_GBPS);
					assert_true(peak >= avg * (1 - 1e-9));
					assert_true(peak <= LINK_GBPS * (1 + 1e-9));
				}
	printf("peak: %u runs, average <= peak <= link in all, peak above average in %u\n", runs, above_avg);
}

/* Hand-made marks: the best window wins, the average is the floor, short steps fall back. */
static void peak_windows(void **state)
{
	struct rb_rate r;

	(void)state;
	/* 1 ms grid; 10 ms step: 1 MB posted and done per ms, except ms 3-5 at 2 MB/ms. */
	rb_rate_init(&r, 0, 1000000);
	uint64_t bytes = 0;
	for (unsigned ms = 1; ms <= 10; ms++) {
		bytes += ms >= 3 && ms <= 5 ? 2000000 : 1000000;
		/* what was posted a mark ago is done now: one ms in flight */
		rb_rate_update(&r, ms * 1000000ull, bytes + 1000000, bytes);
	}
	/* Best: posted by ms 2 (3 MB) to done by ms 5 (8 MB): 5 MB in 3 ms = 13.33 Gb/s. */
	assert_true(fabs(rb_rate_peak_gbps(&r, 10000000, bytes) - 5e6 * 8 / 3e6) < 1e-9);
	/* A step shorter than the grid: the average. */
	rb_rate_init(&r, 0, 1000000);
	rb_rate_update(&r, 500000, 1000, 500);
	assert_true(fabs(rb_rate_peak_gbps(&r, 900000, 1000) - rb_gbps(1000, 900000)) < 1e-12);
	assert_true(rb_rate_peak_gbps(&r, 0, 0) == 0);
	/* A long step keeps at most RB_RATE_MARKS marks and still sees its burst. */
	rb_rate_init(&r, 0, 1000);
	bytes = 0;
	for (uint64_t t = 1000; t <= 10000000; t += 1000) {
		bytes += t > 5000000 && t <= 5500000 ? 3000 : 1000;
		rb_rate_update(&r, t, bytes, bytes);
	}
	assert_true(r.n <= RB_RATE_MARKS);
	double avg = rb_gbps(bytes, 10000000), pk = rb_rate_peak_gbps(&r, 10000000, bytes);
	assert_true(pk > avg * 1.5 && pk <= 24.0 + 1e-9);
}

/* --interval's grid (grid.h): a late row moves the next mark to the grid, not by its lateness. */
static void interval_grid(void **state)
{
	const uint64_t ms = 1000000;
	uint64_t next = 500 * ms, ends[] = {530 * ms, 1004 * ms, 1710 * ms, 2000 * ms, 3320 * ms};
	const uint64_t want[] = {1000 * ms, 1500 * ms, 2000 * ms, 2500 * ms, 3500 * ms};

	(void)state;
	for (unsigned i = 0; i < 5; i++) {
		next = rb_grid_next(500 * ms, ends[i]);
		assert_int_equal(next, want[i]); /* 530 + 500 would be 1030: a drifting grid */
	}
	assert_int_equal(rb_grid_next(0, 5), 0);
	assert_int_equal(rb_grid_next(1, UINT64_MAX - 2), UINT64_MAX - 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(interval_grid),
	    cmocka_unit_test(peak_windows),
	    cmocka_unit_test(peak_bounded),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

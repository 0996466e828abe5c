/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Two clocks on one time line (measure/clockfit.h): a synthetic peer clock at a known
 * offset and drift, probed through delays that differ each way, is recovered within
 * the uncertainty the fit states, between its two batches of probes and past them;
 * the probes' exchange (run/clocksync.h) over a socketpair, and against a peer whose
 * answers echo no probe of ours.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "measure/clockfit.h"
#include "oob/oob.h"
#include "run/clocksync.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

/* The peer's clock: offset + (1 + drift) x this side's, in ns. */
struct peer_clock {
	double offset, drift;
};

static double peer_at(const struct peer_clock *c, double t)
{
	return c->offset + (1 + c->drift) * t;
}

/* A uniform number in [lo, hi) from a fixed sequence (the test repeats itself). */
static double between(unsigned *seed, double lo, double hi)
{
	*seed = *seed * 1103515245u + 12345u;
	return lo + (hi - lo) * (double)((*seed >> 8) & 0xffffff) / (double)0x1000000;
}

/* n probes from this side's time t: out 5-60 us, back 5-400 us, the peer's turn 2-10 us. */
static void probe(const struct peer_clock *c, double t, unsigned n, unsigned *seed, struct rb_clock_probe *p)
{
	for (unsigned i = 0; i < n; i++, t += 1e5) {
		double out = between(seed, 5e3, 60e3), turn = between(seed, 2e3, 10e3),
		       back = between(seed, 5e3, 400e3);

		p[i].t1 = (uint64_t)t;
		p[i].t2 = (uint64_t)peer_at(c, t + out);
		p[i].t3 = (uint64_t)peer_at(c, t + out + turn);
		p[i].t4 = (uint64_t)(t + out + turn + back);
	}
}

/* Probes at this side's times base and base + 10 s. */
static void fit_of(const struct peer_clock *c, double base, unsigned seed, struct rb_clock_fit *f)
{
	struct rb_clock_probe p[16];
	struct rb_clock_point a, b;

	probe(c, base, 16, &seed, p);
	assert_true(rb_clock_point(p, 16, &a));
	probe(c, base + 10e9, 16, &seed, p);
	assert_true(rb_clock_point(p, 16, &b));
	rb_clock_fit(&a, &b, f);
}

/* Offset 1234.5678 s, drift +50 ppm: within the stated uncertainty everywhere, and that is tight. */
static void offset_and_drift(void **state)
{
	const struct peer_clock c = {1234.5678e9, 50e-6};
	struct rb_clock_fit f;
	double err;

	(void)state;
	for (unsigned seed = 1; seed < 200; seed++) {
		fit_of(&c, 1e9, seed, &f);
		/* the drift within what the two bands allow over the 10 s between them */
		assert_true(fabs(f.drift - c.drift) <= (f.a.err + f.b.err) / (f.b.t - f.a.t) + 1e-12);
		for (double t = 0; t <= 14e9; t += 0.5e9) {
			double local = 1.5e9 + t * 0.7, off = rb_clock_offset_at(&f, local, &err);
			double truth = peer_at(&c, local) - local, back;

			assert_true(fabs(off - truth) <= err + 1); /* 1 ns: the probes' integer stamps */
			if (local >= 1e9 && local <= 11e9)
				assert_true(err <
				            150e3); /* between the batches: the narrowest probes' bands */
			back = rb_clock_to_local(&f, peer_at(&c, local), &err);
			assert_true(fabs(back - local) <= err + 2);
		}
	}
}

/* A negative offset and drift, and no drift at all (one point twice). */
static void either_sign_and_one_point(void **state)
{
	const struct peer_clock c = {-3.25e9, -20e-6}, still = {42e3, 0};
	struct rb_clock_probe p[16];
	struct rb_clock_point a;
	struct rb_clock_fit f;
	unsigned seed = 7;
	double err, off;

	(void)state;
	fit_of(&c, 5e9, 3, &f); /* the peer's stamps stay positive */
	off = rb_clock_offset_at(&f, 9e9, &err);
	assert_true(fabs(off - (peer_at(&c, 9e9) - 9e9)) <= err + 1);
	probe(&still, 1e9, 16, &seed, p);
	assert_true(rb_clock_point(p, 16, &a));
	rb_clock_fit(&a, &a, &f);
	assert_true(f.drift == 0);
	off = rb_clock_offset_at(&f, 9e9, &err);
	assert_true(fabs(off - 42e3) <= err + 1 && err == a.err);
	assert_true(rb_clock_fit_sane(&f));
	/* A drift no two running clocks have (2000 ppm): a peer's answers that say so are not believed. */
	fit_of(&(struct peer_clock){5e9, 2e-3}, 1e9, 9, &f);
	assert_false(rb_clock_fit_sane(&f));
	fit_of(&(struct peer_clock){5e9, 400e-6}, 1e9, 9, &f);
	assert_true(rb_clock_fit_sane(&f));
}

/* A peer's impossible stamps are not a point: its turn past the round trip, time running back. */
static void hostile_probes(void **state)
{
	struct rb_clock_probe bad[3] = {
	    {1000, 5000, 9000, 2000}, /* the peer's 4 us turn inside a 1 us round trip */
	    {1000, 5000, 4000, 3000}, /* the peer answered before it received */
	    {3000, 5000, 6000, 1000}, /* the answer came before the question left */
	};
	struct rb_clock_point pt;

	(void)state;
	assert_false(rb_clock_point(bad, 3, &pt));
	assert_false(rb_clock_point(bad, 0, &pt));
}

/* The server's end of rb_clock_sync on its own thread; or a hostile one that answers with its own figures. */
struct server {
	struct rb_oob o;
	unsigned n;
	bool hostile;
	int ret;
};

static void *serve(void *arg)
{
	struct server *s = arg;

	if (!s->hostile) {
		s->ret = rb_clock_sync(&s->o, false, s->n, 2000, NULL);
		return NULL;
	}
	for (unsigned i = 0; i < s->n; i++) {
		struct rb_frame f;
		uint8_t buf[32];
		struct rb_wbuf w = {buf, 0, sizeof(buf), false};

		if ((s->ret = rb_oob_expect(&s->o, RB_MSG_CLOCK, &f, 2000)))
			return NULL;
		rb_put_u64(&w, i + 1); /* not the probe's number */
		rb_put_u64(&w, 1);     /* not its t1 */
		rb_put_u64(&w, 5);
		rb_put_u64(&w, 9);
		rb_oob_send_w(&s->o, RB_MSG_CLOCK, &w);
	}
	return NULL;
}

static int sync_pair(bool hostile, unsigned n, struct rb_clock_point *pt, int *server_ret)
{
	struct server s = {.n = n, .hostile = hostile};
	struct rb_oob c;
	pthread_t th;
	int fd[2], ret;

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, fd), 0);
	rb_oob_from_fd(fd[0], 2000, &c);
	rb_oob_from_fd(fd[1], 2000, &s.o);
	assert_int_equal(pthread_create(&th, NULL, serve, &s), 0);
	ret = rb_clock_sync(&c, true, n, 2000, pt);
	pthread_join(th, NULL);
	*server_ret = s.ret;
	rb_oob_close(&c);
	rb_oob_close(&s.o);
	return ret;
}

/* Over a socketpair, one clock: the offset found is 0 within what it states, and that is small. */
static void sync_one_clock(void **state)
{
	struct rb_clock_point pt;
	int sret;

	(void)state;
	assert_int_equal(sync_pair(false, 16, &pt, &sret), 0);
	assert_int_equal(sret, 0);
	assert_true(fabs(pt.offset) <= pt.err + 1);
	assert_true(pt.err < 50e6); /* 50 ms: a loaded host's worst turn, far above the usual microseconds */
	assert_int_equal(rb_clock_sync(NULL, true, 0, 10, &pt), -EINVAL);
	assert_int_equal(rb_clock_sync(NULL, true, RB_CLOCK_PROBES_MAX + 1, 10, &pt), -EINVAL);
}

/* Answers that echo no probe of ours are dropped, and a batch of only those is refused. */
static void sync_hostile_answers(void **state)
{
	struct rb_clock_point pt;
	int sret;

	(void)state;
	assert_int_equal(sync_pair(true, 8, &pt, &sret), -EPROTO);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(offset_and_drift),     cmocka_unit_test(either_sign_and_one_point),
	    cmocka_unit_test(hostile_probes),       cmocka_unit_test(sync_one_clock),
	    cmocka_unit_test(sync_hostile_answers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

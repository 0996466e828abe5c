/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The bandwidth engine (run/bwstep.h) over a socketpair, with a fake transport and a
 * scripted peer: its DONE is this side's last frame of the step (no heartbeat after
 * it); a peer that failed after its DONE is the cause, not this side's own part
 * running on; -D's deadline and the silence bound are about what the peer owes, so
 * once its DONE is in, this side's own late or still part is not blamed on it; --interval's stretches tile
 * the step from 0 to the end of its row, each ending at or after its mark.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "run/bwstep.h"
#include "oob/wire.h"
#include "base/base.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define MS RB_NS_PER_MS

/* A transport whose part takes work_ns and moves a byte per microsecond (or nothing: still). */
struct fake {
	struct rb_bw *b;
	uint64_t work_ns;
	bool still;
	uint64_t iv_from[64], iv_to[64];
	unsigned ivs;
};

static int f_start(void *t, struct rb_bw *b)
{
	((struct fake *)t)->b = b;
	return 0;
}

static int f_turn(void *t)
{
	struct fake *f = t;

	return rb_now_ns() - f->b->t0 >= f->work_ns;
}

static uint64_t f_moved(void *t)
{
	struct fake *f = t;

	return f->still ? 0 : (rb_now_ns() - f->b->t0) / 1000;
}

static const char *f_pending(void *t)
{
	(void)t;
	return "sending";
}

static int f_finish(void *t, int ret)
{
	(void)t;
	return ret;
}

static int f_figures(void *t, struct rb_stepend *own, struct rb_step_view *v)
{
	struct fake *f = t;

	*own = (struct rb_stepend){0, 0, rb_now_ns() - f->b->t0, NAN, NAN};
	*v = (struct rb_step_view){.sends = RB_PEER_SENDS_NOTHING, .none = RB_STEPEND_PEAK | RB_STEPEND_CPU};
	return 0;
}

static void f_interval(void *t, uint64_t from, uint64_t to, uint64_t from_bytes, uint64_t to_bytes)
{
	struct fake *f = t;

	(void)from_bytes;
	(void)to_bytes;
	assert_true(f->ivs < 64);
	f->iv_from[f->ivs] = from;
	f->iv_to[f->ivs++] = to;
}

static const struct rb_bw_ops ops = {
    .start = f_start,
    .turn = f_turn,
    .moved = f_moved,
    .pending = f_pending,
    .finish = f_finish,
    .figures = f_figures,
    .interval = f_interval,
};

struct pair {
	struct rb_oob me, peer;
};

static void pair_open(struct pair *p)
{
	int sv[2];

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	rb_oob_from_fd(sv[0], 2000, &p->me);
	rb_oob_from_fd(sv[1], 2000, &p->peer);
}

static void pair_close(struct pair *p)
{
	rb_oob_close(&p->me);
	rb_oob_close(&p->peer);
}

/* The peer's DONE: it sent nothing this way. */
static void peer_done(struct pair *p)
{
	assert_int_equal(rb_stepend_send(&p->peer, &(struct rb_stepend){0, 0, 1000, NAN, NAN}), 0);
}

static void *late_done(void *arg)
{
	usleep(60000);
	peer_done(arg);
	return NULL;
}

/* Heartbeats while the peer waits, then DONE, and nothing after it while the peer's is awaited. */
static void done_is_the_last_frame(void **state)
{
	struct rb_bw_cfg cfg = {.timeout_s = 5, .beat_ns = 1 * MS, .wait_ms = 1};
	/* 40 beats' time: at least 2 get out even when valgrind on a loaded host runs the loop late. */
	struct fake f = {.work_ns = 40 * MS};
	struct rb_bw_result res;
	struct rb_bw b;
	struct rb_frame fr;
	unsigned beats = 0;
	struct pair p;
	pthread_t th;

	(void)state;
	pair_open(&p);
	assert_int_equal(pthread_create(&th, NULL, late_done, &p), 0);
	assert_int_equal(rb_bw_step(&p.me, &cfg, &ops, &f, &b, &res), 0);
	pthread_join(th, NULL);
	for (;;) {
		assert_int_equal(rb_oob_recv(&p.peer, &fr, 1000), 0);
		if (fr.type != RB_MSG_PROGRESS)
			break;
		beats++;
	}
	assert_int_equal(fr.type, RB_MSG_DONE);
	assert_true(beats >= 2);
	assert_int_equal(rb_oob_readable(&p.peer, 50), 0); /* nothing after DONE */
	pair_close(&p);
}

/* The peer's DONE, then its ERROR while this side's part runs: the peer's cause ends the step. */
static void error_after_done_is_the_cause(void **state)
{
	struct rb_bw_cfg cfg = {.timeout_s = 5};
	struct fake f = {.work_ns = 2000 * MS};
	struct rb_bw_result res;
	struct rb_bw b;
	struct pair p;
	uint64_t t0 = rb_now_ns();

	(void)state;
	pair_open(&p);
	peer_done(&p);
	rb_oob_send_error(&p.peer, "its link went down");
	assert_int_equal(rb_bw_step(&p.me, &cfg, &ops, &f, &b, &res), -EREMOTEIO);
	assert_true(rb_now_ns() - t0 < 1000 * MS); /* at once, not when this side's part ends */
	assert_non_null(strstr(p.me.peer_error, "its link went down"));
	pair_close(&p);
}

/* A step whose peer's DONE is in before it starts: it must succeed. */
static void step_after_peer_done(const struct rb_bw_cfg *cfg, struct fake *f, struct rb_bw_result *res)
{
	struct rb_bw b;
	struct pair p;

	pair_open(&p);
	peer_done(&p);
	assert_int_equal(rb_bw_step(&p.me, cfg, &ops, f, &b, res), 0);
	pair_close(&p);
}

/* -D's deadline passes while this side's own part runs on, the peer's DONE in: not the peer's fault. */
static void own_late_part_is_not_the_peers(void **state)
{
	struct rb_bw_cfg cfg = {.duration_s = 0.01, .timeout_s = 5, .grace_ns = 1 * MS};
	struct fake f = {.work_ns = 300 * MS};
	struct rb_bw_result res;

	(void)state;
	step_after_peer_done(&cfg, &f, &res);
	assert_true(res.own.elapsed_ns >= 300 * MS);
}

/* Nothing moves past --timeout, the peer's DONE in: this side's own part, not the peer's silence. */
static void own_still_part_is_not_the_peers(void **state)
{
	struct rb_bw_cfg cfg = {.timeout_s = 1};
	struct fake f = {.work_ns = 1300 * MS, .still = true};
	struct rb_bw_result res;

	(void)state;
	step_after_peer_done(&cfg, &f, &res);
}

/* --interval: stretches on the grid from 0, contiguous, the last ending where the row does. */
static void stretches_tile_the_step(void **state)
{
	struct rb_bw_cfg cfg = {.timeout_s = 5, .interval_ns = 5 * MS};
	struct fake f = {.work_ns = 23 * MS};
	struct rb_bw_result res;

	(void)state;
	step_after_peer_done(&cfg, &f, &res);
	assert_true(f.ivs >= 2);
	assert_int_equal(f.iv_from[0], 0);
	for (unsigned i = 0; i + 1 < f.ivs; i++) {
		assert_int_equal(f.iv_to[i], f.iv_from[i + 1]);
		assert_true(f.iv_to[i] >= (f.iv_from[i] / (5 * MS) + 1) * 5 * MS); /* never before its mark */
	}
	assert_int_equal(f.iv_to[f.ivs - 1], res.own.elapsed_ns);
}

/* A step's credit for this side's absences: whole until max(--timeout, 30 s), then nothing. */
static void credit_is_bounded(void **state)
{
	const uint64_t s = RB_NS_PER_S;
	uint64_t credited = 0;
	(void)state;

	assert_true(rb_step_credit(&credited, 20 * s, 5) == 20 * s);
	assert_true(rb_step_credit(&credited, 20 * s, 5) == 10 * s); /* 30 s in all with --timeout 5 */
	assert_true(rb_step_credit(&credited, 1 * s, 5) == 0 && credited == 30 * s);
	credited = 0;
	assert_true(rb_step_credit(&credited, 50 * s, 40) == 40 * s); /* --timeout above 30 s */
	assert_true(rb_step_credit(&credited, UINT64_MAX, 40) == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(done_is_the_last_frame),
	    cmocka_unit_test(error_after_done_is_the_cause),
	    cmocka_unit_test(own_late_part_is_not_the_peers),
	    cmocka_unit_test(own_still_part_is_not_the_peers),
	    cmocka_unit_test(stretches_tile_the_step),
	    cmocka_unit_test(credit_is_bounded),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

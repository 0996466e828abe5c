/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The ping-pong engine's server side over a socketpair: the client's summary
 * (LATSTATS) waited for after the last echo, or handed over by a transport that read
 * it mid-step (then never waited for again), when it may legitimately come, and a
 * malformed one refused; one that counts more round trips than were answered, or a
 * time this side's clock cannot agree with, fails the step.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "run/pingpong.h"
#include "oob/wire.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/*
 * A fake transport: echoes nothing, ends after round trip `last`; at `read_at` it reads
 * the control connection mid-step, as rc_write_lat does.
 */
struct fake {
	struct rb_pp *pp;
	struct rb_oob *oob;
	uint64_t last, read_at, pongs;
	int took; /* what rb_pp_take_summary returned, or 1 when the frame was not due */
};

static int fake_pong(void *t, uint64_t i)
{
	struct fake *f = t;
	struct rb_frame fr;

	f->pongs++;
	if (i == f->read_at) {
		assert_int_equal(rb_oob_recv(f->oob, &fr, 1000), 0);
		assert_int_equal(fr.type, RB_MSG_LATSTATS);
		f->took = rb_pp_summary_due(f->pp, i) ? rb_pp_take_summary(f->pp, &fr, f->oob->peer) : 1;
		if (f->took)
			return f->took < 0 ? f->took : -EPROTO;
	}
	return i == f->last ? 1 : 0;
}

static const struct rb_pp_ops ops = {.pong = fake_pong};

/* A summary of count round trips over elapsed_s (the fake transport's take microseconds). */
static void send_summary_took(struct rb_oob *o, uint64_t count, double elapsed_s)
{
	uint8_t buf[128];
	struct rb_wbuf w = {buf, 0, sizeof(buf), false};
	struct rb_lat_summary s = {.count = count,
	                           .warmup = 2,
	                           .min = 1.5,
	                           .p50 = 2,
	                           .mean = 2.5,
	                           .stdev = 1,
	                           .p90 = 3,
	                           .p99 = 4,
	                           .p999 = 5,
	                           .max = 9,
	                           .elapsed_s = elapsed_s};

	rb_latstats_encode(&w, &s);
	assert_int_equal(rb_oob_send_w(o, RB_MSG_LATSTATS, &w), 0);
}

static void send_summary(struct rb_oob *o, uint64_t count)
{
	send_summary_took(o, count, 0.001);
}

struct pair {
	struct rb_oob cli, srv;
	struct rb_pp pp;
};

static void pair_open(struct pair *p, const struct rb_pp_cfg *cfg)
{
	int sv[2];

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	rb_oob_from_fd(sv[0], 200, &p->cli);
	rb_oob_from_fd(sv[1], 200, &p->srv);
	assert_int_equal(rb_pp_init(&p->pp, cfg, false), 0);
}

static void pair_close(struct pair *p)
{
	rb_pp_free(&p->pp);
	rb_oob_close(&p->cli);
	rb_oob_close(&p->srv);
}

/* -n: the summary may come only once the last round trip was echoed. */
static void due_after_last_echo(void **state)
{
	struct rb_pp_cfg cfg = {.iters = 5, .warmup = 2, .divisor = 2};
	struct rb_pp client;
	struct pair p;
	struct rb_pp_result res;
	struct fake f;

	(void)state;
	pair_open(&p, &cfg);
	/* Read at round trip 3 of 7: too early, the engine must not take it. */
	f = (struct fake){&p.pp, &p.srv, 7, 3, 0, 0};
	send_summary(&p.cli, 5);
	assert_int_equal(rb_pp_step(&p.pp, &ops, &f, &p.srv, &cfg, false, 8, &res), -EPROTO);
	assert_int_equal(f.took, 1);
	/* At the last one it is due: handed over, and not waited for again (nothing else is sent). */
	f = (struct fake){&p.pp, &p.srv, 0, 7, 0, 0};
	send_summary(&p.cli, 5);
	assert_int_equal(rb_pp_step(&p.pp, &ops, &f, &p.srv, &cfg, false, 8, &res), 0);
	assert_int_equal(f.took, 0);
	assert_int_equal(f.pongs, 7);
	assert_int_equal(res.sum.count, 5);
	assert_true(res.exact);
	/* A client is never due to receive one. */
	assert_int_equal(rb_pp_init(&client, &cfg, true), 0);
	assert_false(rb_pp_summary_due(&client, 7));
	rb_pp_free(&client);
	pair_close(&p);
}

/* -D: at any time (it can overtake the end message); a new step forgets the last one's. */
static void duration_any_time(void **state)
{
	struct rb_pp_cfg cfg = {.duration_s = 1, .divisor = 2, .summary_ms = 1000};
	struct rb_pp_result res;
	struct pair p;
	struct fake f;

	(void)state;
	pair_open(&p, &cfg);
	f = (struct fake){&p.pp, &p.srv, 4, 2, 0, 0};
	send_summary(&p.cli, 3);
	assert_int_equal(rb_pp_step(&p.pp, &ops, &f, &p.srv, &cfg, false, 8, &res), 0);
	assert_int_equal(res.sum.count, 3);
	assert_false(res.exact);
	assert_string_equal(rb_pp_method(&res), "histogram");
	/* No handover this time: the engine waits for it after the end (summary_ms above the channel's 200).
	 */
	f = (struct fake){&p.pp, &p.srv, 3, 0, 0, 0};
	send_summary(&p.cli, 2);
	assert_int_equal(rb_pp_step(&p.pp, &ops, &f, &p.srv, &cfg, false, 8, &res), 0);
	assert_int_equal(res.sum.count, 2);
	/* More round trips than this side answered (3), or 3 s where it measured microseconds: refused. */
	f = (struct fake){&p.pp, &p.srv, 4, 0, 0, 0};
	send_summary(&p.cli, 1234);
	assert_int_equal(rb_pp_step(&p.pp, &ops, &f, &p.srv, &cfg, false, 8, &res), -EPROTO);
	f = (struct fake){&p.pp, &p.srv, 4, 0, 0, 0};
	send_summary_took(&p.cli, 3, 3.0);
	assert_int_equal(rb_pp_step(&p.pp, &ops, &f, &p.srv, &cfg, false, 8, &res), -EPROTO);
	/* Nothing comes: the wait is bounded. */
	f = (struct fake){&p.pp, &p.srv, 3, 0, 0, 0};
	assert_int_equal(rb_pp_step(&p.pp, &ops, &f, &p.srv, &cfg, false, 8, &res), -ETIMEDOUT);
	pair_close(&p);
}

static void malformed_refused(void **state)
{
	struct rb_pp_cfg cfg = {.iters = 1};
	struct rb_frame fr = {RB_MSG_LATSTATS, 3, (const uint8_t *)"abc"};
	struct pair p;

	(void)state;
	pair_open(&p, &cfg);
	assert_int_equal(rb_pp_take_summary(&p.pp, &fr, "peer"), -EPROTO);
	assert_false(p.pp.have_summary);
	pair_close(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(due_after_last_echo),
	                                   cmocka_unit_test(duration_any_time),
	                                   cmocka_unit_test(malformed_refused)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

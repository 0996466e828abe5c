/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * This process's threads' waits for a CPU (base/cpuwait.c), and the -D bound that
 * allows for them (rb_step_overdue): two threads that spin on one CPU make one
 * of them wait; a wait the kernel counted excuses that much lateness, no more
 * than twice the grace, and nothing else does; a host whose own waits passed that
 * and explain the delay blames no peer.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/base.h"
#include "oob/oob.h"

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void parse_lines(void **state)
{
	uint64_t w = 7;

	(void)state;
	assert_true(rb_cpuwait_parse("80579363 77822122 217\n", &w));
	assert_int_equal(w, 77822122);
	assert_false(rb_cpuwait_parse("80579363 77822122\n", &w)); /* a field short */
	assert_false(rb_cpuwait_parse("80579363 x 217\n", &w));
	assert_false(rb_cpuwait_parse("80579363 77822122 217", &w)); /* cut short: no end of line */
	assert_false(rb_cpuwait_parse("", &w));
	/* /proc/pressure/cpu's first line: its total is in microseconds. */
	assert_true(rb_psi_parse("some avg10=35.09 avg60=11.61 avg300=3.04 total=10591840\n", &w));
	assert_int_equal(w, 10591840000ull);
	assert_false(rb_psi_parse("full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n", &w));
	assert_false(rb_psi_parse("some avg10=35.09 avg60=11.61 avg300=3.04 total=10591840", &w));
	assert_false(rb_psi_parse("some avg10=35.09 avg60=11.61 avg300=3.04 total=99999999999999999\n", &w));
}

static atomic_bool stop_spin;

static void *spin(void *arg)
{
	(void)arg;
	while (!atomic_load(&stop_spin))
		;
	return NULL;
}

static bool kernel_counts(void)
{
	char path[64];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/schedstat", (int)gettid());
	f = fopen(path, "r");
	if (f)
		fclose(f);
	return f != NULL;
}

static void waits_are_counted_and_excuse_lateness(void **state)
{
	struct rb_oob o;
	cpu_set_t one, all;
	pthread_t a, b;
	const uint64_t grace = 2 * RB_NS_PER_S, late = 3 * RB_NS_PER_S + 100 * RB_NS_PER_MS;

	(void)state;
	if (!kernel_counts())
		skip(); /* no schedstat in this kernel: nothing counted, nothing excused */
	memset(&o, 0, sizeof(o));
	o.fd = -1;
	strcpy(o.peer, "192.0.2.1:18515");
	/* Just marked: no wait to speak of, so 0.1 s past -D 1 s plus the grace 2 s is overdue. */
	rb_cpuwait_mark();
	assert_int_equal(rb_step_overdue(&o, late, 1, grace, "sending"), -ETIMEDOUT);
	assert_int_equal(rb_step_overdue(&o, 3 * RB_NS_PER_S, 1, grace, "sending"), 0); /* within */

	/* Two spinners on one CPU for 0.4 s: together at most 0.4 s on it, so one waited 0.2 s or more. */
	assert_int_equal(sched_getaffinity(0, sizeof(all), &all), 0);
	CPU_ZERO(&one);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &all)) {
			CPU_SET(c, &one);
			break;
		}
	rb_cpuwait_mark();
	atomic_store(&stop_spin, false);
	assert_int_equal(pthread_create(&a, NULL, spin, NULL), 0);
	assert_int_equal(pthread_create(&b, NULL, spin, NULL), 0);
	assert_int_equal(pthread_setaffinity_np(a, sizeof(one), &one), 0);
	assert_int_equal(pthread_setaffinity_np(b, sizeof(one), &one), 0);
	usleep(400000);
	uint64_t w = rb_cpuwait_ns();
	atomic_store(&stop_spin, true);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	print_message("waited for a CPU: %.3f s (threads ended since are not counted after)\n",
	              (double)w / 1e9);
	assert_true(w >= 100 * RB_NS_PER_MS);
	/* That wait excuses 0.1 s of lateness, not the 3 s more after it. */
	assert_int_equal(rb_step_overdue(&o, late, 1, grace, "sending"), 0);
	assert_int_equal(rb_step_overdue(&o, 1 * RB_NS_PER_S + 3 * grace + 1, 1, grace, "sending"),
	                 -ETIMEDOUT);
	/* No -D: no bound at all. */
	assert_int_equal(rb_step_overdue(&o, 100 * RB_NS_PER_S, 0, grace, "sending"), 0);
}

/* Who was late: the peer only where this host's own waits cannot explain the delay. */
static void verdicts(void **state)
{
	const uint64_t s = RB_NS_PER_S, grace = 2 * s; /* -D 1: the limit is 3 s, waits allowed up to 30 s */

	(void)state;
	assert_int_equal(rb_step_excuse_ns(grace), 30 * s);
	assert_int_equal(rb_step_excuse_ns(20 * s), 40 * s); /* twice a long grace */
	assert_int_equal(rb_step_verdict(3 * s, 1, grace, 0), RB_STEP_ON_TIME);
	assert_int_equal(rb_step_verdict(100 * s, 0, grace, 0), RB_STEP_ON_TIME);   /* no -D */
	assert_int_equal(rb_step_verdict(4 * s, 1, grace, 1 * s), RB_STEP_ON_TIME); /* excused */
	assert_int_equal(rb_step_verdict(6 * s, 1, grace, 1 * s), RB_STEP_PEER_LATE);
	/* CI's campaign server: 11.5 s of a -D 1 step, 11 s of it off its CPUs: this host's delay. */
	assert_int_equal(rb_step_verdict(11500 * RB_NS_PER_MS, 1, grace, 11 * s), RB_STEP_ON_TIME);
	assert_int_equal(rb_step_verdict(33 * s, 1, grace, 30 * s), RB_STEP_ON_TIME); /* the most excused */
	/* 40 s with 38 s of waits: past the allowance, explained by this host. */
	assert_int_equal(rb_step_verdict(40 * s, 1, grace, 38 * s), RB_STEP_HOST_LOADED);
	/* 30 s with 9 s of waits: 18 s more than this host's waits explain, so the peer was late. */
	assert_int_equal(rb_step_verdict(30 * s, 1, grace, 9 * s), RB_STEP_PEER_LATE);
}

/* A loop's turn that came seconds late, its thread idle meanwhile: the gap past its wait, counted as a wait.
 */
static void absences_are_waits(void **state)
{
	const uint64_t s = RB_NS_PER_S, ms = RB_NS_PER_MS;
	struct timespec ts;
	struct rb_turn t = {0, 0, 0};
	uint64_t now;

	(void)state;
	/* wall time between two turns, CPU time used, the loop's own wait */
	assert_int_equal(rb_turn_gap(550 * ms, 0, 50 * ms), 0);          /* within wait + 0.5 s */
	assert_int_equal(rb_turn_gap(2550 * ms, 0, 50 * ms), 2500 * ms); /* 2.5 s not running */
	assert_int_equal(rb_turn_gap(2550 * ms, 2400 * ms, 50 * ms), 0); /* busy in its own code */
	assert_int_equal(rb_turn_gap(3 * s, 1 * s, 0), 2 * s);           /* busy 1 s of 3 */
	assert_int_equal(rb_turn_gap(1 * s, 2 * s, 0), 0);               /* more CPU than wall: threads */
	/* Live: a turn 3 s ago with this thread's CPU time now: 3 s away, the longest since the mark. */
	rb_cpuwait_mark();
	now = rb_now_ns();
	assert_int_equal(rb_cpuwait_gap(&t, now, 50 * ms), 0); /* the first turn: no gap */
	assert_int_equal(t.wall_ns, now);
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	t = (struct rb_turn){now - 3 * s, (uint64_t)ts.tv_sec * s + (uint64_t)ts.tv_nsec, now - 3 * s};
	assert_true(rb_cpuwait_gap(&t, now, 0) >= 2900 * ms);
	assert_true(rb_cpuwait_ns() >= 2900 * ms);
	rb_cpuwait_mark();
	assert_true(rb_cpuwait_ns() < s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(parse_lines),
	    cmocka_unit_test(verdicts),
	    cmocka_unit_test(absences_are_waits),
	    cmocka_unit_test(waits_are_counted_and_excuse_lateness),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

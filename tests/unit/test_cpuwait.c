/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * This process's threads' waits for a CPU (base/cpuwait.c), and the -D bound that
 * allows for them (rb_step_overdue): two threads that spin on one CPU make one
 * of them wait; a wait the kernel counted excuses that much lateness, no more
 * than twice the grace, and nothing else does.
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

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(parse_lines),
	    cmocka_unit_test(waits_are_counted_and_excuse_lateness),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* Exit codes come from the class of the first cause, never from an errno value. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "base/log.h"
#include "base/sig.h"

#include <errno.h>
#include <signal.h>
#include <string.h>

static int reset(void **state)
{
	(void)state;
	rb_forget_first_error();
	return 0;
}

/* ibv_post_send or ibv_modify_qp can fail with EINVAL mid-run: that is not bad input. */
static void runtime_einval_is_exit_1(void **state)
{
	(void)state;
	rb_err("ibv_post_send on QP 0 failed: %s", strerror(EINVAL));
	assert_int_equal(rb_exit_code(-EINVAL), RB_EXIT_RUNTIME);
	assert_int_equal(rb_exit_code(-ENODEV), RB_EXIT_RUNTIME);
	assert_string_equal(rb_first_error(), "ibv_post_send on QP 0 failed: Invalid argument");
}

static void usage_is_exit_2_whatever_the_errno(void **state)
{
	(void)state;
	rb_usage_err("invalid value '%s' for -s", "12Q");
	assert_int_equal(rb_exit_code(-EINVAL), RB_EXIT_USAGE);
	assert_int_equal(rb_exit_code(-EIO), RB_EXIT_USAGE);
	assert_int_equal(rb_exit_code(0), RB_EXIT_OK);
}

/* The first cause decides: a usage error logged after a run-time one changes nothing. */
static void first_cause_decides(void **state)
{
	(void)state;
	rb_err("peer closed the connection");
	rb_usage_err("param iters mismatch: local=1 remote=2");
	assert_int_equal(rb_exit_code(-EINVAL), RB_EXIT_RUNTIME);
	assert_string_equal(rb_first_error(), "peer closed the connection");
	rb_forget_first_error();
	assert_string_equal(rb_first_error(), "unknown error");
	rb_usage_err("param iters mismatch: local=1 remote=2");
	assert_int_equal(rb_exit_code(-EINVAL), RB_EXIT_USAGE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup(runtime_einval_is_exit_1, reset),
	    cmocka_unit_test_setup(usage_is_exit_2_whatever_the_errno, reset),
	    cmocka_unit_test_setup(first_cause_decides, reset),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

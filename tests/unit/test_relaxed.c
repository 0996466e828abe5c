/* SPDX-License-Identifier: BSD-2-Clause */
/* PCIe relaxed ordering (relaxed.h): on by default, off when disabled or refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "verbs/relaxed.h"

#include <errno.h>

static void decide(void **state)
{
	struct rb_relaxed r;

	(void)state;
	rb_relaxed_decide(false, 0, &r);
	assert_true(r.on);
	assert_int_equal(rb_relaxed_access(&r), IBV_ACCESS_RELAXED_ORDERING);
	assert_string_equal(r.why, "requested, the default");

	rb_relaxed_decide(true, 0, &r);
	assert_false(r.on);
	assert_int_equal(rb_relaxed_access(&r), 0);
	assert_string_equal(r.why, "--disable-pcie-relaxed");

	/* a kernel or device that refuses the flag: registered without it */
	rb_relaxed_decide(false, EINVAL, &r);
	assert_false(r.on);
	assert_string_equal(r.why, "the device refuses the flag");
	rb_relaxed_decide(false, EOPNOTSUPP, &r);
	assert_false(r.on);

	/* another failure (ENOMEM: ulimit -l) is the real registration's to report */
	rb_relaxed_decide(false, ENOMEM, &r);
	assert_true(r.on);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(decide),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

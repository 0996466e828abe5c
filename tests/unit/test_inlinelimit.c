/* SPDX-License-Identifier: BSD-2-Clause */
/* Which limit refused an inline QP (inlinelimit.h), against made-up providers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "verbs/inlinelimit.h"

#include <string.h>

/* mlx5-like: a WQE of 64 bytes plus the inline data in 64-byte units; 1 MiB of send queue. */
static bool wqe_budget(void *ctx, uint32_t send_wr, uint32_t inline_bytes)
{
	uint64_t wqe = 64 + (inline_bytes + 63) / 64 * 64;

	(void)ctx;
	return inline_bytes <= 828 && wqe * send_wr <= (1u << 20);
}

/* rxe-like: a fixed inline limit, whatever the depth. */
static bool fixed_limit(void *ctx, uint32_t send_wr, uint32_t inline_bytes)
{
	(void)ctx;
	(void)send_wr;
	return inline_bytes <= 320;
}

static void depth_is_the_limit(void **state)
{
	struct rb_inline_limit l;
	char msg[320];

	(void)state;
	/* 512 B inline: 576-byte WQEs, 1820 of them fit; at 8192 at most 64 bytes inline */
	rb_inline_limit_find(wqe_budget, NULL, 8192, 512, &l);
	assert_int_equal(l.max_inline, 64);
	assert_int_equal(l.max_depth, 1820);
	rb_inline_limit_fmt(&l, 8192, 512, msg, sizeof(msg));
	assert_non_null(
	    strstr(msg, "inline size 512 exceeds the device limit of 64 bytes at send queue depth 8192"));
	assert_non_null(strstr(msg, "depends on the depth (-t)"));
	assert_non_null(strstr(msg, "-I 512 works up to a depth of 1820"));
	assert_null(strchr(msg, '\n'));
}

static void inline_is_the_limit(void **state)
{
	struct rb_inline_limit l;
	char msg[320];

	(void)state;
	rb_inline_limit_find(fixed_limit, NULL, 128, 1000000, &l);
	assert_int_equal(l.max_inline, 320);
	assert_int_equal(l.max_depth, 0);
	rb_inline_limit_fmt(&l, 128, 1000000, msg, sizeof(msg));
	/* what tests/softroce/bw_inline_limit.sh greps for */
	assert_non_null(strstr(msg, "inline size 1000000 exceeds the device limit of 320 bytes"));
	assert_non_null(strstr(msg, "no smaller depth (-t) takes it"));

	/* mlx5-like, but past its inline maximum: no depth helps either */
	rb_inline_limit_find(wqe_budget, NULL, 64, 1024, &l);
	assert_int_equal(l.max_inline, 828);
	assert_int_equal(l.max_depth, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(depth_is_the_limit),
	    cmocka_unit_test(inline_is_the_limit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

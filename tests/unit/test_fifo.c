/* SPDX-License-Identifier: BSD-2-Clause */
/* fifo_pingpong's pure parts: the FIFO element, the sender's checks, the WR planner. */
#include "fifo.h"
#include "plan.h"

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

static void elem_round_trip(void **state)
{
	struct fifo_elem e = {0x1122334455667788ull, 1000003, {0xdeadbeef, 2, 3, 4}, 8, 0xabcd,
	                      0x0102030405060708ull};
	struct fifo_elem d;
	uint8_t b[FIFO_ELEM_BYTES];

	(void)state;
	fifo_elem_encode(b, &e);
	/* Little-endian at the documented offsets, whatever the host. */
	assert_int_equal(b[0], 0x88);
	assert_int_equal(b[7], 0x11);
	assert_int_equal(b[16], 0xef);
	assert_int_equal(b[32], 8);
	assert_int_equal(b[36], 0xcd);
	assert_int_equal(b[40], 0x08);
	for (unsigned i = 48; i < FIFO_ELEM_BYTES; i++)
		assert_int_equal(b[i], 0);
	fifo_elem_decode(b, &d);
	assert_memory_equal(&d, &e, sizeof(e));
	assert_int_equal(fifo_elem_idx(b), 0x0102030405060708ull);
	/* A sizes FIFO slot: a little-endian u32 per request. */
	fifo_sizes_encode(b, 3, 1000003);
	assert_int_equal(b[4], 0x43);
	assert_int_equal(b[6], 0x0f);
	for (unsigned r = 0; r < 3; r++)
		assert_int_equal(fifo_sizes_get(b, r), 1000003);
}

static void checks(void **state)
{
	struct fifo_bounds b = {
	    .base = 0x10000, .len = 4096, .rkey = 0x77, .nreqs = 1, .tag = 5, .need = 1000};
	struct fifo_elem good = {0x10000, 4096, {0x77}, 1, 5, 1};
	struct fifo_elem e;
	char why[200];

	(void)state;
	assert_int_equal(fifo_check(&good, 0, &b, why, sizeof(why)), 0);
	e = good, e.tag = 6;
	assert_int_equal(fifo_check(&e, 0, &b, why, sizeof(why)), -EPROTO);
	assert_non_null(strstr(why, "tag 0x6"));
	e = good, e.addr = 0;
	assert_int_equal(fifo_check(&e, 0, &b, why, sizeof(why)), -EPROTO);
	assert_non_null(strstr(why, "address 0 "));
	e = good, e.addr = 0x10000 + 4096;
	assert_int_equal(fifo_check(&e, 0, &b, why, sizeof(why)), -EPROTO);
	assert_non_null(strstr(why, "outside the receiver's buffer"));
	e = good, e.addr = 0xff00;
	assert_int_equal(fifo_check(&e, 0, &b, why, sizeof(why)), -EPROTO);
	e = good, e.size = 4097;
	assert_int_equal(fifo_check(&e, 0, &b, why, sizeof(why)), -EPROTO);
	assert_non_null(strstr(why, "size 4097 of request 0 runs past"));
	e = good, e.addr = 0x10000 + 4000, e.size = 1000;
	assert_int_equal(fifo_check(&e, 0, &b, why, sizeof(why)), -EPROTO);
	e = good, e.size = 999;
	assert_int_equal(fifo_check(&e, 0, &b, why, sizeof(why)), -EPROTO);
	assert_non_null(strstr(why, "truncation"));
	e = good, e.rkeys[0] = 0;
	assert_int_equal(fifo_check(&e, 0, &b, why, sizeof(why)), -EPROTO);
	assert_non_null(strstr(why, "rkey 0 "));
	e = good, e.rkeys[0] = 0x78;
	assert_int_equal(fifo_check(&e, 0, &b, why, sizeof(why)), -EPROTO);
	assert_non_null(strstr(why, "rkey 0x78"));
	e = good, e.nreqs = 9;
	assert_int_equal(fifo_check(&e, 0, &b, why, sizeof(why)), -EPROTO);
	assert_non_null(strstr(why, "nreqs 9"));
	/* nreqs is element 0's to say: the others' are not read. */
	assert_int_equal(fifo_check(&e, 1, &b, why, sizeof(why)), 0);
	/* An address near 2^64 cannot wrap past the check. */
	e = good, e.addr = UINT64_MAX - 10, e.size = 20;
	assert_int_equal(fifo_check(&e, 0, &b, why, sizeof(why)), -EPROTO);
}

/* Whatever the layout, every byte of every request is written exactly once. */
static void coverage(const struct plan_cfg *c)
{
	struct plan_wr wr[PLAN_MAX_WRS];
	unsigned n = plan_message(c, wr), nq = plan_qps(c), imms = 0;

	for (unsigned r = 0; r < c->nreqs; r++) {
		uint64_t next = 0;
		assert_int_equal(plan_chunk(c, r) % PLAN_ALIGN, 0);
		for (unsigned i = 0; i < n; i++) {
			if (wr[i].req != (int)r || !wr[i].len)
				continue;
			assert_int_equal(wr[i].offset, next); /* consecutive chunks on consecutive QPs */
			assert_true(wr[i].len <= plan_chunk(c, r));
			next += wr[i].len;
		}
		assert_int_equal(next, c->sizes[r]);
	}
	for (unsigned i = 0; i < n; i++) {
		bool last_of_qp = i + 1 == n || wr[i + 1].qp != wr[i].qp;
		assert_int_equal(wr[i].op == PLAN_WRITE_IMM, last_of_qp);
		assert_int_equal(wr[i].signaled, last_of_qp);
		imms += last_of_qp;
		if (last_of_qp)
			assert_int_equal(wr[i].imm, c->nreqs == 1 ? (uint32_t)c->sizes[0] : 0);
	}
	assert_int_equal(imms, nq); /* one completion per QP used, data or not */
}

static void planner_coverage(void **state)
{
	static const uint64_t sizes[] = {1, 4096, 1 << 20, 64 << 20, 1000003, 0, 127, 129};
	(void)state;
	for (unsigned s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
		for (unsigned q = 1; q <= 4; q++)
			for (int split = 0; split < 2; split++)
				for (int ar = 0; ar < 2; ar++) {
					struct plan_cfg c = {q, split, ar, 8192, 1, &sizes[s], q - 1};
					coverage(&c);
				}
}

static void adaptive_routing_boundary(void **state)
{
	uint64_t sz = 8192;
	struct plan_cfg c = {1, false, true, 8192, 1, &sz, 0};
	struct plan_wr wr[PLAN_MAX_WRS];

	(void)state;
	/* 8192: one WRITE_WITH_IMM carrying the data. */
	assert_int_equal(plan_message(&c, wr), 1);
	assert_int_equal(wr[0].op, PLAN_WRITE_IMM);
	assert_int_equal(wr[0].len, 8192);
	assert_int_equal(wr[0].imm, 8192);
	/* 8193: the bulk WRITE, then a 0-byte WRITE_WITH_IMM with the size. */
	sz = 8193;
	assert_int_equal(plan_message(&c, wr), 2);
	assert_int_equal(wr[0].op, PLAN_WRITE);
	assert_int_equal(wr[0].len, 8193);
	assert_false(wr[0].signaled);
	assert_int_equal(wr[1].op, PLAN_WRITE_IMM);
	assert_int_equal(wr[1].len, 0);
	assert_int_equal(wr[1].imm, 8193);
	/* AR off: 8193 is one WR again. */
	c.ar = false;
	assert_int_equal(plan_message(&c, wr), 1);
}

static void four_qps_64m(void **state)
{
	uint64_t sz = 64ull << 20;
	struct plan_cfg c = {4, true, false, 8192, 1, &sz, 2};
	struct plan_wr wr[PLAN_MAX_WRS];

	(void)state;
	assert_int_equal(plan_chunk(&c, 0), 16ull << 20);
	assert_int_equal(plan_message(&c, wr), 4);
	for (unsigned i = 0; i < 4; i++) {
		assert_int_equal(wr[i].qp, (2 + i) % 4); /* from QP first, wrapping */
		assert_int_equal(wr[i].offset, i * (16ull << 20));
		assert_int_equal(wr[i].len, 16ull << 20);
	}
	/* Split off: the whole message on QP first. */
	c.split = false;
	assert_int_equal(plan_message(&c, wr), 1);
	assert_int_equal(wr[0].qp, 2);
	assert_int_equal(wr[0].len, sz);
	/* 4 KiB over 3 QPs: chunks of 1408 (1366 rounded up to 128), the last shorter. */
	sz = 4096, c.split = true, c.nqps = 3, c.first = 0;
	assert_int_equal(plan_chunk(&c, 0), 1408);
	assert_int_equal(plan_message(&c, wr), 3);
	assert_int_equal(wr[2].len, 4096 - 2 * 1408);
	/* 200 bytes over 4 QPs: two QPs carry it, two send 0-byte WRITE_WITH_IMMs. */
	sz = 200, c.nqps = 4;
	assert_int_equal(plan_message(&c, wr), 4);
	assert_int_equal(wr[0].len, 128);
	assert_int_equal(wr[1].len, 72);
	assert_int_equal(wr[2].len, 0);
	assert_int_equal(wr[3].len, 0);
	assert_int_equal(wr[3].op, PLAN_WRITE_IMM);
	assert_int_equal(wr[3].imm, 200);
}

static void multi_recv(void **state)
{
	uint64_t sz[3] = {100, 5000, 0};
	struct plan_cfg c = {2, true, false, 8192, 3, sz, 0};
	struct plan_wr wr[PLAN_MAX_WRS];
	unsigned n;

	(void)state;
	coverage(&c);
	n = plan_message(&c, wr);
	/* Per QP: a WRITE per request, then the sizes array (3 x u32) as the WRITE_WITH_IMM, imm 0. */
	assert_int_equal(n, 8);
	assert_true(wr[3].sizes);
	assert_int_equal(wr[3].len, 12);
	assert_int_equal(wr[3].imm, 0);
	assert_int_equal(wr[3].qp, 0);
	assert_true(wr[7].sizes);
	assert_int_equal(wr[7].qp, 1);
	assert_int_equal(wr[1].len, 2560);
	assert_int_equal(wr[5].offset, 2560);
	assert_int_equal(wr[5].len, 5000 - 2560);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(elem_round_trip),  cmocka_unit_test(checks),
	    cmocka_unit_test(planner_coverage), cmocka_unit_test(adaptive_routing_boundary),
	    cmocka_unit_test(four_qps_64m),     cmocka_unit_test(multi_recv),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

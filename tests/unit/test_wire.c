/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Out-of-band frames as pure code: the header, frame types a tool registers, each
 * payload's round trip and rejection of malformed input (QPINFO, DONE, SIZE,
 * WINDOW, VERIFY, ERROR text, HELLO), HELLO comparison, and every decoder fed
 * random and bit-flipped bytes. The channel that carries them is test_channel.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "msg.h"
#include "run/pingpong.h"
#include "oob/qpinfo.h"
#include "oob/stepend.h"
#include "oob/wire.h"

#include <errno.h>
#include <math.h>
#include <string.h>

static uint8_t buf[RB_WIRE_MAX_PAYLOAD];

static void header(void **state)
{
	uint8_t h[RB_WIRE_HDR_LEN];
	struct rb_frame_hdr fh;
	const char *why = NULL;
	(void)state;
	rb_frame_hdr_encode(h, RB_MSG_QPINFO, 1234);
	assert_int_equal(rb_frame_hdr_decode(h, &fh, &why), 0);
	assert_int_equal(fh.type, RB_MSG_QPINFO);
	assert_int_equal(fh.len, 1234);
	/* Big-endian on the wire: "RDMB". */
	assert_memory_equal(h, "RDMB", 4);

	h[0] ^= 1;
	assert_int_equal(rb_frame_hdr_decode(h, &fh, &why), -EPROTO);
	assert_string_equal(why, "bad magic (not an rdmabench peer?)");
	rb_frame_hdr_encode(h, RB_MSG_QPINFO, RB_WIRE_MAX_PAYLOAD + 1);
	assert_int_equal(rb_frame_hdr_decode(h, &fh, &why), -EPROTO);
	rb_frame_hdr_encode(h, 0, 0);
	assert_int_equal(rb_frame_hdr_decode(h, &fh, &why), -EPROTO);
	rb_frame_hdr_encode(h, RB_MSG_TYPE_END, 0);
	assert_int_equal(rb_frame_hdr_decode(h, &fh, &why), -EPROTO);
	rb_frame_hdr_encode(h, RB_MSG_DONE, 0);
	h[5] = 9; /* version */
	assert_int_equal(rb_frame_hdr_decode(h, &fh, &why), -EPROTO);
}

static struct rb_qpinfo qin[RB_WIRE_MAX_QPS], qout[RB_WIRE_MAX_QPS];

/* n QPs as conn.c builds them: shared LID/GID/MTU/rkey, buffers back to back. */
static void make_qps(struct rb_qpinfo_msg *m, unsigned n)
{
	m->count = n;
	m->qp = qin;
	for (unsigned i = 0; i < n; i++) {
		qin[i] = (struct rb_qpinfo){.qpn = 0x11 + i,
		                            .psn = (0xabcdef + i) & 0xffffff,
		                            .lid = 7,
		                            .mtu = 5,
		                            .rkey = 0x1234,
		                            .len = 65536,
		                            .stride = 65536};
		memset(qin[i].gid, 0xfe, 16);
		qin[i].addr = 0x7f0000001000ull + i * 65536ull;
	}
	m->ctl = (struct rb_region){0x7e0000000000ull, 139264, 0x5678};
}

/* Encodes every frame of m and decodes them in order into out (cap entries). */
static int swap_all(const struct rb_qpinfo_msg *m, struct rb_qpinfo_msg *out, unsigned cap)
{
	unsigned filled = 0;
	int ret = 0;

	out->qp = qout;
	for (unsigned f = 0; f < rb_qpinfo_frames(m->count) && !ret; f++) {
		struct rb_wbuf w = {buf, 0, sizeof(buf), false};
		rb_qpinfo_encode(&w, m, f);
		assert_false(w.err);
		assert_true(w.len <= rb_msg_max_len(RB_MSG_QPINFO));
		ret = rb_qpinfo_decode(buf, w.len, out, cap, filled, &filled);
	}
	if (!ret)
		assert_int_equal(filled, m->count);
	return ret;
}

static void qpinfo_roundtrip(void **state)
{
	struct rb_qpinfo_msg in, out;
	struct rb_wbuf w = {buf, 0, sizeof(buf), false};
	unsigned filled = 0;
	(void)state;
	/* 1, 3, one full frame, one past it, and the most a side may have. */
	const unsigned counts[] = {1, 3, RB_QPINFO_PER_FRAME, RB_QPINFO_PER_FRAME + 1, RB_WIRE_MAX_QPS};
	for (unsigned c = 0; c < sizeof(counts) / sizeof(counts[0]); c++) {
		make_qps(&in, counts[c]);
		assert_int_equal(swap_all(&in, &out, RB_WIRE_MAX_QPS), 0);
		assert_int_equal(out.count, counts[c]);
		assert_memory_equal(qin, qout, sizeof(qin[0]) * counts[c]);
		assert_true(in.ctl.addr == out.ctl.addr && in.ctl.len == out.ctl.len &&
		            in.ctl.rkey == out.ctl.rkey);
	}
	/* 8 bytes per QP on the wire: setup cost grows linearly, in few frames. */
	assert_int_equal(rb_qpinfo_frames(RB_WIRE_MAX_QPS), RB_WIRE_MAX_QPS / RB_QPINFO_PER_FRAME);
	/* More QPs than this side has: -E2BIG, and the count says how many. */
	make_qps(&in, 5);
	assert_int_equal(swap_all(&in, &out, 3), -E2BIG);
	assert_int_equal(out.count, 5);
	/* Truncated, trailing junk, bad fields. */
	make_qps(&in, 3);
	out.qp = qout;
	rb_qpinfo_encode(&w, &in, 0);
	assert_int_equal(rb_qpinfo_decode(buf, w.len - 1, &out, 8, 0, &filled), -EPROTO);
	buf[w.len] = 0;
	assert_int_equal(rb_qpinfo_decode(buf, w.len + 1, &out, 8, 0, &filled), -EPROTO);
	/* A frame that does not start where the last one ended. */
	assert_int_equal(rb_qpinfo_decode(buf, w.len, &out, 8, 1, &filled), -EPROTO);
	qin[0].mtu = 6;
	w.len = 0;
	rb_qpinfo_encode(&w, &in, 0);
	assert_int_equal(rb_qpinfo_decode(buf, w.len, &out, 8, 0, &filled), -EPROTO);
	qin[0].mtu = 5;
	qin[2].qpn = 0x1000000; /* QPNs are 24-bit */
	w.len = 0;
	rb_qpinfo_encode(&w, &in, 0);
	assert_int_equal(rb_qpinfo_decode(buf, w.len, &out, 8, 0, &filled), -EPROTO);
	qin[2].qpn = 1;
	qin[0].addr = UINT64_MAX - 65536 * 2; /* QP 2's buffer wraps */
	qin[0].stride = 65536;
	w.len = 0;
	rb_qpinfo_encode(&w, &in, 0);
	assert_int_equal(rb_qpinfo_decode(buf, w.len, &out, 8, 0, &filled), -EPROTO);
	/* A total larger than the limit is refused before any entry is read. */
	qin[0].addr = 4096;
	w.len = 0;
	rb_qpinfo_encode(&w, &in, 0);
	buf[0] = 0xff;
	assert_int_equal(rb_qpinfo_decode(buf, w.len, &out, 8, 0, &filled), -EPROTO);
	buf[0] = buf[1] = buf[2] = buf[3] = 0; /* zero QPs */
	assert_int_equal(rb_qpinfo_decode(buf, w.len, &out, 8, 0, &filled), -EPROTO);
	/* A second frame whose shared fields differ from the first's. */
	make_qps(&in, RB_QPINFO_PER_FRAME + 2);
	out.qp = qout;
	filled = 0;
	w.len = 0;
	rb_qpinfo_encode(&w, &in, 0);
	assert_int_equal(rb_qpinfo_decode(buf, w.len, &out, RB_WIRE_MAX_QPS, 0, &filled), 0);
	in.ctl.rkey = 0x9999; /* the control region's key, too */
	w.len = 0;
	rb_qpinfo_encode(&w, &in, 1);
	assert_int_equal(rb_qpinfo_decode(buf, w.len, &out, RB_WIRE_MAX_QPS, filled, &filled), -EPROTO);
	in.ctl.rkey = 0x5678;
	qin[0].rkey = 0x9999;
	w.len = 0;
	rb_qpinfo_encode(&w, &in, 1);
	assert_int_equal(rb_qpinfo_decode(buf, w.len, &out, RB_WIRE_MAX_QPS, filled, &filled), -EPROTO);
	/* A control region that wraps, or has a length and no address. */
	make_qps(&in, 2);
	filled = 0;
	in.ctl = (struct rb_region){UINT64_MAX - 100, 4096, 1};
	w.len = 0;
	rb_qpinfo_encode(&w, &in, 0);
	assert_int_equal(rb_qpinfo_decode(buf, w.len, &out, 8, 0, &filled), -EPROTO);
	in.ctl = (struct rb_region){0, 4096, 1};
	w.len = 0;
	rb_qpinfo_encode(&w, &in, 0);
	assert_int_equal(rb_qpinfo_decode(buf, w.len, &out, 8, 0, &filled), -EPROTO);
}

static void small_frames(void **state)
{
	struct rb_wbuf w = {buf, 0, sizeof(buf), false};
	struct rb_stepend d = {100, 6400, 5000, 1.5, NAN}, d2;
	struct rb_window win = {3, 17, 1}, win2;
	struct rb_verdict v = {2, 1, 99, 12, 0x5a, 0}, v2;
	char text[RB_WIRE_MSG_LEN];
	(void)state;
	rb_stepend_encode(&w, &d);
	assert_int_equal(rb_stepend_decode(buf, w.len, &d2), 0);
	assert_true(d2.msgs == 100 && d2.bytes == 6400 && d2.elapsed_ns == 5000 && d2.peak_gbps == 1.5);
	d.peak_gbps = -1;
	w.len = 0;
	rb_stepend_encode(&w, &d);
	assert_int_equal(rb_stepend_decode(buf, w.len, &d2), -EPROTO);
	d.peak_gbps = 0;
	d.elapsed_ns = 0; /* messages in no time */
	w.len = 0;
	rb_stepend_encode(&w, &d);
	assert_int_equal(rb_stepend_decode(buf, w.len, &d2), -EPROTO);
	d.elapsed_ns = 5000;
	d.bytes = 0; /* messages with no bytes: a hostile count the receiver would multiply */
	d.msgs = 1ull << 58;
	w.len = 0;
	rb_stepend_encode(&w, &d);
	assert_int_equal(rb_stepend_decode(buf, w.len, &d2), -EPROTO);

	/* SIZE: a run of 1 to RB_WIRE_MAX_RUN messages, or the end (0, 0); nothing else. */
	{
		static const struct {
			uint64_t size;
			uint32_t count;
			int want;
		} runs[] = {{65536, 1, 0},           {65536, RB_WIRE_MAX_RUN, 0},           {0, 0, 0},
		            {65536, 0, -EPROTO},     {65536, RB_WIRE_MAX_RUN + 1, -EPROTO}, {0, 1, -EPROTO},
		            {1, UINT32_MAX, -EPROTO}};
		uint64_t size;
		uint32_t count;
		for (unsigned i = 0; i < sizeof(runs) / sizeof(runs[0]); i++) {
			w.len = 0;
			rb_msgrun_encode(&w, runs[i].size, runs[i].count);
			assert_int_equal(w.len, 12);
			assert_int_equal(rb_msgrun_decode(buf, w.len, &size, &count), runs[i].want);
			if (!runs[i].want)
				assert_true(size == runs[i].size && count == runs[i].count);
		}
		assert_int_equal(rb_msgrun_decode(buf, 8, &size, &count), -EPROTO); /* the old one-u64 SIZE */
	}

	w.len = 0;
	rb_window_encode(&w, &win);
	assert_int_equal(rb_window_decode(buf, w.len, &win2), 0);
	assert_true(win2.index == 3 && win2.msgs_per_qp == 17 && win2.last == 1);
	buf[8] = 2;
	assert_int_equal(rb_window_decode(buf, w.len, &win2), -EPROTO);

	w.len = 0;
	rb_verdict_encode(&w, &v);
	assert_int_equal(rb_verdict_decode(buf, w.len, &v2), 0);
	assert_true(v2.bad == 2 && v2.qp == 1 && v2.msg == 99 && v2.offset == 12 && v2.expected == 0x5a);

	w.len = 0;
	rb_text_encode(&w, "peer says \x1b[31mno\n");
	assert_int_equal(rb_text_decode(buf, w.len, text, sizeof(text)), 0);
	assert_string_equal(text, "peer says ?[31mno?"); /* control bytes never reach a terminal */
	/* A raw control byte in a received string is refused outright. */
	buf[3] = 0x07;
	assert_int_equal(rb_text_decode(buf, w.len, text, sizeof(text)), -EPROTO);
}

static void hello_roundtrip(void **state)
{
	static struct rb_hello a, b;
	struct rb_wbuf w = {buf, 0, sizeof(buf), false};
	(void)state;
	memset(&a, 0, sizeof(a));
	strcpy(a.tool, "rc_write_bw");
	strcpy(a.version, "0.1.0");
	strcpy(a.host, "node-a");
	assert_int_equal(rb_hello_add(&a, "sizes", "%s", "64,4K"), 0);
	assert_int_equal(rb_hello_add(&a, "qps", "%u", 4u), 0);
	assert_int_equal(rb_hello_arg_add(&a, "duration", "10"), 0);
	rb_hello_encode(&w, &a);
	assert_int_equal(rb_hello_decode(buf, w.len, &b), 0);
	assert_string_equal(rb_hello_get(&b, "qps"), "4");
	assert_string_equal(b.host, "node-a");
	assert_int_equal(b.nargs, 1);
	assert_string_equal(b.args[0].key, "duration");
	assert_string_equal(b.args[0].val, "10");
	assert_null(rb_hello_get(&b, "nope"));
	/* Too many parameters on the wire. */
	w.len = 0;
	rb_put_str(&w, "t");
	rb_put_str(&w, "v");
	rb_put_str(&w, "h");
	rb_put_u16(&w, RB_WIRE_MAX_PARAMS + 1);
	assert_int_equal(rb_hello_decode(buf, w.len, &b), -EPROTO);
	/* Too many client options. */
	w.len = 0;
	rb_put_str(&w, "t");
	rb_put_str(&w, "v");
	rb_put_str(&w, "h");
	rb_put_u16(&w, 0);
	rb_put_u16(&w, RB_WIRE_MAX_ARGS + 1);
	assert_int_equal(rb_hello_decode(buf, w.len, &b), -EPROTO);
	/* A string longer than the field, in a frame that is whole otherwise (both pair counts). */
	for (int longer = 0; longer < 2; longer++) {
		w.len = 0;
		rb_put_str(&w, longer ? "a_tool_name_that_is_far_longer_than_thirty_two_bytes" : "a_tool");
		rb_put_str(&w, "v");
		rb_put_str(&w, "h");
		rb_put_u16(&w, 0);
		rb_put_u16(&w, 0);
		assert_int_equal(rb_hello_decode(buf, w.len, &b), longer ? -EPROTO : 0);
	}
	/* The largest HELLO a sender can build fits the cap a receiver enforces. */
	memset(&a, 'x', sizeof(a));
	a.tool[RB_WIRE_KEY_LEN - 1] = a.version[RB_WIRE_KEY_LEN - 1] = a.host[RB_WIRE_HOST_LEN - 1] = 0;
	a.nparams = RB_WIRE_MAX_PARAMS;
	for (unsigned i = 0; i < RB_WIRE_MAX_PARAMS; i++) {
		a.params[i].key[RB_WIRE_KEY_LEN - 1] = 0;
		a.params[i].val[RB_WIRE_VAL_LEN - 1] = 0;
	}
	a.nargs = RB_WIRE_MAX_ARGS;
	for (unsigned i = 0; i < RB_WIRE_MAX_ARGS; i++) {
		a.args[i].key[RB_WIRE_KEY_LEN - 1] = 0;
		a.args[i].val[RB_WIRE_VAL_LEN - 1] = 0;
	}
	w.len = 0;
	rb_hello_encode(&w, &a);
	assert_false(w.err);
	assert_true(w.len <= rb_msg_max_len(RB_MSG_HELLO));
	assert_int_equal(rb_hello_decode(buf, w.len, &b), 0);
}

static unsigned mismatches;
static char last_key[64];
static void count(void *ctx, const char *k, const char *l, const char *r)
{
	(void)l;
	(void)r;
	mismatches++;
	strcpy(last_key, k);
}

static void compare(void **state)
{
	static struct rb_hello a, b;
	(void)state;
	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	rb_hello_add(&a, "qps", "1");
	rb_hello_add(&a, "iters", "100");
	rb_hello_add(&b, "qps", "1");
	rb_hello_add(&b, "iters", "200");
	mismatches = 0;
	assert_int_equal(rb_hello_compare(&a, &b, count, NULL), 1);
	assert_string_equal(last_key, "iters");
	rb_hello_add(&b, "extra", "x");
	mismatches = 0;
	assert_int_equal(rb_hello_compare(&a, &b, count, NULL), 2);
	assert_string_equal(last_key, "extra");
}

/*
 * Every decoder takes arbitrary bytes: random buffers and bit-flipped valid frames
 * must be refused or decoded into something that encodes back to the same bytes.
 */
static uint64_t rng = 0x243f6a8885a308d3ull;
static uint32_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)rng;
}

static void decoders_take_garbage(void **state)
{
	static uint8_t in[4096], out[RB_WIRE_MAX_PAYLOAD];
	static struct rb_hello h;
	static struct rb_qpinfo_msg q;
	struct rb_window win;
	struct rb_verdict v;
	struct rb_stepend se;
	char text[RB_WIRE_MSG_LEN];
	unsigned accepted = 0, filled;
	(void)state;
	for (unsigned iter = 0; iter < 20000; iter++) {
		size_t len = next_rand() % 300;
		struct rb_wbuf w = {out, 0, sizeof(out), false};

		if (iter % 2) {
			for (size_t i = 0; i < len; i++)
				in[i] = (uint8_t)next_rand();
		} else {
			/* A valid QPINFO or HELLO with a few bits flipped. */
			struct rb_wbuf g = {in, 0, sizeof(in), false};
			make_qps(&q, 1 + next_rand() % 3);
			if (iter % 4)
				rb_qpinfo_encode(&g, &q, 0);
			else {
				memset(&h, 0, sizeof(h));
				strcpy(h.tool, "rc_write_bw");
				rb_hello_add(&h, "iters", "100");
				rb_hello_encode(&g, &h);
			}
			len = g.len;
			for (unsigned f = 0; f < 1 + next_rand() % 3; f++)
				in[next_rand() % len] ^= (uint8_t)(1u << (next_rand() % 8));
		}
		q.qp = qout;
		/* A whole message in one frame must encode back to the same bytes. */
		if (!rb_qpinfo_decode(in, len, &q, 8, 0, &filled) && filled == q.count) {
			rb_qpinfo_encode(&w, &q, 0);
			assert_int_equal(w.len, len);
			assert_memory_equal(out, in, len);
			accepted++;
		}
		if (!rb_hello_decode(in, len, &h)) {
			w.len = 0;
			rb_hello_encode(&w, &h);
			assert_int_equal(w.len, len);
			assert_memory_equal(out, in, len);
			accepted++;
		}
		/* The fixed-size ones must at least never read past len or crash. */
		rb_window_decode(in, len, &win);
		rb_verdict_decode(in, len, &v);
		rb_stepend_decode(in, len, &se);
		rb_text_decode(in, len, text, sizeof(text));
	}
	assert_true(accepted > 0); /* some flips hit don't-care bits: the check ran */
}

/* A tool's frame types are unknown on the wire until it registers them; no number is spoken twice. */
static void registered_types(void **state)
{
	static const struct rb_msg_def mine[] = {{7, "MINE", 100, false}},
	                               clash[] = {{RB_MSG_DONE, "NOTDONE", 256, false}},
	                               other[] = {{7, "OTHER", 100, false}},
	                               bad[] = {{RB_MSG_TYPE_END, "X", 1, false}};
	uint8_t h[RB_WIRE_HDR_LEN];
	struct rb_frame_hdr fh;
	const char *why = NULL;
	(void)state;
	rb_frame_hdr_encode(h, 7, 10);
	assert_int_equal(rb_frame_hdr_decode(h, &fh, &why), -EPROTO);
	assert_string_equal(why, "unknown frame type");
	assert_string_equal(rb_msg_name(7), "UNKNOWN");
	assert_int_equal(rb_msg_register(mine, 1), 0);
	assert_int_equal(rb_msg_register(mine, 1), 0); /* again: harmless */
	assert_int_equal(rb_frame_hdr_decode(h, &fh, &why), 0);
	assert_string_equal(rb_msg_name(7), "MINE");
	rb_frame_hdr_encode(h, 7, 101);
	assert_int_equal(rb_frame_hdr_decode(h, &fh, &why), -EPROTO); /* past its cap */
	assert_int_equal(rb_msg_register(clash, 1), -EEXIST);
	assert_int_equal(rb_msg_register(other, 1), -EEXIST);
	assert_int_equal(rb_msg_register(bad, 1), -EINVAL);
	assert_string_equal(rb_msg_name(RB_MSG_DONE), "DONE");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(header),
	    cmocka_unit_test(registered_types),
	    cmocka_unit_test(qpinfo_roundtrip),
	    cmocka_unit_test(small_frames),
	    cmocka_unit_test(hello_roundtrip),
	    cmocka_unit_test(compare),
	    cmocka_unit_test(decoders_take_garbage),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

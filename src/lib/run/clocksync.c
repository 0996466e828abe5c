/* SPDX-License-Identifier: BSD-2-Clause */
/* The peer's clock against this side's, from out-of-band round trips (clocksync.h). */
#include "clocksync.h"

#include "base/base.h"

#include <errno.h>

/* CLOCK: the probe's number and t1; the answer adds t2 and t3. */
#define PROBE_LEN  16
#define ANSWER_LEN 32

static int probe_client(struct rb_oob *o, unsigned n, int timeout_ms, struct rb_clock_point *pt)
{
	struct rb_clock_probe p[RB_CLOCK_PROBES_MAX];
	unsigned kept = 0;

	for (unsigned i = 0; i < n; i++) {
		uint8_t buf[PROBE_LEN];
		struct rb_wbuf w = {buf, 0, sizeof(buf), false};
		struct rb_frame f;
		struct rb_rbuf r;
		uint64_t t1 = rb_now_ns(), t4, seq, e1, t2, t3;
		int ret;

		rb_put_u64(&w, i);
		rb_put_u64(&w, t1);
		if ((ret = rb_oob_send_w(o, RB_MSG_CLOCK, &w)) ||
		    (ret = rb_oob_expect(o, RB_MSG_CLOCK, &f, timeout_ms)))
			return ret;
		t4 = rb_now_ns();
		r = (struct rb_rbuf){f.p, f.len, 0, false};
		seq = rb_get_u64(&r);
		e1 = rb_get_u64(&r);
		t2 = rb_get_u64(&r); /* in this order: an initializer's calls have none */
		t3 = rb_get_u64(&r);
		p[kept] = (struct rb_clock_probe){t1, t2, t3, t4};
		/* An answer to another probe, or of another length, is not this probe's. */
		if (r.err || f.len != ANSWER_LEN || seq != i || e1 != t1)
			continue;
		kept++;
	}
	if (!rb_clock_point(p, kept, pt)) {
		rb_err("the peer's clock: none of its %u answers to the clock probes was consistent", n);
		return -EPROTO;
	}
	return 0;
}

static int probe_server(struct rb_oob *o, unsigned n, int timeout_ms)
{
	for (unsigned i = 0; i < n; i++) {
		uint8_t buf[ANSWER_LEN];
		struct rb_wbuf w = {buf, 0, sizeof(buf), false};
		struct rb_frame f;
		struct rb_rbuf r;
		uint64_t t2, seq, t1;
		int ret;

		if ((ret = rb_oob_expect(o, RB_MSG_CLOCK, &f, timeout_ms)))
			return ret;
		t2 = rb_now_ns();
		r = (struct rb_rbuf){f.p, f.len, 0, false};
		seq = rb_get_u64(&r);
		t1 = rb_get_u64(&r);
		if (r.err || f.len != PROBE_LEN || seq != i) {
			rb_err("clock probe %u: a malformed probe (%u bytes, number %llu)", i, f.len,
			       (unsigned long long)seq);
			return -EPROTO;
		}
		rb_put_u64(&w, seq);
		rb_put_u64(&w, t1);
		rb_put_u64(&w, t2);
		rb_put_u64(&w, rb_now_ns());
		if ((ret = rb_oob_send_w(o, RB_MSG_CLOCK, &w)))
			return ret;
	}
	return 0;
}

int rb_clock_sync(struct rb_oob *o, bool client, unsigned n, int timeout_ms, struct rb_clock_point *pt)
{
	if (n < 1 || n > RB_CLOCK_PROBES_MAX)
		return -EINVAL;
	return client ? probe_client(o, n, timeout_ms, pt) : probe_server(o, n, timeout_ms);
}

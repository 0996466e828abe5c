/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Trust between peers, the pure parts: --auth-key's SHA-256 and HMAC-SHA-256 against
 * published test vectors (FIPS 180-4 examples, RFC 4231) and its proofs, the AGREE
 * codec, a server's limits on the run a client asks for, and the rule that says when
 * two sides' clocks disagree.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "oob/agree.h"
#include "oob/auth.h"
#include "base/log.h"
#include "run/serve_limits.h"
#include "oob/channel.h"
#include "oob/stepend.h"
#include "base/timeutil.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static void hex(const uint8_t *b, size_t n, char *out)
{
	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", b[i]);
}

static void sha256_vectors(void **state)
{
	uint8_t d[RB_AUTH_LEN];
	char h[2 * RB_AUTH_LEN + 1];
	static const char two_blocks[] = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
	static uint8_t million[1000000];

	(void)state;
	rb_sha256("", 0, d);
	hex(d, sizeof(d), h);
	assert_string_equal(h, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	rb_sha256("abc", 3, d);
	hex(d, sizeof(d), h);
	assert_string_equal(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
	rb_sha256(two_blocks, strlen(two_blocks), d);
	hex(d, sizeof(d), h);
	assert_string_equal(h, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
	memset(million, 'a', sizeof(million));
	rb_sha256(million, sizeof(million), d);
	hex(d, sizeof(d), h);
	assert_string_equal(h, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

static void hmac_rfc4231(void **state)
{
	uint8_t key[131], d[RB_AUTH_LEN];
	char h[2 * RB_AUTH_LEN + 1];
	const char *m1 = "Hi There", *m2 = "what do ya want for nothing?";
	const char *m6 = "Test Using Larger Than Block-Size Key - Hash Key First";
	const void *p[2];
	size_t l[2];

	(void)state;
	memset(key, 0x0b, 20);
	p[0] = m1;
	l[0] = strlen(m1);
	rb_hmac_sha256(key, 20, p, l, 1, d);
	hex(d, sizeof(d), h);
	assert_string_equal(h, "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");
	/* Case 2, the message in two parts: parts are concatenated. */
	p[0] = m2;
	l[0] = 10;
	p[1] = m2 + 10;
	l[1] = strlen(m2) - 10;
	rb_hmac_sha256((const uint8_t *)"Jefe", 4, p, l, 2, d);
	hex(d, sizeof(d), h);
	assert_string_equal(h, "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
	/* Case 6: a key longer than a block is hashed first. */
	memset(key, 0xaa, sizeof(key));
	p[0] = m6;
	l[0] = strlen(m6);
	rb_hmac_sha256(key, sizeof(key), p, l, 1, d);
	hex(d, sizeof(d), h);
	assert_string_equal(h, "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");
}

/* The two proofs differ, depend on both nonces and on the key, and compare in full. */
static void proofs(void **state)
{
	struct rb_auth_key k1, k2;
	uint8_t nc[RB_AUTH_LEN] = {1}, ns[RB_AUTH_LEN] = {2}, a[RB_AUTH_LEN], b[RB_AUTH_LEN];

	(void)state;
	rb_auth_key_from(&k1, "secret", 6);
	rb_auth_key_from(&k2, "secreT", 6);
	assert_true(k1.set);
	rb_auth_proof(&k1, 'C', nc, ns, a);
	rb_auth_proof(&k1, 'C', nc, ns, b);
	assert_true(rb_auth_equal(a, b, sizeof(a)));
	rb_auth_proof(&k1, 'S', nc, ns, b);
	assert_false(rb_auth_equal(a, b, sizeof(a)));
	rb_auth_proof(&k2, 'C', nc, ns, b);
	assert_false(rb_auth_equal(a, b, sizeof(a)));
	ns[RB_AUTH_LEN - 1] ^= 1;
	rb_auth_proof(&k1, 'C', nc, ns, b);
	assert_false(rb_auth_equal(a, b, sizeof(a)));
	b[0] = a[0];
	memcpy(b, a, sizeof(a));
	b[RB_AUTH_LEN - 1] ^= 0x80;
	assert_false(rb_auth_equal(a, b, sizeof(a)));
}

static void agree_codec(void **state)
{
	uint8_t buf[1024];
	struct rb_wbuf w = {buf, 0, sizeof(buf), false};
	struct rb_agree a = {.seq = 7, .ok = false}, b;

	(void)state;
	snprintf(a.why, sizeof(a.why), "gate --min-bw 10 failed");
	rb_agree_encode(&w, &a);
	assert_false(w.err);
	assert_int_equal(rb_agree_decode(buf, w.len, &b), 0);
	assert_int_equal(b.seq, 7);
	assert_false(b.ok);
	assert_string_equal(b.why, a.why);
	/* ok with a cause, a verdict byte other than 0/1, a short frame: malformed. */
	buf[8] = 2;
	assert_int_equal(rb_agree_decode(buf, w.len, &b), -EPROTO);
	buf[8] = 1;
	assert_int_equal(rb_agree_decode(buf, w.len, &b), -EPROTO);
	assert_int_equal(rb_agree_decode(buf, 8, &b), -EPROTO);
}

static void run_hello(struct rb_hello *h, const char *duration, const char *sizes, const char *forever)
{
	memset(h, 0, sizeof(*h));
	rb_hello_add(h, "duration", "%s", duration);
	rb_hello_add(h, "size_count", "%s", sizes);
	if (forever)
		rb_hello_add(h, "run_infinitely", "%s", forever);
}

static void limits(void **state)
{
	struct rb_limits l;
	static struct rb_hello h;
	char why[256];

	(void)state;
	rb_limits_default(&l);
	l.max_mem = 1ull << 30;
	run_hello(&h, "0", "23", "0");
	assert_int_equal(rb_limits_check(&l, &h, 1ull << 30, false, why, sizeof(why)), 0);
	assert_int_equal(rb_limits_check(&l, &h, (1ull << 30) + 1, false, why, sizeof(why)), -E2BIG);
	assert_string_equal(
	    why, "the run needs 1.0 GiB of buffers; this server allows 1.0 GiB per run (--max-run-mem)");
	assert_int_equal(rb_limits_check(&l, &h, 8ull << 30, false, why, sizeof(why)), -E2BIG);
	assert_string_equal(
	    why, "the run needs 8.0 GiB of buffers; this server allows 1.0 GiB per run (--max-run-mem)");
	/* -D x sizes against --max-run-time (3600 by default); -n runs have no planned length. */
	run_hello(&h, "200", "18", NULL);
	assert_int_equal(rb_limits_check(&l, &h, 0, false, why, sizeof(why)), 0);
	run_hello(&h, "200", "19", NULL);
	assert_int_equal(rb_limits_check(&l, &h, 0, false, why, sizeof(why)), -E2BIG);
	assert_string_equal(
	    why, "the run would last 3800 s (-D 200 x 19 size(s)); this server allows 3600 s per run "
	         "(--max-run-time)");
	/* --load measures each size twice (idle, then loaded), --repeat N times: the plan doubles, then more.
	 */
	run_hello(&h, "100", "18", NULL);
	assert_int_equal(rb_limits_check(&l, &h, 0, false, why, sizeof(why)), 0);
	rb_hello_add(&h, "load", "%s", "4x64K");
	assert_int_equal(rb_limits_check(&l, &h, 0, false, why, sizeof(why)), 0);
	run_hello(&h, "100", "19", NULL);
	rb_hello_add(&h, "load", "%s", "4x64K");
	assert_int_equal(rb_limits_check(&l, &h, 0, false, why, sizeof(why)), -E2BIG);
	assert_string_equal(why,
	                    "the run would last 3800 s (-D 100 x 19 size(s) x 2 measurements each); this "
	                    "server allows 3600 s per run (--max-run-time)");
	run_hello(&h, "60", "19", NULL);
	rb_hello_add(&h, "repeat", "%s", "3");
	assert_int_equal(rb_limits_check(&l, &h, 0, false, why, sizeof(why)), 0); /* 3420 s */
	rb_hello_add(&h, "load", "%s", "4x64K");
	assert_int_equal(rb_limits_check(&l, &h, 0, false, why, sizeof(why)), -E2BIG);
	assert_non_null(strstr(why, "6840 s (-D 60 x 19 size(s) x 6 measurements each)"));
	run_hello(&h, "0", "1", "1");
	assert_int_equal(rb_limits_check(&l, &h, 0, false, why, sizeof(why)), -E2BIG);
	assert_string_equal(why, "the run asks for --run-infinitely; this server does not allow it "
	                         "(--allow-infinite, or --run-infinitely on the server too)");
	/* The server's own --run-infinitely is its consent, as perftest has both sides give it. */
	assert_int_equal(rb_limits_check(&l, &h, 0, true, why, sizeof(why)), 0);
	l.allow_infinite = true;
	assert_int_equal(rb_limits_check(&l, &h, 0, false, why, sizeof(why)), 0);
	/* The default memory limit is a quarter of this host's. */
	l.max_mem = 0;
	assert_true(rb_limits_mem(&l) > 0 && rb_limits_mem(&l) < UINT64_MAX / 2);
}

#define MS 1000000ull

static void clocks(void **state)
{
	(void)state;
	/* The review's case: 1 ns claimed against 41 ms measured. */
	assert_false(rb_stepend_clocks_agree(41 * MS, 1, 50000));
	assert_false(rb_stepend_clocks_agree(1, 41 * MS, 50000));
	/* A quarter of the longer plus 20 ms plus two round trips (capped at 1 s). */
	assert_int_equal(rb_stepend_slack_ns(1000 * MS, 0), 270 * MS);
	assert_int_equal(rb_stepend_slack_ns(1000 * MS, 5 * MS), 280 * MS);
	assert_int_equal(rb_stepend_slack_ns(0, 60000 * MS), 2020 * MS);
	assert_true(rb_stepend_clocks_agree(1000 * MS, 750 * MS, 0));
	assert_false(rb_stepend_clocks_agree(1000 * MS, 729 * MS, 0));
	assert_true(rb_stepend_clocks_agree(1000 * MS, 720 * MS, 5 * MS));
	/* A host that stalled 75 ms in a 213 ms step (seen on two busy cores): within twice and 250 ms. */
	assert_true(rb_stepend_clocks_agree(213 * MS, 138 * MS, 50000));
	assert_false(rb_stepend_clocks_agree(400 * MS, 190 * MS, 0));
	/* Short steps: 20 ms covers scheduling; equal figures always agree. */
	assert_true(rb_stepend_clocks_agree(1 * MS, 21 * MS, 0));
	assert_false(rb_stepend_clocks_agree(1, 150 * MS, 0));
	assert_true(rb_stepend_clocks_agree(0, 0, 0));
	assert_true(rb_stepend_clocks_agree(UINT64_MAX, UINT64_MAX, UINT64_MAX));
	/* The grace after -D: 2 s, or a quarter of a long step. */
	assert_int_equal(rb_step_grace_ns(2), 2000 * MS);
	assert_int_equal(rb_step_grace_ns(0.5), 2000 * MS);
	assert_int_equal(rb_step_grace_ns(60), 15000 * MS);
}

/*
 * The causal window: the peer's step began after this side's BARRIER and ended before
 * its DONE. Seen on rxe: this side stalled 78 ms after its BARRIER, so its own clock
 * read 1.8 ms where the peer's sends took 80 ms; that is no lie, 80 ms beyond the
 * window is.
 */
static void causal_window(void **state)
{
	struct rb_oob o = {.fd = -1};
	struct rb_step_host h = {0};

	(void)state;
	rb_log_init("test_trust");
	assert_int_equal(rb_stepend_window_ns(&o), 0);
	assert_int_equal(rb_stepend_judge_clock("peer", 2 * MS, 80 * MS, &h), -EPROTO);
	o.barrier_ns = rb_now_ns() - 100 * MS;
	assert_true(rb_stepend_window_ns(&o) >= 101 * MS);
	h.window_ns = rb_stepend_window_ns(&o);
	assert_int_equal(rb_stepend_judge_clock("peer", 2 * MS, 80 * MS, &h), 0);
	assert_int_equal(rb_stepend_judge_clock("peer", 2 * MS, 180 * MS, &h), -EPROTO);
	/* Shorter than this side's clock: the window says nothing; the slack rule judges. */
	assert_int_equal(rb_stepend_judge_clock("peer", 80 * MS, 1, &h), -EPROTO);
}

/*
 * The clock rule on a loaded host (issue: "peer's DONE says the step took 60.0 ms,
 * this side measured 128.9 ms" failed a clean run): the gap beyond the slack is
 * 16.6 ms, so a host that stalled that long cannot judge the peer; one that stalled
 * less can, and a 1 ns claim against 41 ms needs a stall of the whole gap.
 */
static void loaded_host(void **state)
{
	struct rb_step_host h = {.rtt_ns = 50000, .window_ns = 130 * MS};
	uint64_t own = 128900000, peer = 60 * MS;

	(void)state;
	assert_int_equal(rb_stepend_judge_clock("peer", own, peer, &h), -EPROTO);
	h.stalled_ns = 10 * MS;
	assert_int_equal(rb_stepend_judge_clock("peer", own, peer, &h), -EPROTO);
	h.stalled_ns = 17 * MS;
	assert_int_equal(rb_stepend_judge_clock("peer", own, peer, &h), RB_STEPEND_DOUBT);
	h.stalled_ns = 0;
	assert_int_equal(rb_stepend_judge_clock("peer", 41 * MS, 1, &h), -EPROTO);
	h.stalled_ns = 1 * MS;
	assert_int_equal(rb_stepend_judge_clock("peer", 41 * MS, 1, &h), -EPROTO);
	/* Agreeing clocks need no evidence at all. */
	assert_int_equal(rb_stepend_judge_clock("peer", 100 * MS, 90 * MS, &h), 0);
}

/* Every figure of the peer's DONE against what this side knows (stepend.h's rb_stepend_hold). */
static void hold(void **state)
{
	struct rb_step_host h = {.rtt_ns = 50000, .window_ns = 1100 * MS};
	struct rb_stepend p = {
	    .msgs = 1000, .bytes = 65536000, .elapsed_ns = 1000 * MS, .peak_gbps = NAN, .cpu_pct = 50};
	struct rb_step_view v = {.sends = RB_PEER_SENDS_COUNTED,
	                         .rcvd_msgs = 1000,
	                         .rcvd_bytes = 65536000,
	                         .msg_bytes = 65536,
	                         .want_msgs = RB_STEPEND_ANY,
	                         .own_ns = 1000 * MS,
	                         .need = RB_STEPEND_CPU,
	                         .none = RB_STEPEND_PEAK};

	(void)state;
	assert_int_equal(rb_stepend_hold("peer", &v, &h, &p), 0);
	/* The lie: a byte count rewritten, in either direction. */
	p.bytes *= 2;
	assert_int_equal(rb_stepend_hold("peer", &v, &h, &p), -EPROTO);
	p.bytes /= 2;
	p.msgs++;
	assert_int_equal(rb_stepend_hold("peer", &v, &h, &p), -EPROTO);
	p.msgs--;
	/* A side the peer sends nothing to takes no count from it. */
	v.sends = RB_PEER_SENDS_NOTHING;
	assert_int_equal(rb_stepend_hold("peer", &v, &h, &p), -EPROTO);
	p.msgs = p.bytes = 0;
	assert_int_equal(rb_stepend_hold("peer", &v, &h, &p), 0);
	/* Figures it must and must not send. */
	p.cpu_pct = NAN;
	assert_int_equal(rb_stepend_hold("peer", &v, &h, &p), -EPROTO);
	p.cpu_pct = 50;
	p.peak_gbps = 1;
	assert_int_equal(rb_stepend_hold("peer", &v, &h, &p), -EPROTO);
	/* Sends this side cannot see: by the messages' weight and number, the port and the window. */
	v = (struct rb_step_view){.sends = RB_PEER_SENDS_UNSEEN,
	                          .msg_bytes = 65536,
	                          .want_msgs = 1000,
	                          .link_gbps = 1,
	                          .need = RB_STEPEND_PEAK};
	p = (struct rb_stepend){
	    .msgs = 1000, .bytes = 65536000, .elapsed_ns = 1000 * MS, .peak_gbps = 0.9, .cpu_pct = NAN};
	assert_int_equal(rb_stepend_hold("peer", &v, &h, &p), 0);
	p.bytes--;
	assert_int_equal(rb_stepend_hold("peer", &v, &h, &p), -EPROTO);
	p.bytes++;
	v.want_msgs = 999;
	assert_int_equal(rb_stepend_hold("peer", &v, &h, &p), -EPROTO);
	v.want_msgs = RB_STEPEND_ANY;
	p.elapsed_ns = 300 * MS; /* 1.75 Gb/s on a 1 Gb/s port */
	assert_int_equal(rb_stepend_hold("peer", &v, &h, &p), -EPROTO);
	p.elapsed_ns = 1000 * MS;
	p.peak_gbps = 1.6;
	assert_int_equal(rb_stepend_hold("peer", &v, &h, &p), -EPROTO);
	p.peak_gbps = 0.9;
	p.elapsed_ns = 1200 * MS; /* longer than this side's whole step */
	assert_int_equal(rb_stepend_hold("peer", &v, &h, &p), -EPROTO);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(sha256_vectors), cmocka_unit_test(hmac_rfc4231), cmocka_unit_test(proofs),
	    cmocka_unit_test(agree_codec),    cmocka_unit_test(limits),       cmocka_unit_test(clocks),
	    cmocka_unit_test(causal_window),  cmocka_unit_test(loaded_host),  cmocka_unit_test(hold),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

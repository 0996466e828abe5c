/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * socket_bw's pure parts: NCCL_SOCKET_IFNAME matching, NCCL-style chunking, and what it
 * does not take on a peer's word (guard.h): DATAPORT, the data greeting, the clock rule, the grace,
 * a sender's TCP figures (TCPINFO) and how two senders' add up.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "measure/chunks.h"
#include "oob/auth.h"
#include "guard.h"
#include "host/netif.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

static const struct rb_netif_cand ifs[] = {
    {"lo", AF_INET, true, false},    {"lo", AF_INET6, true, false},  {"docker0", AF_INET, true, false},
    {"eth0", AF_INET6, true, true},  {"eth0", AF_INET, true, false}, {"eth1", AF_INET, false, false},
    {"eth10", AF_INET, true, false}, {"ib0", AF_INET6, true, false},
};
#define N (sizeof(ifs) / sizeof(ifs[0]))

static int pick(const char *spec, int family)
{
	struct rb_hca_filter f;
	assert_int_equal(rb_hca_filter_parse(spec, &f), 0);
	return rb_netif_choose(ifs, N, &f, family);
}

static void ifname_matching(void **state)
{
	(void)state;
	assert_int_equal(pick("eth", 0), 4); /* prefix; eth0's IPv6 is link-local, skipped */
	assert_int_equal(pick("eth", AF_INET6), -ENOENT);
	assert_int_equal(pick("eth1", 0), 6);        /* eth1 is down; prefix reaches eth10 */
	assert_int_equal(pick("=eth1", 0), -ENOENT); /* exact: only the down one */
	assert_int_equal(pick("^lo,docker", 0), 4);  /* exclusion list */
	assert_int_equal(pick("^lo,docker,eth", 0), 7);
	assert_int_equal(pick("ib", AF_INET), -ENOENT);
	assert_int_equal(pick("ib", AF_INET6), 7);
	assert_int_equal(pick("=lo", AF_INET6), 1);
	assert_int_equal(pick("nosuch", 0), -ENOENT);
	assert_int_equal(pick(NULL, AF_INET), 0); /* unset: the first usable */
}

static void chunking(void **state)
{
	uint64_t off, len, sum = 0;
	(void)state;
	/* Small messages: one chunk, whole. */
	assert_int_equal(rb_chunk_count(1000, 4), 1);
	rb_chunk(1000, 4, 0, &off, &len);
	assert_true(off == 0 && len == 1000);
	/* At least 64 KiB per chunk: 100 KiB over 4 sockets is 2 chunks (64K + 36K). */
	assert_int_equal(rb_chunk_size(100 << 10, 4), 64 << 10);
	assert_int_equal(rb_chunk_count(100 << 10, 4), 2);
	rb_chunk(100 << 10, 4, 1, &off, &len);
	assert_true(off == 64 << 10 && len == 36 << 10);
	/* Large: ceil(size / nsocks), rounded to 8 bytes; the chunks tile the message. */
	assert_int_equal(rb_chunk_size(1 << 20, 4), 256 << 10);
	assert_int_equal(rb_chunk_size(1000001, 3), 333336);
	assert_int_equal(rb_chunk_count(1000001, 3), 3);
	for (unsigned k = 0; k < 3; k++) {
		rb_chunk(1000001, 3, k, &off, &len);
		assert_int_equal(off, sum);
		sum += len;
	}
	assert_int_equal(sum, 1000001);
	/* Chunks rotate over the sockets, starting one further each message. */
	assert_int_equal(rb_chunk_socket(0, 0, 4), 0);
	assert_int_equal(rb_chunk_socket(0, 3, 4), 3);
	assert_int_equal(rb_chunk_socket(1, 3, 4), 0);
	assert_int_equal(rb_chunk_socket(5, 0, 1), 0);
}

static void dataport(void **state)
{
	struct sock_dataport d = {40000, {0}}, got;
	uint8_t buf[64];
	struct rb_wbuf w = {buf, 0, sizeof(buf), false};
	(void)state;
	for (unsigned i = 0; i < SOCK_TOKEN_LEN; i++)
		d.token[i] = (uint8_t)(0xa0 + i);
	sock_dataport_encode(&w, &d);
	assert_false(w.err);
	assert_int_equal(w.len, 8 + SOCK_TOKEN_LEN);
	assert_int_equal(sock_dataport_decode(buf, w.len, &got), 0);
	assert_int_equal(got.port, 40000);
	assert_memory_equal(got.token, d.token, SOCK_TOKEN_LEN);
	/* Short (the old port-only payload), long, or a port out of range: refused. */
	assert_int_equal(sock_dataport_decode(buf, 8, &got), -EPROTO);
	assert_int_equal(sock_dataport_decode(buf, w.len - 1, &got), -EPROTO);
	assert_int_equal(sock_dataport_decode(buf, w.len + 1, &got), -EPROTO);
	assert_int_equal(sock_dataport_decode(NULL, 0, &got), -EPROTO);
	buf[7] = 0;
	buf[6] = 0; /* port 0 */
	assert_int_equal(sock_dataport_decode(buf, w.len, &got), -EPROTO);
	buf[5] = 1; /* port 65536 */
	assert_int_equal(sock_dataport_decode(buf, w.len, &got), -EPROTO);
	buf[5] = 0;
	buf[6] = 0xff;
	buf[7] = 0xff;
	assert_int_equal(sock_dataport_decode(buf, w.len, &got), 0);
	assert_int_equal(got.port, 65535);
}

static void greeting(void **state)
{
	uint8_t tok[SOCK_TOKEN_LEN], g[SOCK_GREETING_LEN], old[SOCK_GREETING_LEN] = {0x52, 0x42, 0, 0};
	unsigned dir = 9, idx = 9;
	(void)state;
	for (unsigned i = 0; i < SOCK_TOKEN_LEN; i++)
		tok[i] = (uint8_t)(17 * i + 3);
	sock_greeting_encode(g, tok, 1, 63);
	assert_int_equal(sock_greeting_check(g, tok, &dir, &idx), 0);
	assert_true(dir == 1 && idx == 63);
	/* Any bit of the token wrong, first or last byte: refused, nothing returned. */
	for (unsigned i = 0; i < SOCK_TOKEN_LEN; i += SOCK_TOKEN_LEN - 1) {
		g[i] ^= 0x01;
		dir = idx = 9;
		assert_int_equal(sock_greeting_check(g, tok, &dir, &idx), -EACCES);
		assert_true(dir == 9 && idx == 9);
		g[i] ^= 0x01;
	}
	/* The fixed greeting of before ("RB", direction, index) is no token. */
	assert_int_equal(sock_greeting_check(old, tok, &dir, &idx), -EACCES);
	assert_true(rb_auth_equal(tok, tok, SOCK_TOKEN_LEN));
	assert_true(rb_auth_equal(tok, g, 0));
	memset(g, 0, sizeof(g));
	assert_false(rb_auth_equal(tok, g, SOCK_TOKEN_LEN));
}

/* TCPINFO of t, re-encoded into buf; its length. */
static size_t tcp_enc(const struct sock_tcp *t, uint8_t *buf, size_t cap)
{
	struct rb_wbuf w = {buf, 0, cap, false};
	sock_tcp_encode(&w, t);
	assert_false(w.err);
	return w.len;
}

static void tcpinfo(void **state)
{
	struct sock_tcp t = {4, 17, 41.5, 10, "bbr"}, got, bad;
	uint8_t buf[96];
	size_t n = tcp_enc(&t, buf, sizeof(buf));
	(void)state;
	assert_int_equal(sock_tcp_decode(buf, n, 4, &got), 0);
	assert_true(got.nsocks == 4 && got.retrans == 17 && got.rtt_us == 41.5 && got.cwnd == 10);
	assert_string_equal(got.cc, "bbr");
	/* Truncated, trailing bytes, nothing. */
	assert_int_equal(sock_tcp_decode(buf, n - 1, 4, &got), -EPROTO);
	assert_int_equal(sock_tcp_decode(buf, n + 1, 4, &got), -EPROTO);
	assert_int_equal(sock_tcp_decode(NULL, 0, 4, &got), -EPROTO);
	/* More sockets than the run has, or none. */
	assert_int_equal(sock_tcp_decode(buf, n, 3, &got), -EPROTO);
	bad = t;
	bad.nsocks = 0;
	assert_int_equal(sock_tcp_decode(buf, tcp_enc(&bad, buf, sizeof(buf)), 4, &got), -EPROTO);
	/* Retransmits beyond what 32-bit counters of that many sockets can gain. */
	bad = t;
	bad.retrans = 4ull * UINT32_MAX + 1;
	assert_int_equal(sock_tcp_decode(buf, tcp_enc(&bad, buf, sizeof(buf)), 4, &got), -EPROTO);
	bad.retrans = 4ull * UINT32_MAX;
	assert_int_equal(sock_tcp_decode(buf, tcp_enc(&bad, buf, sizeof(buf)), 4, &got), 0);
	/* An RTT that is no time. */
	double rtts[] = {NAN, INFINITY, -1, 5e9};
	for (unsigned i = 0; i < 4; i++) {
		bad = t;
		bad.rtt_us = rtts[i];
		assert_int_equal(sock_tcp_decode(buf, tcp_enc(&bad, buf, sizeof(buf)), 4, &got), -EPROTO);
	}
	bad = t;
	bad.cwnd = 1ull << 32;
	assert_int_equal(sock_tcp_decode(buf, tcp_enc(&bad, buf, sizeof(buf)), 4, &got), -EPROTO);
	/* The algorithm: named, printable, one kernel's name long at most. */
	const char *ccs[] = {"", "bbr\n", "0123456789abcdef"};
	for (unsigned i = 0; i < 3; i++) {
		bad = t;
		snprintf(bad.cc, sizeof(bad.cc), "%s", ccs[i]);
		assert_int_equal(sock_tcp_decode(buf, tcp_enc(&bad, buf, sizeof(buf)), 4, &got), -EPROTO);
	}
	snprintf(bad.cc, sizeof(bad.cc), "0123456789abcde");
	assert_int_equal(sock_tcp_decode(buf, tcp_enc(&bad, buf, sizeof(buf)), 4, &got), 0);
}

static void tcp_merge(void **state)
{
	struct sock_tcp cl = {2, 5, 100, 20, "bbr"}, sv = {2, 7, 300, 12, "cubic"}, none = {0}, out;
	(void)state;
	/* -b: summed, the mean RTT over all four sockets, the smallest window, both names. */
	sock_tcp_merge(&cl, &sv, &out);
	assert_true(out.nsocks == 4 && out.retrans == 12 && out.rtt_us == 200 && out.cwnd == 12);
	assert_string_equal(out.cc, "bbr/cubic");
	sv.nsocks = 6; /* weighted by sockets */
	snprintf(sv.cc, sizeof(sv.cc), "bbr");
	sock_tcp_merge(&cl, &sv, &out);
	assert_true(out.rtt_us == 250);
	assert_string_equal(out.cc, "bbr");
	/* One sender only (the default, -R): its figures. */
	sock_tcp_merge(&cl, &none, &out);
	assert_true(out.nsocks == 2 && out.retrans == 5 && out.rtt_us == 100 && out.cwnd == 20);
	sock_tcp_merge(&none, &sv, &out);
	assert_true(out.nsocks == 6 && out.retrans == 7 && out.cwnd == 12);
	sock_tcp_merge(&none, &none, &out);
	assert_int_equal(out.nsocks, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(ifname_matching), cmocka_unit_test(chunking),
	                                   cmocka_unit_test(dataport),        cmocka_unit_test(greeting),
	                                   cmocka_unit_test(tcpinfo),         cmocka_unit_test(tcp_merge)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

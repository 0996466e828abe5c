/* socket_bw's pure parts: NCCL_SOCKET_IFNAME matching and NCCL-style chunking. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "chunks.h"
#include "netif.h"

#include <errno.h>
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

int main(void)
{
	const struct CMUnitTest tests[] = {cmocka_unit_test(ifname_matching), cmocka_unit_test(chunking)};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * socket_bw's data path (xfer.c, progress.c) without a network: a sending and a
 * receiving xfer over AF_UNIX stream socket pairs, each worker on its own threads,
 * with --verify checking every byte. Also the arithmetic the path rests on: the
 * window, the run length of a SIZE frame, the chunk/socket mapping both ways and
 * the per-socket buffer stretch of a multi-socket worker.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "measure/chunks.h"
#include "xfer_priv.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

static void window_and_runs(void **state)
{
	(void)state;
	assert_int_equal(xfer_depth(0), XFER_RING);
	assert_int_equal(xfer_depth(64), XFER_RING);
	assert_int_equal(xfer_depth(256 << 10), 256);
	assert_int_equal(xfer_depth(1 << 20), 64);
	assert_int_equal(xfer_depth(64 << 20), 2);
	assert_int_equal(xfer_depth(1ull << 30), 2);
	for (uint64_t size = 1; size <= (1ull << 30); size = size * 3 + 1) {
		uint64_t d = xfer_depth(size);
		uint32_t r = xfer_run_len(size);

		assert_true(d >= 2 && d <= XFER_RING);
		assert_true(r >= 1 && r <= 64);
		/* A run is announced once published: it must fit in the window a quarter at a time. */
		assert_true(r == 1 || 4 * (uint64_t)r <= d);
	}
	assert_int_equal(xfer_run_len(64), 64);
	assert_int_equal(xfer_run_len(1 << 20), 16);
	assert_int_equal(xfer_run_len(64 << 20), 1);
}

static void chunk_mapping(void **state)
{
	(void)state;
	for (unsigned total = 1; total <= 12; total++)
		for (uint64_t m = 0; m < 40; m++) {
			unsigned seen = 0;
			for (unsigned k = 0; k < total; k++) {
				unsigned s = rb_chunk_socket(m, k, total);
				assert_true(s < total);
				assert_int_equal(rb_socket_chunk(m, s, total), k);
				seen |= 1u << s;
			}
			assert_int_equal(seen, (1u << total) - 1); /* every socket once per message */
		}
}

/* Every chunk of every size up to max fits in a multi-socket worker's stretch, page-aligned. */
static void stretch_holds_every_chunk(void **state)
{
	static const uint64_t maxes[] = {1, 8, 100, 65535, 65536, 65544, 1 << 20, (3 << 20) + 5, 8 << 20};

	(void)state;
	for (unsigned t = 1; t <= 3; t++)
		for (unsigned n = 2; n <= 5; n++)
			for (unsigned i = 0; i < sizeof(maxes) / sizeof(maxes[0]); i++) {
				struct xfer_cfg cfg = {.nthreads = t, .nsocks = n, .max_size = maxes[i]};
				uint64_t stride = xfer_multi_stride(&cfg);

				/* Each socket's part starts on a page: at most a page past the largest
				 * message. */
				assert_true(stride >= 1 && stride % SOCK_BUF_ALIGN == 0 &&
				            stride < maxes[i] + SOCK_BUF_ALIGN);
				for (uint64_t size = 1; size <= maxes[i];
				     size = size < 64 ? size + 1 : size * 2 + 3)
					for (unsigned k = 0; k < rb_chunk_count(size, t * n); k++) {
						uint64_t off, len;
						rb_chunk(size, t * n, k, &off, &len);
						assert_true(len <= stride);
					}
			}
	/* Several sockets take the multi-socket worker, except a zerocopy sender. */
	assert_true(xfer_multi(&(struct xfer_cfg){.nsocks = 2}));
	assert_false(xfer_multi(&(struct xfer_cfg){.nsocks = 1}));
	assert_false(xfer_multi(&(struct xfer_cfg){.tx = true, .zerocopy = true, .nsocks = 4}));
	assert_true(xfer_multi(&(struct xfer_cfg){.tx = false, .zerocopy = true, .nsocks = 4}));
}

/*
 * Sizes (in order) sent from nthreads x nsocks sockets to the same layout, both ends
 * verifying (the receiver checks each chunk's pattern). Returns the receiver's error.
 */
static int transfer(unsigned nthreads, unsigned nsocks, const uint64_t *sizes, unsigned nsizes,
                    uint64_t repeat, uint64_t *moved)
{
	const unsigned total = nthreads * nsocks;
	int tx_fds[XFER_MAX_SOCKS], rx_fds[XFER_MAX_SOCKS];
	struct xfer *tx = calloc(1, sizeof(*tx)), *rx = calloc(1, sizeof(*rx));
	uint64_t max = 0, want = 0;
	int err;

	assert_non_null(tx);
	assert_non_null(rx);
	for (unsigned i = 0; i < nsizes; i++) {
		max = sizes[i] > max ? sizes[i] : max;
		want += sizes[i] * repeat;
	}
	for (unsigned s = 0; s < total; s++) {
		int sv[2];
		assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
		tx_fds[s] = sv[0];
		rx_fds[s] = sv[1];
	}
	struct xfer_cfg tc = {.tx = true,
	                      .verify = true,
	                      .nthreads = nthreads,
	                      .nsocks = nsocks,
	                      .max_size = max,
	                      .timeout_ms = 10000};
	struct xfer_cfg rc = tc;
	rc.tx = false;
	assert_int_equal(xfer_start(rx, &rc, rx_fds, NULL), 0);
	assert_int_equal(xfer_start(tx, &tc, tx_fds, NULL), 0);
	for (uint64_t r = 0; r < repeat; r++)
		for (unsigned i = 0; i < nsizes; i++) {
			assert_int_equal(xfer_post(rx, sizes[i], 1, 10000), 0);
			assert_int_equal(xfer_post(tx, sizes[i], 1, 10000), 0);
		}
	assert_int_equal(xfer_post(tx, 0, 1, 10000), 0);
	assert_int_equal(xfer_post(rx, 0, 1, 10000), 0);
	xfer_join(tx);
	xfer_join(rx);
	assert_int_equal(xfer_error(tx, false), 0);
	err = xfer_error(rx, false);
	*moved = atomic_load(&rx->bytes);
	assert_int_equal(atomic_load(&tx->bytes), want);
	assert_int_equal(xfer_done(rx), repeat * nsizes);
	for (unsigned s = 0; s < total; s++) {
		close(tx_fds[s]);
		close(rx_fds[s]);
	}
	free(tx);
	free(rx);
	return err;
}

static void moves_every_byte(void **state)
{
	/* Below a chunk, odd sizes, several chunks, more chunks than sockets of a thread. */
	static const uint64_t sizes[] = {1, 100, 65536, 65544, 300000, (1 << 20) + 5, 3 << 20};
	static const unsigned layouts[][2] = {{1, 1}, {1, 2}, {1, 4}, {2, 2}, {3, 3}};

	(void)state;
	for (unsigned i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++) {
		uint64_t moved, want = 0;
		for (unsigned j = 0; j < sizeof(sizes) / sizeof(sizes[0]); j++)
			want += sizes[j] * 3;
		assert_int_equal(transfer(layouts[i][0], layouts[i][1], sizes, 7, 3, &moved), 0);
		assert_int_equal(moved, want);
	}
}

/* Many small messages: sockets far apart in the ring, windows wrapping many times. */
static void many_small_messages(void **state)
{
	static const uint64_t sizes[] = {64, 8, 4096};
	uint64_t moved;

	(void)state;
	assert_int_equal(transfer(1, 4, sizes, 3, 3000, &moved), 0);
	assert_int_equal(moved, (64 + 8 + 4096) * 3000ull);
	assert_int_equal(transfer(2, 3, sizes, 3, 1000, &moved), 0);
}

/* Voluntary context switches (sleeps) of every thread of this process but the caller (the kernel's count). */
static uint64_t other_threads_switches(void)
{
	char path[300], line[128];
	uint64_t n = 0;
	const long self = syscall(SYS_gettid);
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;

	assert_non_null(d);
	while ((e = readdir(d)) != NULL) {
		FILE *f;
		if (e->d_name[0] == '.' || atol(e->d_name) == self)
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/status", e->d_name);
		if (!(f = fopen(path, "r")))
			continue; /* the thread ended */
		while (fgets(line, sizeof(line), f)) {
			unsigned long long v;
			/* Voluntary only: the times it went to sleep. Preemptions are the machine's load. */
			if (sscanf(line, "voluntary_ctxt_switches: %llu", &v) == 1)
				n += v;
		}
		fclose(f);
	}
	closedir(d);
	return n;
}

/*
 * A receiving worker with two sockets: message 0 (one chunk, on socket 0) is
 * published but its bytes do not come; socket 1 waits for the next publication.
 * The worker sleeps in poll() (SOCK_SLICE_MS at a time, an eventfd for
 * publications), not once a millisecond; then the bytes and the end arrive and it
 * finishes.
 */
static void sleeps_while_half_starved(void **state)
{
	struct xfer *rx = calloc(1, sizeof(*rx));
	struct xfer_cfg cfg = {.nthreads = 1, .nsocks = 2, .max_size = 1000, .timeout_ms = 10000};
	int fds[2], peer[2], sv[2];
	uint8_t bytes[1000] = {0};
	uint64_t before, after;

	(void)state;
	assert_non_null(rx);
	for (unsigned s = 0; s < 2; s++) {
		assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
		fds[s] = sv[0];
		peer[s] = sv[1];
	}
	assert_int_equal(xfer_start(rx, &cfg, fds, NULL), 0);
	assert_int_equal(xfer_post(rx, 1000, 1, 10000), 0);
	usleep(200000);
	before = other_threads_switches();
	usleep(1000000);
	after = other_threads_switches();
	print_message("worker: %llu context switches in 1 s half starved\n",
	              (unsigned long long)(after - before));
	/*
	 * 10 slices of 100 ms sleep 10 times; a worker that woke each millisecond would sleep
	 * about 1000 times, however loaded the machine (valgrind and ASan included). The
	 * bound sits far from both.
	 */
	assert_true(after - before <= 200);
	/* A publication wakes it at once: message 1 goes to socket 1. */
	assert_int_equal(xfer_post(rx, 1000, 1, 10000), 0);
	assert_int_equal(write(peer[1], bytes, sizeof(bytes)), (ssize_t)sizeof(bytes));
	assert_int_equal(write(peer[0], bytes, sizeof(bytes)), (ssize_t)sizeof(bytes));
	assert_int_equal(xfer_post(rx, 0, 1, 10000), 0);
	xfer_join(rx);
	assert_int_equal(xfer_error(rx, false), 0);
	assert_int_equal(atomic_load(&rx->bytes), 2000);
	for (unsigned s = 0; s < 2; s++) {
		close(fds[s]);
		close(peer[s]);
	}
	free(rx);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(window_and_runs),           cmocka_unit_test(chunk_mapping),
	    cmocka_unit_test(stretch_holds_every_chunk), cmocka_unit_test(moves_every_byte),
	    cmocka_unit_test(many_small_messages),       cmocka_unit_test(sleeps_while_half_starved),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What a worker does with a message: its chunks moved over its own sockets, each
 * filled (sender) or checked (receiver) with --verify, an I/O error worded for the
 * user. The blocking worker, one socket (or a --zerocopy sender), is here; the one
 * that drives several sockets at once is progress.c's.
 */
#include "worker.h"

#include "measure/measure.h"
#include "base/base.h"
#include "run/run.h"

#include <errno.h>
#include <poll.h>
#include <string.h>

/*
 * Until every zerocopy send below marks[j] on own socket j has completed, bounded by
 * the timeout without a new completion. Returns 0, -ECANCELED or -ETIMEDOUT (with
 * *late the socket still owed completions).
 */
static int zc_wait(struct xfer_worker *w, const uint32_t *marks, unsigned *late)
{
	struct xfer *x = w->x;
	const unsigned first = w->t * x->cfg.nsocks;
	uint64_t last = rb_now_ns(), seen = 0;
	struct rb_turn turn = {last, RB_TURN_WALL, 0}; /* between turns: a poll */

	for (;;) {
		struct pollfd pf[XFER_MAX_SOCKS];
		unsigned np = 0;
		uint64_t got = 0;

		for (unsigned j = 0; j < x->cfg.nsocks; j++) {
			int ret = sock_zc_reap(&w->zc[j], x->fds[first + j]);
			if (ret)
				return ret;
			got += w->zc[j].completions;
			if (!sock_zc_done(&w->zc[j], marks[j])) {
				*late = first + j;
				pf[np++] = (struct pollfd){x->fds[first + j], 0, 0};
			}
		}
		if (!np)
			return 0;
		if (got != seen) {
			seen = got;
			last = turn.wall_ns = rb_now_ns(); /* a new turn: the time since is not an absence */
		}
		if (atomic_load(&x->abort))
			return -ECANCELED;
		if (rb_cpuwait_silence(&last, &turn, rb_now_ns(), (uint64_t)SOCK_SLICE_MS * 1000000ull) >=
		    (uint64_t)x->cfg.timeout_ms * 1000000ull)
			return -ETIMEDOUT;
		/* A queued notification raises POLLERR. */
		poll(pf, np, SOCK_SLICE_MS);
	}
}

void xfer_worker_fail(struct xfer *x, int ret, unsigned s, uint64_t m)
{
	const char *what = x->cfg.tx ? "sending" : "receiving";
	unsigned long long n = (unsigned long long)m + 1;

	if (ret == -ECANCELED || ret == -EINTR)
		xfer_abort(x); /* asked to stop: the cause is someone else's */
	else if (ret == -ETIMEDOUT)
		xfer_fail(x, ret, "data socket %u: no progress %s message %llu for %d s (--timeout)", s, what,
		          n, x->cfg.timeout_ms / 1000);
	else if (ret == -ECONNRESET)
		xfer_fail(x, ret, "data socket %u: the peer closed the connection while %s message %llu", s,
		          what, n);
	else
		xfer_fail(x, ret, "data socket %u: %s message %llu failed: %s", s, what, n, strerror(-ret));
}

void xfer_chunk_fill(struct xfer *x, uint8_t *p, uint64_t m, uint64_t off, uint64_t len, unsigned s)
{
	(void)x;
	rb_pattern_fill_at(p, len, rb_pattern_tag(0, m), off);
	/* Test-only (RB_TEST_FAULT=corrupt:qp=SOCKET:msg=N): one byte of the chunk, flipped. */
	if (rb_fault_at(RB_FAULT_CORRUPT, s, m + 1))
		p[rb_fault_byte(len)] ^= 0xff;
}

int xfer_chunk_check(struct xfer *x, const uint8_t *p, uint64_t m, uint64_t size, uint64_t off, uint64_t len,
                     unsigned s)
{
	size_t bad;
	uint8_t e, g;

	if (!rb_pattern_check_at(p, len, rb_pattern_tag(0, m), off, &bad, &e, &g))
		return 0;
	xfer_fail(x, -EIO,
	          "verify: socket %u, message %llu (%llu bytes), byte %zu: expected 0x%02x, received 0x%02x",
	          s, (unsigned long long)m + 1, (unsigned long long)size, bad, e, g);
	return -EIO;
}

static int move_chunk(struct xfer_worker *w, uint8_t *buf, uint64_t m, uint64_t size, unsigned k)
{
	struct xfer *x = w->x;
	const unsigned total = x->cfg.nthreads * x->cfg.nsocks, first = w->t * x->cfg.nsocks;
	const unsigned s = rb_chunk_socket(m, k, total), j = s - first;
	struct sock_io io = {x->fds[s], x->cfg.timeout_ms, &x->abort, w->zc ? &w->zc[j] : NULL};
	uint64_t off, len;
	int ret;

	rb_chunk(size, total, k, &off, &len);
	if (!x->cfg.tx) {
		ret = sock_recv(&io, buf + off, len);
		if (ret) {
			xfer_worker_fail(x, ret, s, m);
			return ret;
		}
		if (x->cfg.verify && (ret = xfer_chunk_check(x, buf + off, m, size, off, len, s)))
			return ret;
		atomic_fetch_add_explicit(&x->bytes, len, memory_order_relaxed);
		return 0;
	}
	if (x->cfg.verify)
		xfer_chunk_fill(x, buf + off, m, off, len, s);
	ret = sock_send(&io, buf + off, len);
	if (!ret && w->zc) {
		w->marks[(m % w->nslots) * x->cfg.nsocks + j] = w->zc[j].issued;
		/* Keep the error queue short; nothing waits on it unless the buffer is refilled. */
		ret = sock_zc_reap(&w->zc[j], io.fd);
	}
	if (ret)
		xfer_worker_fail(x, ret, s, m);
	else
		atomic_fetch_add_explicit(&x->bytes, len, memory_order_relaxed);
	return ret;
}

/* One message at a time: its chunks on this worker's sockets, each call blocking. */
void *xfer_worker_main(void *arg)
{
	struct xfer_worker *w = arg;
	struct xfer *x = w->x;
	const unsigned total = x->cfg.nthreads * x->cfg.nsocks, first = w->t * x->cfg.nsocks;
	uint32_t all[XFER_MAX_SOCKS];
	unsigned late = first;
	uint64_t m;
	int ret = 0;

	rb_window_thread_ready(&x->ready);
	for (m = 0;; m++) {
		unsigned slot = (unsigned)(m % w->nslots), nchunks;
		uint8_t *buf = w->buf + slot * x->cfg.max_size;
		uint64_t size;

		if (!xfer_wait_posted(x, m))
			break;
		size = x->sizes[m % XFER_RING];
		if (size == 0) {
			atomic_store(&x->t_end, rb_now_ns());
			break;
		}
		/* The pages of this buffer's last message may still be in the kernel's hands. */
		if (w->zc && x->cfg.verify && (ret = zc_wait(w, w->marks + slot * x->cfg.nsocks, &late)))
			break;
		nchunks = rb_chunk_count(size, total);
		for (unsigned k = 0; k < nchunks && !ret; k++) {
			unsigned s = rb_chunk_socket(m, k, total);
			if (s >= first && s < first + x->cfg.nsocks)
				ret = move_chunk(w, buf, m, size, k);
		}
		if (ret)
			goto out;
		xfer_publish_done(x, w->t, m + 1);
	}
	/* The buffers are freed after the join: every zerocopy send must have completed. */
	if (w->zc && !ret) {
		for (unsigned j = 0; j < x->cfg.nsocks; j++)
			all[j] = w->zc[j].issued;
		ret = zc_wait(w, all, &late);
	}
	if (ret == -ETIMEDOUT)
		xfer_fail(x, ret,
		          "data socket %u: the kernel did not complete its MSG_ZEROCOPY sends within %d s",
		          late, x->cfg.timeout_ms / 1000);
	else if (ret)
		xfer_worker_fail(x, ret, late, m);
out:
	if (w->zc) {
		uint64_t done = 0, copied = 0;
		for (unsigned j = 0; j < x->cfg.nsocks; j++) {
			done += w->zc[j].completions;
			copied += w->zc[j].copied;
		}
		atomic_fetch_add(&x->zc_completions, done - w->zc_completions0);
		atomic_fetch_add(&x->zc_copied, copied - w->zc_copied0);
	}
	return NULL;
}

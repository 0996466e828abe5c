/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The ring a poster and the workers of one direction share: the poster publishes
 * message sizes (xfer_post) no further than the window ahead of the slowest worker;
 * a worker waits for each publication and publishes its finished count; the step's
 * first error stops every worker (abort).
 */
#include "ring.h"

#include "base/base.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

void xfer_fail(struct xfer *x, int code, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&x->err_lock);
	if (!x->err_code) {
		va_start(ap, fmt);
		vsnprintf(x->err, sizeof(x->err), fmt, ap);
		va_end(ap);
		x->err_code = code;
	}
	pthread_mutex_unlock(&x->err_lock);
	xfer_abort(x);
}

/* Abort is looked at before every message: the ring may hold many already published. */
bool xfer_wait_posted(struct xfer *x, uint64_t m)
{
	for (unsigned spins = 0;; spins++) {
		if (atomic_load(&x->abort))
			return false;
		if (atomic_load_explicit(&x->posted, memory_order_acquire) > m)
			return true;
		if (spins >= XFER_SPINS)
			RB_SEQWAIT_ONCE(&x->posted_wq,
			                atomic_load(&x->abort) ||
			                    atomic_load_explicit(&x->posted, memory_order_acquire) > m,
			                SOCK_SLICE_MS);
	}
}

void xfer_publish_done(struct xfer *x, unsigned t, uint64_t done)
{
	const uint64_t prev = atomic_load_explicit(&x->done[t], memory_order_relaxed); /* ours alone */
	uint64_t want;

	/*
	 * Sequentially consistent, against xfer_post's store of done_want then loads of
	 * done (no lost wake-up): if the poster's check missed this store, this load sees
	 * its want. Only the worker whose count crosses want wakes it; the last to cross
	 * is the one the poster waits for.
	 */
	atomic_store(&x->done[t], done);
	want = atomic_load(&x->done_want);
	if (prev < want && done >= want)
		rb_seqwait_bump(&x->done_wq);
}

uint64_t xfer_done(struct xfer *x)
{
	uint64_t min = UINT64_MAX;

	for (unsigned t = 0; t < x->cfg.nthreads; t++) {
		uint64_t d = atomic_load(&x->done[t]); /* sequentially consistent: see xfer_publish_done */
		if (d < min)
			min = d;
	}
	return min;
}

bool xfer_aborted(struct xfer *x)
{
	return atomic_load(&x->abort);
}

int xfer_error(struct xfer *x, bool log)
{
	int code;

	pthread_mutex_lock(&x->err_lock);
	code = x->err_code;
	if (code && log && !x->err_logged) {
		x->err_logged = true;
		rb_err("%s", x->err);
	}
	pthread_mutex_unlock(&x->err_lock);
	return code;
}

uint64_t xfer_depth(uint64_t size)
{
	uint64_t depth = size ? XFER_INFLIGHT / size : XFER_RING;

	return depth < 2 ? 2 : depth > XFER_RING ? XFER_RING : depth;
}

uint32_t xfer_run_len(uint64_t size)
{
	uint64_t n = xfer_depth(size) / 4;

	return n < 1 ? 1 : n > 64 ? 64 : (uint32_t)n;
}

/* Wakes the multi-socket workers that poll with a socket waiting for a publication. */
static void wake_pollers(struct xfer *x)
{
	const uint64_t one = 1;

	for (unsigned t = 0; t < x->started; t++)
		if (x->w[t].efd >= 0 && atomic_load(&x->w[t].polling) &&
		    write(x->w[t].efd, &one, sizeof(one)) < 0) {
			/* EAGAIN: the counter is full, a wake-up is pending anyway. */
		}
}

int xfer_post(struct xfer *x, uint64_t size, uint32_t n, int timeout_ms)
{
	uint64_t m = atomic_load(&x->posted);
	uint64_t last_done = xfer_done(x), since = rb_now_ns();
	struct rb_turn turn = {since, RB_TURN_WALL, 0}; /* between turns: a wait */
	/*
	 * Window full: wait for the slowest worker, as long as someone makes progress.
	 * The window holds XFER_INFLIGHT bytes (at least 2 messages): what is published
	 * still has to move after -D ends or a stop, so it is kept short in time. A full
	 * poster sleeps until a quarter of the window is free (want), so it wakes once
	 * per quarter window, not once per message.
	 */
	const uint64_t depth = xfer_depth(size);
	const uint64_t want = m + n - depth + depth / 4;

	if (n < 1 || n > (depth >= 4 ? depth / 4 : 1)) {
		xfer_fail(x, -EINVAL, "internal error: %u messages of %llu bytes published at once", n,
		          (unsigned long long)size);
		return -EINVAL;
	}
	for (unsigned spins = 0;; spins++) {
		uint64_t d, quiet = 0;

		if (spins >= XFER_SPINS) {
			atomic_store(&x->done_want, want);
			RB_SEQWAIT_ONCE(&x->done_wq, atomic_load(&x->abort) || xfer_done(x) >= want,
			                SOCK_SLICE_MS);
			atomic_store(&x->done_want, UINT64_MAX);
			/*
			 * Right after the wait, whatever follows: a gap of seconds between two turns is
			 * this thread not running (rb_cpuwait_gap), this host's wait when -D is judged
			 * (the caller counts the time in here as its own wait, not as an absence). The
			 * spins before a first wait read no clock: room is usually there.
			 */
			quiet = rb_cpuwait_silence(&since, &turn, rb_now_ns(),
			                           (uint64_t)SOCK_SLICE_MS * 1000000ull);
		}
		d = xfer_done(x);
		if (atomic_load(&x->abort)) {
			int code = xfer_error(x, false);
			return code ? code : -ECANCELED;
		}
		if (m + n - d <= depth)
			break;
		/* A peer that finishes a message now and then is progress, but not past the step's end. */
		if (x->post_deadline && rb_now_ns() >= x->post_deadline)
			return -ETIME;
		if (d != last_done) {
			last_done = d;
			since = rb_now_ns();
		} else if (quiet > (uint64_t)timeout_ms * 1000000ull) {
			xfer_fail(x, -ETIMEDOUT, "the data sockets made no progress for %d s (--timeout)",
			          timeout_ms / 1000);
			return -ETIMEDOUT;
		}
	}
	for (uint32_t i = 0; i < n; i++)
		x->sizes[(m + i) % XFER_RING] = size;
	/* Sequentially consistent, against a worker's polling flag then its look at posted. */
	atomic_store(&x->posted, m + n);
	rb_seqwait_bump(&x->posted_wq);
	wake_pollers(x);
	return 0;
}

void xfer_abort(struct xfer *x)
{
	atomic_store(&x->abort, true);
	rb_seqwait_bump(&x->posted_wq);
	rb_seqwait_bump(&x->done_wq);
	wake_pollers(x);
}

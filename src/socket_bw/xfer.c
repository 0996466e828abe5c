#include "xfer_priv.h"

#include "measure/measure.h"
#include "base/base.h"

#include <errno.h>
#include <linux/errqueue.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef MSG_ZEROCOPY
#define MSG_ZEROCOPY 0x4000000
#endif
#ifndef SO_EE_ORIGIN_ZEROCOPY
#define SO_EE_ORIGIN_ZEROCOPY 5
#endif
#ifndef SO_EE_CODE_ZEROCOPY_COPIED
#define SO_EE_CODE_ZEROCOPY_COPIED 1
#endif

/* ---------------------------------------------------------------- blocking I/O */

/* Serial-number order of 32-bit ids (they wrap). */
static bool id_le(uint32_t a, uint32_t b)
{
	return (int32_t)(b - a) >= 0;
}

static void zc_complete(struct sock_zc *z, uint32_t lo, uint32_t hi)
{
	z->completions += (uint64_t)(hi - lo) + 1;
	if (id_le(hi + 1, z->done_below))
		return; /* already counted */
	if (!id_le(lo, z->done_below)) {
		/*
		 * Completed above a gap. TCP completes in order in practice; a range that
		 * does not fit in the list is dropped, so a waiter times out rather than
		 * refilling pages the kernel may still read.
		 */
		if (z->nooo < sizeof(z->ooo_lo) / sizeof(z->ooo_lo[0])) {
			z->ooo_lo[z->nooo] = lo;
			z->ooo_hi[z->nooo++] = hi;
		}
		return;
	}
	z->done_below = hi + 1;
	for (unsigned i = 0; i < z->nooo;) {
		if (id_le(z->ooo_lo[i], z->done_below)) {
			if (id_le(z->done_below, z->ooo_hi[i] + 1))
				z->done_below = z->ooo_hi[i] + 1;
			z->ooo_lo[i] = z->ooo_lo[--z->nooo];
			z->ooo_hi[i] = z->ooo_hi[z->nooo];
			i = 0;
			continue;
		}
		i++;
	}
}

int sock_zc_reap(struct sock_zc *z, int fd)
{
	for (;;) {
		char control[CMSG_SPACE(sizeof(struct sock_extended_err) + sizeof(struct sockaddr_in6))];
		struct msghdr msg = {.msg_control = control, .msg_controllen = sizeof(control)};

		if (recvmsg(fd, &msg, MSG_ERRQUEUE | MSG_DONTWAIT) < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 0;
			if (errno == EINTR)
				continue;
			return -errno;
		}
		for (struct cmsghdr *cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm)) {
			struct sock_extended_err ee;

			if (!(cm->cmsg_level == SOL_IP && cm->cmsg_type == IP_RECVERR) &&
			    !(cm->cmsg_level == SOL_IPV6 && cm->cmsg_type == IPV6_RECVERR))
				continue;
			memcpy(&ee, CMSG_DATA(cm), sizeof(ee));
			if (ee.ee_origin != SO_EE_ORIGIN_ZEROCOPY || ee.ee_errno != 0)
				continue;
			zc_complete(z, ee.ee_info, ee.ee_data);
			if (ee.ee_code & SO_EE_CODE_ZEROCOPY_COPIED)
				z->copied += (uint64_t)(ee.ee_data - ee.ee_info) + 1;
		}
	}
}

bool sock_zc_done(const struct sock_zc *z, uint32_t mark)
{
	return id_le(mark, z->done_below);
}

/*
 * The data sockets carry SO_RCVTIMEO/SO_SNDTIMEO of SOCK_SLICE_MS, so a blocked call
 * returns (EAGAIN, or with part of the bytes) often enough to notice a stop, and the
 * real bound, timeout_ms without a byte, is counted here.
 */
static int io_all(const struct sock_io *io, uint8_t *p, size_t n, bool tx)
{
	const int flags = tx ? MSG_NOSIGNAL | (io->zc ? MSG_ZEROCOPY : 0) : MSG_WAITALL;
	uint64_t last = rb_now_ns();

	while (n) {
		ssize_t k = tx ? send(io->fd, p, n, flags) : recv(io->fd, p, n, flags);

		if (k > 0) {
			if (io->zc)
				io->zc->issued++; /* one notification id per send that moved bytes */
			p += k;
			n -= (size_t)k;
			last = rb_now_ns();
			continue;
		}
		if (k == 0)
			return -ECONNRESET;
		if (errno == EPIPE || errno == ECONNRESET)
			return -ECONNRESET;
		if (errno == ENOBUFS && io->zc) {
			/* Socket option memory is full of notifications: read them, then retry. */
			struct pollfd pf = {io->fd, 0, 0};
			int ret = sock_zc_reap(io->zc, io->fd);
			if (ret)
				return ret;
			poll(&pf, 1, 1);
		} else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
			return -errno;
		}
		/* Only the control thread looks at the signal; it stops the others through abort. */
		if (io->abort ? atomic_load(io->abort) : rb_stop_signal() != 0)
			return io->abort ? -ECANCELED : -EINTR;
		if (rb_now_ns() - last >= (uint64_t)io->timeout_ms * 1000000ull)
			return -ETIMEDOUT;
	}
	return 0;
}

int sock_send(const struct sock_io *io, const void *p, size_t n)
{
	return io_all(io, (uint8_t *)(uintptr_t)p, n, true);
}

int sock_recv(const struct sock_io *io, void *p, size_t n)
{
	return io_all(io, p, n, false);
}

/* ---------------------------------------------------------------- workers */

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
			last = rb_now_ns();
		}
		if (atomic_load(&x->abort))
			return -ECANCELED;
		if (rb_now_ns() - last >= (uint64_t)x->cfg.timeout_ms * 1000000ull)
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

static void *worker_main(void *arg)
{
	struct xfer_worker *w = arg;
	struct xfer *x = w->x;
	const unsigned total = x->cfg.nthreads * x->cfg.nsocks, first = w->t * x->cfg.nsocks;
	uint32_t all[XFER_MAX_SOCKS];
	unsigned late = first;
	uint64_t m;
	int ret = 0;

	for (m = 0;; m++) {
		unsigned slot = (unsigned)(m % w->nslots), nchunks;
		uint8_t *buf = w->buf + slot * x->cfg.max_size;
		uint64_t size;

		if (!xfer_wait_posted(x, m))
			break;
		size = x->sizes[m % XFER_RING];
		if (size == 0)
			break;
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

static void worker_free(struct xfer_worker *w)
{
	free(w->buf);
	free(w->marks);
	if (w->efd >= 0)
		close(w->efd);
	memset(w, 0, sizeof(*w));
	w->efd = -1;
}

/* One worker's buffer: nslots of the largest message (multi-socket: a stride per socket). */
static uint64_t worker_bytes(const struct xfer_cfg *cfg)
{
	if (xfer_multi(cfg))
		return (uint64_t)cfg->nsocks * xfer_multi_stride(cfg);
	return (cfg->tx && cfg->zerocopy && cfg->verify ? 2u : 1u) * (cfg->max_size ? cfg->max_size : 1);
}

uint64_t xfer_bytes(const struct xfer_cfg *cfg)
{
	return cfg->nthreads * worker_bytes(cfg);
}

/* Buffers zeroed (nothing on the wire is leftover heap) and faulted in before the clock starts. */
static int worker_init(struct xfer *x, unsigned t, struct sock_zc *zcs)
{
	struct xfer_worker *w = &x->w[t];
	const bool zc = x->cfg.tx && x->cfg.zerocopy;
	size_t bytes;

	w->x = x;
	w->t = t;
	w->efd = -1;
	if (xfer_multi(&x->cfg) && (w->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) < 0) {
		int err = errno;
		rb_err("cannot create an eventfd for worker thread %u: %s", t, strerror(err));
		return -err;
	}
	w->nslots = zc && x->cfg.verify ? 2 : 1;
	bytes = (size_t)worker_bytes(&x->cfg);
	w->buf = malloc(bytes);
	if (w->buf)
		memset(w->buf, 0, bytes);
	if (zc) {
		w->zc = zcs + t * x->cfg.nsocks;
		w->marks = calloc((size_t)w->nslots * x->cfg.nsocks, sizeof(*w->marks));
		/* Nothing of this buffer is in flight yet: the marks are where the ids stand now. */
		for (unsigned j = 0; w->marks && j < x->cfg.nsocks; j++) {
			w->marks[j] = w->marks[x->cfg.nsocks + j] = w->zc[j].issued;
			w->zc_completions0 += w->zc[j].completions;
			w->zc_copied0 += w->zc[j].copied;
		}
	}
	if (!w->buf || (zc && !w->marks)) {
		rb_err("out of memory for %zu bytes of buffers for worker thread %u", bytes, t);
		worker_free(w);
		return -ENOMEM;
	}
	return 0;
}

int xfer_start(struct xfer *x, const struct xfer_cfg *cfg, int *fds, struct sock_zc *zcs)
{
	sigset_t old;
	int ret = 0;

	memset(x, 0, sizeof(*x));
	atomic_init(&x->done_want, UINT64_MAX);
	for (unsigned t = 0; t < XFER_MAX_THREADS; t++)
		x->w[t].efd = -1;
	x->cfg = *cfg;
	x->fds = fds;
	pthread_mutex_init(&x->err_lock, NULL);
	if (cfg->nthreads > XFER_MAX_THREADS || cfg->nthreads * cfg->nsocks > XFER_MAX_SOCKS) {
		rb_err("internal error: %u threads x %u sockets exceed %d threads / %d sockets",
		       cfg->nthreads, cfg->nsocks, XFER_MAX_THREADS, XFER_MAX_SOCKS);
		return -EINVAL;
	}
	rb_fault_kind(); /* parsed here, once, before any worker asks */
	if (cfg->tx && cfg->zerocopy && !zcs) {
		rb_err("internal error: zerocopy sender without per-socket state");
		return -EINVAL;
	}
	for (unsigned t = 0; t < cfg->nthreads && !ret; t++)
		ret = worker_init(x, t, zcs);
	/* Signals go to the control thread: its waits are the ones that must wake up. */
	rb_sig_hold(&old);
	for (unsigned t = 0; t < cfg->nthreads && !ret; t++) {
		ret = -pthread_create(&x->threads[t], NULL, xfer_multi(cfg) ? xfer_multi_main : worker_main,
		                      &x->w[t]);
		if (ret)
			rb_err("cannot start worker thread %u: %s", t, strerror(-ret));
		else
			x->started++;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret) {
		xfer_abort(x);
		xfer_join(x);
	}
	return ret;
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
		uint64_t d;

		if (spins >= XFER_SPINS) {
			atomic_store(&x->done_want, want);
			RB_SEQWAIT_ONCE(&x->done_wq, atomic_load(&x->abort) || xfer_done(x) >= want,
			                SOCK_SLICE_MS);
			atomic_store(&x->done_want, UINT64_MAX);
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
		} else if (rb_now_ns() - since > (uint64_t)timeout_ms * 1000000ull) {
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

void xfer_join(struct xfer *x)
{
	for (unsigned t = 0; t < x->started; t++)
		pthread_join(x->threads[t], NULL);
	x->started = 0;
	for (unsigned t = 0; t < x->cfg.nthreads && t < XFER_MAX_THREADS; t++)
		worker_free(&x->w[t]);
}

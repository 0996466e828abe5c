#include "sock_xfer.h"

#include "chunks.h"
#include "log.h"
#include "pattern.h"
#include "timeutil.h"

#include <errno.h>
#include <stdarg.h>
#include <linux/errqueue.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>

#ifndef MSG_ZEROCOPY
#define MSG_ZEROCOPY 0x4000000
#endif

struct worker {
	struct xfer *x;
	unsigned t;
};

static void fail(struct xfer *x, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void fail(struct xfer *x, int code, const char *fmt, ...)
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
	atomic_store(&x->abort, true);
}

/* Zero-copy completions pile up on the error queue; drain them so sends go on. */
static void drain_errqueue(int fd)
{
	char control[128];
	struct msghdr msg = {0};

	for (;;) {
		msg.msg_control = control;
		msg.msg_controllen = sizeof(control);
		if (recvmsg(fd, &msg, MSG_ERRQUEUE | MSG_DONTWAIT) < 0)
			return;
	}
}

static int send_all(struct xfer *x, int fd, const uint8_t *p, uint64_t n)
{
	int flags = MSG_NOSIGNAL | (x->cfg.zerocopy ? MSG_ZEROCOPY : 0);

	while (n) {
		ssize_t w = send(fd, p, n, flags);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ENOBUFS && x->cfg.zerocopy) {
				drain_errqueue(fd);
				continue;
			}
			return -errno;
		}
		p += w;
		n -= (uint64_t)w;
	}
	if (x->cfg.zerocopy)
		drain_errqueue(fd);
	return 0;
}

static int recv_all(int fd, uint8_t *p, uint64_t n)
{
	while (n) {
		ssize_t r = recv(fd, p, n, MSG_WAITALL);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (r == 0)
			return -ECONNRESET;
		p += r;
		n -= (uint64_t)r;
	}
	return 0;
}

/* Waits for message m to be published; false on abort. */
static bool wait_posted(struct xfer *x, uint64_t m)
{
	unsigned spins = 0;

	while (atomic_load_explicit(&x->posted, memory_order_acquire) <= m) {
		if (atomic_load(&x->abort))
			return false;
		if (++spins > 64)
			sched_yield();
	}
	return true;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct xfer *x = w->x;
	const unsigned total = x->cfg.nthreads * x->cfg.nsocks;
	const unsigned first = w->t * x->cfg.nsocks;
	/* Zeroed: what goes on the wire is never leftover heap. */
	uint8_t *buf = calloc(1, x->cfg.max_size ? x->cfg.max_size : 1);

	if (!buf) {
		fail(x, -ENOMEM, "out of memory for a %llu-byte buffer", (unsigned long long)x->cfg.max_size);
		return NULL;
	}
	for (uint64_t m = 0;; m++) {
		uint64_t size;
		unsigned nchunks;

		if (!wait_posted(x, m))
			break;
		size = x->sizes[m % XFER_RING];
		if (size == 0)
			break;
		nchunks = rb_chunk_count(size, total);
		for (unsigned k = 0; k < nchunks; k++) {
			unsigned s = rb_chunk_socket(m, k, total);
			uint64_t off, len;
			int ret;

			if (s < first || s >= first + x->cfg.nsocks)
				continue;
			rb_chunk(size, total, k, &off, &len);
			if (x->cfg.tx) {
				if (x->cfg.verify)
					rb_pattern_fill_at(buf + off, len, rb_pattern_tag(0, m), off);
				ret = send_all(x, x->fds[s], buf + off, len);
			} else {
				ret = recv_all(x->fds[s], buf + off, len);
			}
			if (ret == -EAGAIN || ret == -EWOULDBLOCK) {
				fail(x, -ETIMEDOUT,
				     "data socket %u: no progress %s message %llu within the timeout", s,
				     x->cfg.tx ? "sending" : "receiving", (unsigned long long)m);
				goto out;
			}
			if (ret) {
				fail(x, ret, "data socket %u: %s message %llu failed: %s", s,
				     x->cfg.tx ? "sending" : "receiving", (unsigned long long)m,
				     ret == -ECONNRESET ? "the peer closed the connection" : strerror(-ret));
				goto out;
			}
			if (!x->cfg.tx && x->cfg.verify) {
				size_t bad;
				uint8_t e, g;
				if (rb_pattern_check_at(buf + off, len, rb_pattern_tag(0, m), off, &bad, &e,
				                        &g)) {
					fail(x, -EIO,
					     "verify: message %llu (%llu bytes) byte %zu on socket %u: "
					     "expected 0x%02x got "
					     "0x%02x",
					     (unsigned long long)m, (unsigned long long)size, bad, s, e, g);
					goto out;
				}
			}
			atomic_fetch_add_explicit(&x->bytes, len, memory_order_relaxed);
		}
		atomic_store_explicit(&x->done[w->t], m + 1, memory_order_release);
	}
out:
	free(buf);
	free(w);
	return NULL;
}

int xfer_start(struct xfer *x, const struct xfer_cfg *cfg, int *fds)
{
	memset(x, 0, sizeof(*x));
	x->cfg = *cfg;
	x->fds = fds;
	pthread_mutex_init(&x->err_lock, NULL);
	for (unsigned t = 0; t < cfg->nthreads; t++) {
		struct worker *w = malloc(sizeof(*w));
		int ret;
		if (!w)
			return -ENOMEM;
		w->x = x;
		w->t = t;
		ret = pthread_create(&x->threads[t], NULL, worker_main, w);
		if (ret) {
			free(w);
			rb_err("cannot start worker thread: %s", strerror(ret));
			xfer_abort(x);
			return -ret;
		}
		x->started++;
	}
	return 0;
}

uint64_t xfer_done(struct xfer *x)
{
	uint64_t min = UINT64_MAX;

	for (unsigned t = 0; t < x->cfg.nthreads; t++) {
		uint64_t d = atomic_load_explicit(&x->done[t], memory_order_acquire);
		if (d < min)
			min = d;
	}
	return min;
}

int xfer_post(struct xfer *x, uint64_t size, int timeout_ms)
{
	uint64_t m = atomic_load(&x->posted);
	uint64_t last_done = xfer_done(x), since = rb_now_ns();
	unsigned spins = 0;

	/* Ring full: wait for the slowest worker, as long as someone makes progress. */
	while (m - xfer_done(x) >= XFER_RING) {
		uint64_t d = xfer_done(x);
		if (atomic_load(&x->abort))
			return x->err_code ? x->err_code : -ECANCELED;
		if (d != last_done) {
			last_done = d;
			since = rb_now_ns();
		} else if (rb_now_ns() - since > (uint64_t)timeout_ms * 1000000ull) {
			fail(x, -ETIMEDOUT, "workers made no progress for %d ms", timeout_ms);
			return -ETIMEDOUT;
		}
		if (++spins > 64)
			sched_yield();
	}
	x->sizes[m % XFER_RING] = size;
	atomic_store_explicit(&x->posted, m + 1, memory_order_release);
	return 0;
}

void xfer_abort(struct xfer *x)
{
	atomic_store(&x->abort, true);
}

int xfer_join(struct xfer *x)
{
	for (unsigned t = 0; t < x->started; t++)
		pthread_join(x->threads[t], NULL);
	x->started = 0;
	if (x->err_code)
		rb_err("%s", x->err);
	return x->err_code;
}

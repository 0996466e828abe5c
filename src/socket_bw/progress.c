/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A worker with several sockets moves each one's chunks on its own. Every socket
 * keeps a cursor into the message sequence and carries its chunks in message order,
 * as the peer's socket expects, but no socket waits for its siblings to finish a
 * message: a blocking worker would send (or receive) one socket's chunk, then the
 * next, so each socket idles while the others move and its buffers drain. Here the
 * sockets are non-blocking calls in one loop, and the worker sleeps in poll() only
 * when none can move.
 *
 * Each socket has its own stretch of the worker's buffer (the largest chunk): with
 * --verify a socket fills or checks its chunk there while its siblings are at other
 * messages, whose chunks may sit at the same offsets.
 */
#include "progress.h"
#include "worker.h"

#include "measure/measure.h"
#include "base/base.h"
#include "run/run.h"

#include <errno.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

/* One socket's place in the message sequence. */
struct cursor {
	uint64_t m;        /* every message below m has gone over this socket */
	uint64_t off, len; /* busy: message m's chunk on this socket */
	uint64_t moved;    /* bytes of it moved so far */
	bool busy, ended;  /* ended: the end of the step (a 0 size) reached */
	bool fresh;        /* busy, and nothing of the chunk tried yet (a sender fills it first) */
};

bool xfer_multi(const struct xfer_cfg *cfg)
{
	return cfg->nsocks > 1 && !(cfg->tx && cfg->zerocopy);
}

uint64_t xfer_multi_stride(const struct xfer_cfg *cfg)
{
	uint64_t c = rb_chunk_size(cfg->max_size, cfg->nthreads * cfg->nsocks);

	c = cfg->max_size < c ? (cfg->max_size ? cfg->max_size : 1) : c;
	/* Each socket's part starts on a page of its own (sockio.h: sock_buf_alloc). */
	return (c + SOCK_BUF_ALIGN - 1) / SOCK_BUF_ALIGN * SOCK_BUF_ALIGN;
}

/*
 * Moves c past the published messages that have no chunk on socket s, up to the
 * next that has one (busy) or the end of the step (ended). Stops at the first
 * message not yet published.
 */
static void find_chunk(struct xfer *x, struct cursor *c, unsigned s)
{
	const unsigned total = x->cfg.nthreads * x->cfg.nsocks;
	const uint64_t posted = atomic_load_explicit(&x->posted, memory_order_acquire);

	for (; !c->busy && !c->ended && c->m < posted;) {
		const uint64_t size = x->sizes[c->m % XFER_RING];
		const unsigned k = rb_socket_chunk(c->m, s, total);

		if (size == 0) {
			c->ended = true;
		} else if (k < rb_chunk_count(size, total)) {
			rb_chunk(size, total, k, &c->off, &c->len);
			c->moved = 0;
			c->busy = c->fresh = true;
		} else {
			c->m++;
		}
	}
}

/*
 * One non-blocking call on socket s for its chunk. Returns 0 (bytes moved or none
 * could), 1 when the chunk is complete, or -errno.
 */
static int step(struct xfer_worker *w, struct cursor *c, unsigned s, uint8_t *p, bool *moved)
{
	struct xfer *x = w->x;
	const int fd = x->fds[s];
	ssize_t k;

	if (x->cfg.tx && x->cfg.verify && c->fresh)
		xfer_chunk_fill(x, p, c->m, c->off, c->len, s);
	c->fresh = false;
	if (x->cfg.tx)
		k = send(fd, p + c->moved, c->len - c->moved, MSG_NOSIGNAL | MSG_DONTWAIT);
	else
		k = recv(fd, p + c->moved, c->len - c->moved, MSG_DONTWAIT);
	if (k == 0)
		return -ECONNRESET;
	if (k < 0) {
		if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
			return 0;
		return errno == EPIPE ? -ECONNRESET : -errno;
	}
	*moved = true;
	c->moved += (uint64_t)k;
	atomic_fetch_add_explicit(&x->bytes, (uint64_t)k, memory_order_relaxed);
	if (c->moved < c->len)
		return 0;
	if (!x->cfg.tx && x->cfg.verify) {
		const uint64_t size = x->sizes[c->m % XFER_RING];
		int ret = xfer_chunk_check(x, p, c->m, size, c->off, c->len, s);
		if (ret)
			return ret;
	}
	return 1;
}

void *xfer_multi_main(void *arg)
{
	struct xfer_worker *w = arg;
	struct xfer *x = w->x;
	const unsigned n = x->cfg.nsocks, first = w->t * n;
	const uint64_t stride = xfer_multi_stride(&x->cfg);
	struct cursor cur[XFER_MAX_SOCKS] = {0};
	uint64_t done = 0, last = rb_now_ns();
	struct rb_turn turn = {last, RB_TURN_WALL, 0}; /* between turns: a poll */

	rb_window_thread_ready(&x->ready);
	for (;;) {
		struct pollfd pf[XFER_MAX_SOCKS];
		unsigned np = 0, ended = 0, stuck = first;
		uint64_t low = UINT64_MAX, low_starved = 0;
		bool moved = false, starved = false;

		if (atomic_load(&x->abort))
			return NULL;
		for (unsigned j = 0; j < n; j++) {
			struct cursor *c = &cur[j];
			int ret;

			find_chunk(x, c, first + j);
			while (c->busy && (ret = step(w, c, first + j, w->buf + j * stride, &moved)) == 1) {
				c->busy = false;
				c->m++;
				find_chunk(x, c, first + j);
			}
			if (c->busy && ret < 0) {
				xfer_worker_fail(x, ret, first + j, c->m);
				return NULL;
			}
			if (c->m < low) {
				low = c->m;
				stuck = first + j;
			}
			if (c->ended)
				ended++;
			else if (c->busy)
				pf[np++] =
				    (struct pollfd){x->fds[first + j], x->cfg.tx ? POLLOUT : POLLIN, 0};
			else if (!starved || c->m < low_starved) {
				starved = true; /* waits for the next message to be published */
				low_starved = c->m;
			}
		}
		if (low > done) {
			done = low;
			xfer_publish_done(x, w->t, done);
		}
		if (ended == n)
			return NULL;
		if (moved) {
			last = turn.wall_ns = rb_now_ns(); /* a new turn: the time since is not an absence */
			continue;
		}
		if (!np) {
			/* Every socket waits for a publication (the oldest one's decides). */
			if (!xfer_wait_posted(x, low))
				return NULL;
			last = turn.wall_ns = rb_now_ns(); /* a new turn: the time since is not an absence */
			continue;
		}
		if (rb_cpuwait_silence(&last, &turn, rb_now_ns(), (uint64_t)SOCK_SLICE_MS * 1000000ull) >=
		    (uint64_t)x->cfg.timeout_ms * 1000000ull) {
			xfer_worker_fail(x, -ETIMEDOUT, stuck, low);
			return NULL;
		}
		if (starved) {
			/*
			 * A publication wakes us through efd once polling is seen (sequentially
			 * consistent, against xfer_post's store of posted then its look at the
			 * flag); one that came before is seen here.
			 */
			atomic_store(&w->polling, true);
			if (atomic_load(&x->posted) > low_starved) {
				atomic_store(&w->polling, false);
				continue;
			}
			pf[np++] = (struct pollfd){w->efd, POLLIN, 0};
		}
		if (poll(pf, np, SOCK_SLICE_MS) < 0 && errno != EINTR) {
			xfer_worker_fail(x, -errno, stuck, low);
			return NULL;
		}
		if (starved) {
			uint64_t count;
			atomic_store(&w->polling, false);
			if (read(w->efd, &count, sizeof(count)) < 0) {
				/* EAGAIN: no publication came; the sockets woke us. */
			}
		}
	}
}

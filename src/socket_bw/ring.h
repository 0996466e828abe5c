/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The ring a poster and the workers of one direction share (ring.c), and the data
 * path's types. The control thread posts message sizes into the ring; every worker
 * walks the same sequence of messages. The poster's side (xfer_post and the counts)
 * is public through xfer.h; the workers' side (the wait for a publication, the
 * finished count, failing the step) is for worker.c and progress.c.
 */
#ifndef RB_SOCKET_BW_RING_H
#define RB_SOCKET_BW_RING_H

#include "base/base.h"
#include "sockio.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define XFER_RING        1024
#define XFER_INFLIGHT    (64ull << 20) /* bytes published ahead of the slowest worker */
#define XFER_MAX_THREADS 64
#define XFER_MAX_SOCKS   256

struct xfer_cfg {
	bool tx; /* send (true) or receive */
	bool verify;
	bool zerocopy;             /* MSG_ZEROCOPY on send */
	unsigned nthreads, nsocks; /* sockets per thread */
	uint64_t max_size;
	int timeout_ms; /* a worker gives up after this long without progress */
};

/*
 * A worker's own state, set up by xfer_start before the thread exists. With
 * --zerocopy --verify a sender refills its buffer for every message while the
 * kernel may still read the previous one, so it alternates between two buffers and
 * refills one only after the zerocopy notifications for its last sends arrived.
 */
struct xfer_worker {
	struct xfer *x;
	unsigned t;
	unsigned nslots;                      /* buffers of max_size: 2 for zerocopy+verify senders, else 1 */
	uint8_t *buf;                         /* nslots * max_size (multi-socket: nsocks * stride), zeroed */
	struct sock_zc *zc;                   /* own sockets' (the caller's zcs), zerocopy senders only */
	uint32_t *marks;                      /* [slot][own socket]: zc->issued after the slot's last send */
	uint64_t zc_completions0, zc_copied0; /* own sockets' counts when the step began */
	/*
	 * Multi-socket workers: poll() also watches efd while a socket waits for a
	 * publication (polling set); a poster that publishes writes to it then.
	 */
	int efd;
	_Atomic bool polling;
};

struct xfer {
	struct xfer_cfg cfg;
	int *fds; /* nthreads * nsocks, thread t owns fds[t*nsocks .. +nsocks) */
	uint64_t sizes[XFER_RING];
	_Atomic uint64_t posted;                 /* messages published into the ring */
	_Atomic uint64_t done[XFER_MAX_THREADS]; /* messages each worker finished */
	_Atomic bool abort;
	/*
	 * rb_now_ns() after which a full poster stops waiting (0: no such bound) and
	 * xfer_post returns -ETIME, the step not failed: the poster's caller says why.
	 * Set by the thread that posts, after xfer_start.
	 */
	uint64_t post_deadline;
	/*
	 * Bumped on every publication, and on abort: a worker that caught up sleeps, not spins.
	 * done_wq is bumped only when a worker's count reaches done_want, the count a full
	 * poster waits for (UINT64_MAX: none waits): the poster sleeps until a quarter of
	 * its window is free, not once per finished message.
	 */
	struct rb_seqwait posted_wq, done_wq;
	_Atomic uint64_t done_want;
	_Atomic uint64_t bytes;
	_Atomic uint64_t t_end;                     /* rb_now_ns() when a worker reached the step's end */
	_Atomic uint64_t zc_completions, zc_copied; /* in this step */
	struct xfer_worker w[XFER_MAX_THREADS];
	pthread_t threads[XFER_MAX_THREADS];
	unsigned started;
	atomic_uint ready;        /* workers running, their stacks in place (run/window.h) */
	pthread_mutex_t err_lock; /* err, err_code, err_logged */
	char err[320];            /* first worker error */
	int err_code;
	bool err_logged;
};

/*
 * Publishes the next n messages of size, at once (size 0, n 1: the end of the step).
 * Waits (bounded by timeout_ms of no worker progress) while they would put more
 * than xfer_depth(size) messages ahead of the slowest worker; n is at most a
 * quarter of that (xfer_run_len), or 1. Returns 0 or -errno; after an abort, the
 * workers' error (logged by xfer_error) or -ECANCELED; -ETIME (not logged) when
 * it would still have to wait at x->post_deadline.
 */
int xfer_post(struct xfer *x, uint64_t size, uint32_t n, int timeout_ms);
/*
 * Messages of size a poster may publish ahead of the slowest worker: XFER_INFLIGHT
 * bytes, at least 2 and at most XFER_RING messages.
 */
uint64_t xfer_depth(uint64_t size);
/*
 * How many messages of size one SIZE frame announces at most: a quarter of the
 * depth, 1 to 64 (64 B to 1 MiB messages: 64 to 16 per frame).
 */
uint32_t xfer_run_len(uint64_t size);
/* Messages every worker has finished. */
uint64_t xfer_done(struct xfer *x);
bool xfer_aborted(struct xfer *x);
/* The first worker error (0 when none), logged once with its message when log is true. */
int xfer_error(struct xfer *x, bool log);
void xfer_abort(struct xfer *x);

/* ---------------------------------------------------------------- the workers' side */

/* Spins before a wait goes to sleep: a publication is usually a moment away. */
#define XFER_SPINS 64

/* Records the step's first error (formatted) and stops every worker. */
void xfer_fail(struct xfer *x, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Waits for message m to be published; false on abort. */
bool xfer_wait_posted(struct xfer *x, uint64_t m);
/* Worker t has finished every message below done: tells a poster that waits for it. */
void xfer_publish_done(struct xfer *x, unsigned t, uint64_t done);

#endif

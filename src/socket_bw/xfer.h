/*
 * socket_bw's data path: one direction of transfer over T threads x S sockets.
 * The control thread posts message sizes into a ring; every worker walks the same
 * sequence of messages and moves the chunks (chunks.h) that fall on its sockets, in
 * the same order on both ends, so each socket's byte stream lines up. A worker with
 * one socket (or a --zerocopy sender) blocks on it; one with several drives them with
 * non-blocking calls, each at its own pace (progress.c).
 *
 * Also the blocking I/O every data socket uses (ping-pong included): exact-length
 * send/receive that wakes every SOCK_SLICE_MS to look at the stop signal and an
 * abort flag, and gives up after a timeout without progress.
 */
#ifndef RB_SOCK_XFER_H
#define RB_SOCK_XFER_H

#include "base/base.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define XFER_RING        1024
#define XFER_INFLIGHT    (64ull << 20) /* bytes published ahead of the slowest worker */
#define XFER_MAX_THREADS 64
#define XFER_MAX_SOCKS   256
/* SO_RCVTIMEO / SO_SNDTIMEO of every data socket: how often a blocked call looks up. */
#define SOCK_SLICE_MS 100

/*
 * MSG_ZEROCOPY bookkeeping of one socket. Every send() that moves bytes with
 * MSG_ZEROCOPY takes the next notification id; the kernel may read the pages
 * until a notification covering that id arrives on the error queue.
 */
struct sock_zc {
	uint32_t issued;                 /* ids handed out so far */
	uint32_t done_below;             /* every id below this one has completed */
	uint32_t ooo_lo[16], ooo_hi[16]; /* completed ranges above a gap (rare) */
	unsigned nooo;
	uint64_t completions, copied; /* ids completed; of those, sent with a copy by the kernel */
};

/* One data socket's blocking I/O. */
struct sock_io {
	int fd;
	int timeout_ms; /* no progress for this long: -ETIMEDOUT */
	/*
	 * Worker threads: the control thread's request to stop. NULL in the control
	 * thread itself, which looks at the stop signal instead (signals are its alone).
	 */
	const _Atomic bool *abort;
	struct sock_zc *zc; /* non-NULL: send with MSG_ZEROCOPY and count the ids */
};

/*
 * Moves exactly n bytes. Returns 0; -ECONNRESET when the peer closed or reset the
 * connection; -ETIMEDOUT after timeout_ms without a byte; -ECANCELED when *abort was
 * set; -EINTR (abort NULL) after SIGINT/SIGTERM, not logged: the caller owns the
 * message; or -errno.
 */
int sock_send(const struct sock_io *io, const void *p, size_t n);
int sock_recv(const struct sock_io *io, void *p, size_t n);
/* Reads the zerocopy notifications queued on fd (never blocks). 0 or -errno. */
int sock_zc_reap(struct sock_zc *z, int fd);
/* True when every id below mark has completed: the pages those sends used are ours again. */
bool sock_zc_done(const struct sock_zc *z, uint32_t mark);

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
	_Atomic uint64_t zc_completions, zc_copied; /* in this step */
	struct xfer_worker w[XFER_MAX_THREADS];
	pthread_t threads[XFER_MAX_THREADS];
	unsigned started;
	pthread_mutex_t err_lock; /* err, err_code, err_logged */
	char err[320];            /* first worker error */
	int err_code;
	bool err_logged;
};

/*
 * Allocates every worker's buffers and starts the workers (with SIGINT/SIGTERM
 * blocked: the calling thread hears them). fds are borrowed, not closed; zcs (one
 * per fd, kept by the caller for the sockets' lifetime) is used by zerocopy senders.
 * On failure nothing is left running. Returns 0 or -errno (logged).
 */
int xfer_start(struct xfer *x, const struct xfer_cfg *cfg, int *fds, struct sock_zc *zcs);
/* The bytes of buffers xfer_start allocates for cfg, all workers together. */
uint64_t xfer_bytes(const struct xfer_cfg *cfg);
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
/* Joins the workers (after posting 0, or after xfer_abort) and frees the buffers. */
void xfer_join(struct xfer *x);
void xfer_abort(struct xfer *x);

#endif

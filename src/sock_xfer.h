/*
 * socket_bw's data path: one direction of transfer over T threads x S sockets.
 * The control thread posts message sizes into a ring; every worker walks the same
 * sequence of messages and moves the chunks (chunks.h) that fall on its sockets, in
 * the same order on both ends, so each socket's byte stream lines up.
 */
#ifndef RB_SOCK_XFER_H
#define RB_SOCK_XFER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#define XFER_RING        1024
#define XFER_MAX_THREADS 64
#define XFER_MAX_SOCKS   256

struct xfer_cfg {
	bool tx; /* send (true) or receive */
	bool verify;
	bool zerocopy;             /* MSG_ZEROCOPY on send */
	unsigned nthreads, nsocks; /* sockets per thread */
	uint64_t max_size;
};

struct xfer {
	struct xfer_cfg cfg;
	int *fds; /* nthreads * nsocks, thread t owns fds[t*nsocks .. +nsocks) */
	uint64_t sizes[XFER_RING];
	_Atomic uint64_t posted;                 /* messages published into the ring */
	_Atomic uint64_t done[XFER_MAX_THREADS]; /* messages each worker finished */
	_Atomic bool abort;
	_Atomic uint64_t bytes;
	pthread_t threads[XFER_MAX_THREADS];
	unsigned started;
	pthread_mutex_t err_lock;
	char err[320]; /* first worker error */
	int err_code;
};

/* Starts the workers; fds are borrowed, not closed. */
int xfer_start(struct xfer *x, const struct xfer_cfg *cfg, int *fds);
/*
 * Publishes the next message size (0 ends the step). Waits (bounded by timeout_ms
 * of no worker progress) while the ring is full. Returns 0 or -errno.
 */
int xfer_post(struct xfer *x, uint64_t size, int timeout_ms);
/* Messages every worker has finished. */
uint64_t xfer_done(struct xfer *x);
/* Joins the workers (after posting 0, or after xfer_abort). Returns the first error. */
int xfer_join(struct xfer *x);
void xfer_abort(struct xfer *x);

#endif

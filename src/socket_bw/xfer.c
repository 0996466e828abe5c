/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The data path's life per step: every worker's buffers allocated and zeroed, the
 * workers started (blocking, worker.c, or multi-socket, progress.c), joined and freed.
 */
#include "xfer_priv.h"

#include "base/base.h"
#include "run/run.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

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
		return sock_buf_bytes((uint64_t)cfg->nsocks * xfer_multi_stride(cfg));
	return sock_buf_bytes((cfg->tx && cfg->zerocopy && cfg->verify ? 2u : 1u) *
	                      (cfg->max_size ? cfg->max_size : 1));
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
	w->buf = sock_buf_alloc(bytes);
	if (zc) {
		w->zc = zcs + t * x->cfg.nsocks;
		w->marks = calloc((size_t)w->nslots * x->cfg.nsocks, sizeof(*w->marks));
		/* Nothing of this buffer is in flight yet: each slot's marks are where the ids stand now. */
		for (unsigned j = 0; w->marks && j < x->cfg.nsocks; j++) {
			for (unsigned k = 0; k < w->nslots; k++)
				w->marks[k * x->cfg.nsocks + j] = w->zc[j].issued;
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
		ret = -pthread_create(&x->threads[t], NULL,
		                      xfer_multi(cfg) ? xfer_multi_main : xfer_worker_main, &x->w[t]);
		if (ret)
			rb_err("cannot start worker thread %u: %s", t, strerror(-ret));
		else
			x->started++;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret) {
		xfer_abort(x);
		xfer_join(x);
	} else {
		rb_window_threads_ready(&x->ready, x->started, 2000);
	}
	return ret;
}

void xfer_join(struct xfer *x)
{
	for (unsigned t = 0; t < x->started; t++)
		pthread_join(x->threads[t], NULL);
	x->started = 0;
	for (unsigned t = 0; t < x->cfg.nthreads && t < XFER_MAX_THREADS; t++)
		worker_free(&x->w[t]);
}

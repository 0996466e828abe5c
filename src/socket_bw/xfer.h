/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * socket_bw's data path: one direction of transfer over T threads x S sockets.
 * The control thread posts message sizes into a ring (ring.h); every worker walks the
 * same sequence of messages and moves the chunks (chunks.h) that fall on its sockets,
 * in the same order on both ends, so each socket's byte stream lines up. A worker
 * with one socket (or a --zerocopy sender) blocks on it (worker.c); one with several
 * drives them with non-blocking calls, each at its own pace (progress.c). This file's
 * functions (xfer.c) start and join them; every data socket's blocking I/O is
 * sockio.h's.
 */
#ifndef RB_SOCKET_BW_XFER_H
#define RB_SOCKET_BW_XFER_H

#include "ring.h"

/*
 * Allocates every worker's buffers and starts the workers (with SIGINT/SIGTERM
 * blocked: the calling thread hears them). fds are borrowed, not closed; zcs (one
 * per fd, kept by the caller for the sockets' lifetime) is used by zerocopy senders.
 * On failure nothing is left running. Returns 0 or -errno (logged).
 */
int xfer_start(struct xfer *x, const struct xfer_cfg *cfg, int *fds, struct sock_zc *zcs);
/* The bytes of buffers xfer_start allocates for cfg, all workers together. */
uint64_t xfer_bytes(const struct xfer_cfg *cfg);
/* Joins the workers (after posting 0, or after xfer_abort) and frees the buffers. */
void xfer_join(struct xfer *x);

#endif

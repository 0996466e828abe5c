/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What a worker does with a message (worker.c): its chunks' --verify pattern, an I/O
 * error worded for the user, and the blocking worker's loop.
 */
#ifndef RB_SOCKET_BW_WORKER_H
#define RB_SOCKET_BW_WORKER_H

#include "ring.h"

/* A worker's I/O error ret on socket s while moving message m, worded for the user. */
void xfer_worker_fail(struct xfer *x, int ret, unsigned s, uint64_t m);
/* Sender: fills bytes [off, off + len) of message m (socket s) into p. */
void xfer_chunk_fill(struct xfer *x, uint8_t *p, uint64_t m, uint64_t off, uint64_t len, unsigned s);
/* Receiver: checks them; 0, or -EIO with the step failed. */
int xfer_chunk_check(struct xfer *x, const uint8_t *p, uint64_t m, uint64_t size, uint64_t off, uint64_t len,
                     unsigned s);
/* The thread of a worker that blocks on its sockets, one chunk at a time (arg: its xfer_worker). */
void *xfer_worker_main(void *arg);

#endif

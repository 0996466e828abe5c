/*
 * What xfer.c shares with the multi-socket worker (progress.c): failing a step, the
 * wait for a message to be published, publishing a worker's finished count, and the
 * verify pattern of one chunk.
 */
#ifndef RB_SOCK_XFER_PRIV_H
#define RB_SOCK_XFER_PRIV_H

#include "xfer.h"

/* Spins before a wait goes to sleep: a publication is usually a moment away. */
#define XFER_SPINS 64

/* Records the step's first error (formatted) and stops every worker. */
void xfer_fail(struct xfer *x, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* A worker's I/O error ret on socket s while moving message m, worded for the user. */
void xfer_worker_fail(struct xfer *x, int ret, unsigned s, uint64_t m);
/* Waits for message m to be published; false on abort. */
bool xfer_wait_posted(struct xfer *x, uint64_t m);
/* Worker t has finished every message below done: tells a poster that waits for it. */
void xfer_publish_done(struct xfer *x, unsigned t, uint64_t done);
/* Sender: fills bytes [off, off + len) of message m (socket s) into p. */
void xfer_chunk_fill(struct xfer *x, uint8_t *p, uint64_t m, uint64_t off, uint64_t len, unsigned s);
/* Receiver: checks them; 0, or -EIO with the step failed. */
int xfer_chunk_check(struct xfer *x, const uint8_t *p, uint64_t m, uint64_t size, uint64_t off, uint64_t len,
                     unsigned s);

/*
 * Workers with several sockets (and no --zerocopy) move each socket's chunks on their
 * own: no socket waits for its siblings to finish a message (progress.c).
 */
bool xfer_multi(const struct xfer_cfg *cfg);
/* Bytes of a multi-socket worker's buffer per socket: the largest chunk. */
uint64_t xfer_multi_stride(const struct xfer_cfg *cfg);
void *xfer_multi_main(void *arg);

#endif

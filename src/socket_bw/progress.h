/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Workers with several sockets (and no --zerocopy) move each socket's chunks on their
 * own: no socket waits for its siblings to finish a message (progress.c).
 */
#ifndef RB_SOCKET_BW_PROGRESS_H
#define RB_SOCKET_BW_PROGRESS_H

#include "ring.h"

bool xfer_multi(const struct xfer_cfg *cfg);
/* Bytes of a multi-socket worker's buffer per socket: the largest chunk. */
uint64_t xfer_multi_stride(const struct xfer_cfg *cfg);
void *xfer_multi_main(void *arg);

#endif

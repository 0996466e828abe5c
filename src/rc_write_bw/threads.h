/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * --threads N (threads.c): the plain step's sends spread over N posting threads,
 * each pinned to one CPU of the device's node, each with a block of QPs of its own
 * and their send CQ; the engine's thread supervises them.
 */
#ifndef RB_RC_WRITE_BW_THREADS_H
#define RB_RC_WRITE_BW_THREADS_H

#include "types.h"

#include <stdbool.h>

struct bw_engine;

/* Starts n (> 1) worker posters, pinned, waiting for steps; 0 or -errno (said). */
int bw_workers_start(struct bw_engine *e, unsigned n);
/* Ends and joins them; nothing without workers, or when one was abandoned. */
void bw_workers_end(struct bw_engine *e);
/* A worker did not leave a failed step within --timeout: it may still use the engine and the QPs. */
bool bw_workers_abandoned(const struct bw_engine *e);
/*
 * The plain step's sends over the workers, every QP's target set: the engine's
 * thread keeps the clock (peak, -D, --interval), the housekeeping and the stall
 * bound on the counts they publish, and stops them on an error. 0 or -errno.
 */
int bw_workers_send(struct bw_engine *e);
/* Each worker's sends of the step just run, into res (threads, per-thread messages and time). */
void bw_workers_result(const struct bw_engine *e, struct bw_result *res);

#endif

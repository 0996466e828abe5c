/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rc_write_lat's waits (wait.c): the arrival of the peer's message in each mode, the
 * send completions, and the clock-driven checks. Below the transport; calls nothing
 * above it.
 */
#ifndef RB_RC_WRITE_LAT_WAIT_H
#define RB_RC_WRITE_LAT_WAIT_H

#include "lat.h"

/* "no message from the peer for N s ..." (--timeout); -ETIMEDOUT. */
int lat_peer_silent(struct lat *l);
/* The clock-driven checks: stop signal, async events, --load's thread, the peer's word, send completions. */
int lat_housekeep(struct lat *l, uint64_t now);
/* Takes the send completions there are; blocks (bounded) only when the send queue is nearly full. */
int lat_reap_sends(struct lat *l);
/* Event mode: requests an event for the next receive completion unless one is standing. */
int lat_arm(struct lat *l);
/* The peer's message i: 0 arrived, 1 the stop message, -errno. */
int lat_wait_arrival(struct lat *l, uint64_t i);
/* Test fault "stall": send nothing more; wait, bounded, for the peer to give up. */
int lat_stall(struct lat *l);

#endif

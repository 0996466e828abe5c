/* SPDX-License-Identifier: BSD-2-Clause */
/* The peer's frames during a step, taken as they come (frames.c); housekeeping asks. */
#ifndef RB_RC_WRITE_BW_FRAMES_H
#define RB_RC_WRITE_BW_FRAMES_H

#include <stdint.h>

struct bw_engine;

/* Takes one frame of the peer's (waiting at most --timeout), kept for whoever awaits it; 0 or -errno. */
int bw_read_frame(struct bw_engine *e);
/* Takes the peer's frames that are waiting (housekeeping); 0 or -errno. */
int bw_peer_poll(struct bw_engine *e);
/*
 * -D: the peer's DONE is due by the duration plus a grace for draining what is in
 * flight (5 s + half of -D) after this side's step began, on this side's clock,
 * whatever the peer keeps doing: -ETIMEDOUT (said) once it is overdue. Housekeeping asks.
 */
int bw_peer_overdue(struct bw_engine *e, uint64_t now);

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The closing agreement: no side reports a step, or a run, as complete until it
 * holds the peer's verdict on it (iperf3's exchange-results state). After its own
 * step succeeded, each side sends AGREE(seq, ok) and waits for the peer's; a side
 * whose step failed sends ERROR instead (rb_run_finish), which the waiting side takes
 * as that step's failure, named as the peer's. At the end of the run both sides
 * exchange AGREE(RB_AGREE_RUN) with the verdict of their gates, so a check either
 * side makes fails both.
 *
 * Each AGREE also echoes the figure frames its side took during the step (figures.h):
 * a side whose figures reached the peer other than it sent them fails the step.
 */
#ifndef RB_AGREE_H
#define RB_AGREE_H

#include "channel.h"

#include <stdbool.h>
#include <stdint.h>

#define RB_AGREE_RUN UINT64_MAX /* seq of the verdict on the whole run */

struct rb_agree {
	uint64_t seq; /* the step (1, 2, ...) or RB_AGREE_RUN */
	bool ok;
	char why[RB_WIRE_MSG_LEN]; /* when not ok: the side's cause */
	/* The chain of the figure frames this side took since the last agreement (figures.h). */
	uint8_t echo[RB_WIRE_ECHO_LEN];
};

/* The payload; the decoder returns 0 or -EPROTO. */
void rb_agree_encode(struct rb_wbuf *w, const struct rb_agree *a);
int rb_agree_decode(const uint8_t *p, size_t len, struct rb_agree *a);

/*
 * Sends mine and receives the peer's verdict on the same seq within the channel's
 * timeout (PROGRESS heartbeats still in flight are skipped). Returns 0 when both
 * hold it good; -EIO when the peer's verdict is a failure (logged, naming the
 * peer's role and cause); -EREMOTEIO when the peer failed instead (its ERROR);
 * -EPROTO on any other frame, or when the peer's echo is not the chain of what this
 * side sent (said); a channel error otherwise. mine's echo is filled in here; both
 * chains start anew. A verdict of ours that is
 * not ok is sent but not logged here (its side said it already).
 */
int rb_agree(struct rb_oob *o, const struct rb_agree *mine, const char *peer_role);

#endif

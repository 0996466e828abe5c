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
 * Each AGREE also carries the chains of the figure frames its side sent and took during
 * the step (figures.h), under a MAC keyed per connection with --auth-key: both sides
 * hold them to their own before either accepts the step, so a figure changed on the
 * way fails the step on both sides, before the side that took it writes a row.
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
	/* The chains of the figure frames this side sent and took since the last agreement (figures.h). */
	uint8_t sent[RB_WIRE_ECHO_LEN], rcvd[RB_WIRE_ECHO_LEN];
	/* HMAC-SHA-256 of all the above under the connection's figures key (rb_agree_mac). */
	uint8_t mac[RB_WIRE_ECHO_LEN];
};

/* The payload, mac last; the decoder returns 0 or -EPROTO. */
void rb_agree_encode(struct rb_wbuf *w, const struct rb_agree *a);
/* The MAC of an encoded AGREE of len bytes: over all but its last RB_WIRE_ECHO_LEN (the mac itself). */
void rb_agree_mac(const uint8_t key[RB_WIRE_ECHO_LEN], const uint8_t *p, size_t len,
                  uint8_t mac[RB_WIRE_ECHO_LEN]);
int rb_agree_decode(const uint8_t *p, size_t len, struct rb_agree *a);

/*
 * Sends mine and receives the peer's verdict on the same seq within the channel's
 * timeout (PROGRESS heartbeats still in flight are skipped). Returns 0 when both
 * hold it good; -EIO when the peer's verdict is a failure (logged, naming the
 * peer's role and cause); -EREMOTEIO when the peer failed instead (its ERROR);
 * -EPROTO on any other frame, a MAC that does not hold, or chains that are not this
 * side's own the other way round (said); a channel error otherwise. mine's chains and
 * MAC are filled in here; both chains start anew. A verdict of ours that is
 * not ok is sent but not logged here (its side said it already).
 */
int rb_agree(struct rb_oob *o, const struct rb_agree *mine, const char *peer_role);

#endif

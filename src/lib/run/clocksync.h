/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The out-of-band round trips that put the peer's clock on this side's time line
 * (measure/clockfit.h does the arithmetic): the client sends CLOCK frames, each
 * stamped with its send time, the server answers each at once with its receive and
 * send times on its own clock (rb_now_ns, CLOCK_MONOTONIC on both). Both sides call
 * it at the same point of their protocol, the same n.
 *
 * The server's answers are a peer's figures: an answer that does not echo the probe
 * it answers, or whose stamps cannot be (the peer's turn longer than the round trip),
 * is dropped from the batch; a batch with no consistent probe is -EPROTO.
 */
#ifndef RB_CLOCKSYNC_H
#define RB_CLOCKSYNC_H

#include "oob/oob.h"
#include "measure/measure.h"

#include <stdbool.h>

#define RB_CLOCK_PROBES_MAX 64

/* n probes (1..RB_CLOCK_PROBES_MAX), each within timeout_ms: the client's point in *pt. */
int rb_clock_sync(struct rb_oob *o, bool client, unsigned n, int timeout_ms, struct rb_clock_point *pt);

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rc_write_lat's ping-pong transport (transport.c): what main.c calls. The rows are
 * main.c's: an interval's comes back through l->interval_row, never by name.
 */
#ifndef RB_RC_WRITE_LAT_TRANSPORT_H
#define RB_RC_WRITE_LAT_TRANSPORT_H

#include "lat.h"

/* Once the QP is connected: the channel made non-blocking, the first receives posted. */
int lat_ready_qp(struct lat *l);
/* One size, after the barrier: the engine with this transport; res the same on both sides. */
int lat_pp_step(struct lat *l, bool client, uint64_t size, struct rb_pp_result *res);

#endif

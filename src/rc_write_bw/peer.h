/* SPDX-License-Identifier: BSD-2-Clause */
/* The engine waiting for the peer inside a step (peer.c). */
#ifndef RB_RC_WRITE_BW_PEER_H
#define RB_RC_WRITE_BW_PEER_H

#include "oob/oob.h"

#include <stdbool.h>
#include <stdint.h>

struct bw_engine;

/* Waits for *flag (set when --verify's frame of the peer's came) while receives keep flowing. */
int bw_wait_for(struct bw_engine *e, const bool *flag);
/* What this side knows to hold the peer's DONE to (oob/stepend.h). */
void bw_peer_view(const struct bw_engine *e, struct rb_step_view *v);
/* With WRITE_WITH_IMM, after the peer's DONE: every message it sent arrived here. */
int bw_await_arrivals(struct bw_engine *e, uint64_t sent);

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/* The engine waiting for the peer (peer.c): a frame awaited, and DONE both ways. */
#ifndef RB_RC_WRITE_BW_PEER_H
#define RB_RC_WRITE_BW_PEER_H

#include "types.h"

struct bw_engine;

/* Waits for *flag (set when the peer's frame came) while keeping receives flowing. */
int bw_wait_for(struct bw_engine *e, const bool *flag, const char *what);
/* DONE both ways, the peer's checked, and every WRITE_WITH_IMM of its arrived. */
int bw_exchange_done(struct bw_engine *e, struct bw_result *res);

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/* The engine's receive side (recv.c): WRITE_WITH_IMM receives posted, consumed and counted. */
#ifndef RB_RC_WRITE_BW_RECV_H
#define RB_RC_WRITE_BW_RECV_H

#include <stdint.h>

struct bw_engine;

/*
 * Receives kept posted per QP for WRITE_WITH_IMM: what the peer can have in flight
 * on a QP (its tx depth), plus one refill batch.
 */
uint32_t bw_rx_depth(uint32_t tx_depth);

/* The receives the peer can need, posted on every QP before the first step. */
int bw_recv_init(struct bw_engine *e);
/* Consumes receive completions (WRITE_WITH_IMM); returns how many, or -errno. */
int bw_service_recv(struct bw_engine *e);

#endif

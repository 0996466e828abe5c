/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A step's figures as both ends saw them. Each side chains the figure frames it sends
 * (wire.h's rb_msg_figures: DONE, LATSTATS, a tool's own) and those it takes, each link
 * HMAC-SHA-256(key, previous link, type, length, payload); the closing agreement
 * carries the chain of what a side took, and its peer holds it to the chain of what it
 * sent (agree.h). So a figure rewritten on the way is a failed step on the side whose
 * figure it was, not a row on the other. Without --auth-key the key is zero: that
 * stops a relay that rewrites figures but not one that also rewrites the echo; with a
 * key, each connection's own (derived from the handshake's nonces) stops both.
 */
#ifndef RB_FIGURES_H
#define RB_FIGURES_H

#include "wire.h"

#include <stdint.h>

/* One frame onto a chain: link = HMAC(key, link, type, len, payload). Pure. */
void rb_figs_chain(const uint8_t key[RB_WIRE_ECHO_LEN], uint8_t link[RB_WIRE_ECHO_LEN], uint16_t type,
                   const uint8_t *payload, uint32_t len);

#endif

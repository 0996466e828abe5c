/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The RDMA WRITE bandwidth engine: one measured step (one message size) over a
 * connected rb_conn, with the peer kept in step over the out-of-band channel. What
 * main.c uses: the engine (engine.c), its types (types.h), the post API (send.h) and
 * the receive depth (recv.h).
 *
 * The engine's files, each using only those below it: engine.c (this face, and the
 * plain step); reg.c and verify.c (the other kinds of step); core.c (what every kind
 * shares on the sending side) and peer.c (waits for the peer, DONE); clock.c (the
 * clock and housekeeping); send.c, recv.c and frames.c (one post, poll or frame at a
 * time); state.h (the engine's state) and types.h.
 */
#ifndef RB_RC_WRITE_BW_ENGINE_H
#define RB_RC_WRITE_BW_ENGINE_H

#include "verbs/verbs.h"
#include "oob/oob.h"
#include "recv.h"
#include "send.h"
#include "types.h"

#include <stdbool.h>
#include <stdint.h>

struct bw_engine;

/* Posts the initial receives (WRITE_WITH_IMM). Call once after rb_conn_exchange. */
struct bw_engine *bw_engine_new(struct rb_conn *c, struct rb_oob *o, const struct bw_cfg *cfg);
/* Frees the engine, unless a posting thread was abandoned (then nothing: the process is ending). */
void bw_engine_free(struct bw_engine *e);
/* A posting thread was abandoned: leave the connection's objects alone too. */
bool bw_engine_abandoned(const struct bw_engine *e);

/*
 * The CQ moderation used for a message size: cq_mod, lowered so that at most 64 MiB
 * are written between two signaled WRs.
 */
uint32_t bw_sig_every(uint32_t cq_mod, uint64_t size);

/*
 * Without -l, messages up to BW_AUTO_LIST_BYTES go in lists of BW_AUTO_LIST (at most
 * the tx depth): there the rate is bound by posting (a doorbell, a lock, a syscall on
 * some providers, per call), not by the wire, and a list fills the send queue with one
 * call. Larger messages are posted one at a time.
 */
#define BW_AUTO_LIST       32u
#define BW_AUTO_LIST_BYTES 8192u
/*
 * Send WRs a QP's send queue is made for: -t, or the messages -n posts per QP and
 * size where fewer (iters 0: -D or --run-infinitely), since no more than those are
 * ever outstanding (perftest sizes its queues the same way). The planner keeps -t.
 */
uint32_t bw_sq_depth(uint32_t tx_depth, uint64_t iters);
/* The post list used for a message size: post_list (-l) when set, else the rule above. */
uint32_t bw_post_list(uint32_t post_list, uint32_t tx_depth, uint64_t size);

/* Runs one step, after both sides passed its barrier. Returns 0 or -errno (cause logged). */
int bw_engine_step(struct bw_engine *e, uint64_t size, struct bw_result *res);
/*
 * After a step cut short: this side's own sends of it so far (res->msgs, bytes, elapsed
 * from its first post to its last completion). false when this side sent nothing yet.
 */
bool bw_engine_partial(const struct bw_engine *e, struct bw_result *res);

#endif

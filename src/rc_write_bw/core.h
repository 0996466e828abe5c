/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What every kind of step shares on the sending side (core.c): reg.c, verify.c and
 * engine.c's plain step call it.
 */
#ifndef RB_RC_WRITE_BW_CORE_H
#define RB_RC_WRITE_BW_CORE_H

#include "types.h"

struct bw_engine;

/* The sending side's clock starts (the peak's, -D's, --interval's). */
void bw_start_sending(struct bw_engine *e);
/* Posts and polls until every QP has completed up to its target. */
int bw_send_until_targets(struct bw_engine *e);
/* This side's DONE: what it sent, measured on its own clock; the last --interval row. */
void bw_own_result(struct bw_engine *e, struct bw_result *res);

/* -D: each QP's share of what may be in flight now (types.h's BW_INFLIGHT_*) as its send queue's limit. */
void bw_inflight_limit(struct bw_engine *e, uint64_t now);

#endif

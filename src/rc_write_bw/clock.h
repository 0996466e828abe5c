/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The engine's clock (clock.c): every loop of a step ticks it after each verbs call
 * (or unit of work); it reads the time now and then, and does the housekeeping.
 */
#ifndef RB_RC_WRITE_BW_CLOCK_H
#define RB_RC_WRITE_BW_CLOCK_H

#include "state.h"

/* A step's clock from its start (after the barrier). */
void bw_clock_start(struct bw_engine *e);
/* Reads the clock, and every 10 ms does the housekeeping; 0 or -errno. */
int bw_clock_read(struct bw_engine *e);

/* After every verbs call (or unit of work) of every loop; 0 or -errno. */
static inline int bw_tick(struct bw_engine *e)
{
	return ++e->clk_count < e->clk_stride ? 0 : bw_clock_read(e);
}

#endif

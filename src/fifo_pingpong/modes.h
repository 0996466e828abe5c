/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fifo_pingpong's two modes (modes.c), on the transfer layer: one size, after the
 * barrier; seq numbers the sizes (the CTS tag). An interval's row goes out through
 * f->interval_row, never to main.c by name.
 */
#ifndef RB_FIFO_PINGPONG_MODES_H
#define RB_FIFO_PINGPONG_MODES_H

#include "fp.h"

/* Window 1: a ping-pong size on the ping-pong engine. */
int fp_pp_step(struct fp *f, bool client, struct rb_step *s, struct rb_pp_result *res);
/* Window N: a pipelined bandwidth size. */
int fp_bw_step(struct fp *f, bool client, uint64_t size, uint64_t seq, struct fp_bw *res);
/* --threads: worker t's part of a bandwidth step (rb_crew_work_fn; arg: the run's struct fp). */
int fp_chan_work(void *arg, unsigned t);

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fifo_pingpong's channels (--threads): the regions' layout, what the connection set
 * is asked for, and at connect each channel's QPs, CQs, slices, flush QP and thread.
 */
#ifndef RB_FIFO_PINGPONG_CHANS_H
#define RB_FIFO_PINGPONG_CHANS_H

#include "fp.h"

/* The connection set these options need (the layout set first). */
struct rb_conn_cfg fp_conn_cfg(struct fp *f);
/* After rb_verbs_connect: every channel ready, the crew started where there are several. */
int fp_chans_connect(struct fp *f);
/* Before rb_verbs_teardown; false when a thread was abandoned (then nothing may be freed). */
bool fp_chans_teardown(struct fp *f);

#endif

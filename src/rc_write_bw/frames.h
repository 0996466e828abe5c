/* SPDX-License-Identifier: BSD-2-Clause */
/* --verify's frames of the peer's during a step (frames.c). */
#ifndef RB_RC_WRITE_BW_FRAMES_H
#define RB_RC_WRITE_BW_FRAMES_H

#include "oob/oob.h"

struct bw_engine;

/* A WINDOW or VERIFY frame kept for whoever awaits it: 0; 1 when the frame is none of these. */
int bw_take_frame(struct bw_engine *e, const struct rb_frame *f);

#endif

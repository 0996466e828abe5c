/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * --verify's frames of the peer's during a step (WINDOW, VERIFY), kept for whoever
 * waits for them; the library engine takes every frame and hands these here.
 */
#include "frames.h"
#include "state.h"

int bw_take_frame(struct bw_engine *e, const struct rb_frame *f)
{
	switch (f->type) {
	case BW_MSG_WINDOW:
		if (e->cfg.verify && !e->have_window && !rb_window_decode(f->p, f->len, &e->peer_window)) {
			e->have_window = true;
			return 0;
		}
		break;
	case BW_MSG_VERIFY:
		if (e->cfg.verify && !e->have_verdict && !rb_verdict_decode(f->p, f->len, &e->peer_verdict)) {
			e->have_verdict = true;
			return 0;
		}
		break;
	default: break;
	}
	return 1; /* none of ours: the engine says so */
}

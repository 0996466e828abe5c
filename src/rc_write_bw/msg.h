/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rc_write_bw's --verify messages: WINDOW (a window of messages has landed) and
 * VERIFY (the receiver's verdict on it). Only this tool speaks them: it registers
 * their numbers and caps with the framing (bw_msgs, in its struct rb_tool).
 */
#ifndef RB_RC_WRITE_BW_MSG_H
#define RB_RC_WRITE_BW_MSG_H

#include "oob/oob.h"

/* Its own frame types: from RB_MSG_TOOL_FIRST (oob/wire.h), each number of the project once. */
enum { BW_MSG_WINDOW = 24, BW_MSG_VERIFY = 25 };
#define BW_NMSGS 2
extern const struct rb_msg_def bw_msgs[BW_NMSGS];

struct rb_window {
	uint32_t index, msgs_per_qp;
	uint8_t last;
};

struct rb_verdict {
	uint64_t bad; /* messages that did not match */
	uint32_t qp;
	uint64_t msg, offset;
	uint8_t expected, got;
};

/* Each encoder writes the payload into w; each decoder returns 0 or -EPROTO. */
void rb_window_encode(struct rb_wbuf *w, const struct rb_window *m);
int rb_window_decode(const uint8_t *p, size_t len, struct rb_window *m);
void rb_verdict_encode(struct rb_wbuf *w, const struct rb_verdict *v);
int rb_verdict_decode(const uint8_t *p, size_t len, struct rb_verdict *v);

#endif

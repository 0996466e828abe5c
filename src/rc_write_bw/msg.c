/* SPDX-License-Identifier: BSD-2-Clause */
#include "msg.h"

#include <errno.h>

/* Fixed-size payloads, a few dozen bytes: the framing's small cap. */
const struct rb_msg_def bw_msgs[BW_NMSGS] = {
    {BW_MSG_WINDOW, "WINDOW", 256, false},
    {BW_MSG_VERIFY, "VERIFY", 256, false},
};

void rb_window_encode(struct rb_wbuf *w, const struct rb_window *m)
{
	rb_put_u32(w, m->index);
	rb_put_u32(w, m->msgs_per_qp);
	rb_put_u8(w, m->last);
}

int rb_window_decode(const uint8_t *p, size_t len, struct rb_window *m)
{
	struct rb_rbuf r = {p, len, 0, false};

	m->index = rb_get_u32(&r);
	m->msgs_per_qp = rb_get_u32(&r);
	m->last = rb_get_u8(&r);
	return rb_rbuf_done(&r) && m->last <= 1 ? 0 : -EPROTO;
}

void rb_verdict_encode(struct rb_wbuf *w, const struct rb_verdict *v)
{
	rb_put_u64(w, v->bad);
	rb_put_u32(w, v->qp);
	rb_put_u64(w, v->msg);
	rb_put_u64(w, v->offset);
	rb_put_u8(w, v->expected);
	rb_put_u8(w, v->got);
}

int rb_verdict_decode(const uint8_t *p, size_t len, struct rb_verdict *v)
{
	struct rb_rbuf r = {p, len, 0, false};

	v->bad = rb_get_u64(&r);
	v->qp = rb_get_u32(&r);
	v->msg = rb_get_u64(&r);
	v->offset = rb_get_u64(&r);
	v->expected = rb_get_u8(&r);
	v->got = rb_get_u8(&r);
	return rb_rbuf_done(&r) && v->qp < RB_WIRE_MAX_QPS ? 0 : -EPROTO;
}

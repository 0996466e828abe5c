/* SPDX-License-Identifier: BSD-2-Clause */
#include "agree.h"

#include "base/base.h"

#include <errno.h>
#include <stdio.h>
#include <time.h>

void rb_agree_encode(struct rb_wbuf *w, const struct rb_agree *a)
{
	rb_put_u64(w, a->seq);
	rb_put_u8(w, a->ok ? 1 : 0);
	rb_put_str(w, a->ok ? "" : a->why);
}

int rb_agree_decode(const uint8_t *p, size_t len, struct rb_agree *a)
{
	struct rb_rbuf r = {p, len, 0, false};
	uint8_t ok;

	a->seq = rb_get_u64(&r);
	ok = rb_get_u8(&r);
	rb_get_str(&r, a->why, sizeof(a->why));
	if (!rb_rbuf_done(&r) || ok > 1 || (ok && a->why[0]))
		return -EPROTO;
	a->ok = ok;
	return 0;
}

int rb_agree(struct rb_oob *o, const struct rb_agree *mine, const char *peer_role)
{
	uint8_t buf[8 + 1 + 2 + RB_WIRE_MSG_LEN];
	struct rb_wbuf w = {buf, 0, sizeof(buf), false};
	struct rb_agree peer;
	struct rb_frame f;
	int ret;

	rb_agree_encode(&w, mine);
	ret = rb_oob_send_w(o, RB_MSG_AGREE, &w);
	if (!ret && mine->seq == RB_AGREE_RUN && rb_fault_kind() == RB_FAULT_VERDICT_LATE) {
		struct timespec late = {1, 0};

		while (nanosleep(&late, &late))
			;
	}
	do
		ret = ret ? ret : rb_oob_recv(o, &f, -1);
	while (!ret && f.type == RB_MSG_PROGRESS);
	if (ret)
		return ret;
	if (f.type != RB_MSG_AGREE || rb_agree_decode(f.p, f.len, &peer) || peer.seq != mine->seq) {
		char what[32] = "the run";

		if (mine->seq != RB_AGREE_RUN)
			snprintf(what, sizeof(what), "step %llu", (unsigned long long)mine->seq);
		rb_err("protocol error: expected the %s's verdict on %s from %s, got %s%s", peer_role, what,
		       o->peer, f.type == RB_MSG_AGREE ? "a malformed or other " : "", rb_msg_name(f.type));
		return -EPROTO;
	}
	if (!peer.ok) {
		rb_err("the %s (%s) judged the run failed: %s", peer_role, o->peer, peer.why);
		return -EIO;
	}
	return 0;
}

/* SPDX-License-Identifier: BSD-2-Clause */
#include "agree.h"

#include "auth.h"
#include "base/base.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

void rb_agree_encode(struct rb_wbuf *w, const struct rb_agree *a)
{
	rb_put_u64(w, a->seq);
	rb_put_u8(w, a->ok ? 1 : 0);
	rb_put_str(w, a->ok ? "" : a->why);
	rb_put_bytes(w, a->echo, sizeof(a->echo));
}

int rb_agree_decode(const uint8_t *p, size_t len, struct rb_agree *a)
{
	struct rb_rbuf r = {p, len, 0, false};
	uint8_t ok;

	a->seq = rb_get_u64(&r);
	ok = rb_get_u8(&r);
	rb_get_str(&r, a->why, sizeof(a->why));
	rb_get_bytes(&r, a->echo, sizeof(a->echo));
	if (!rb_rbuf_done(&r) || ok > 1 || (ok && a->why[0]))
		return -EPROTO;
	a->ok = ok;
	return 0;
}

/* The peer's echo against the chain of what this side sent: 0, or -EPROTO (said). */
static int check_echo(const struct rb_oob *o, const struct rb_agree *peer, const char *peer_role)
{
	if (rb_auth_equal(peer->echo, o->figs_sent, sizeof(peer->echo)))
		return 0;
	rb_err("the %s (%s) took other figures than this side sent in this step (its echo of our DONE and "
	       "figure frames differs): something on the control connection rewrote them; use --auth-key "
	       "where it runs over a network you do not trust",
	       peer_role, o->peer);
	return -EPROTO;
}

int rb_agree(struct rb_oob *o, const struct rb_agree *mine_in, const char *peer_role)
{
	uint8_t buf[8 + 1 + 2 + RB_WIRE_MSG_LEN + RB_WIRE_ECHO_LEN];
	struct rb_wbuf w = {buf, 0, sizeof(buf), false};
	struct rb_agree peer, m = *mine_in, *mine = &m;
	struct rb_frame f;
	int ret;

	memcpy(m.echo, o->figs_rcvd, sizeof(m.echo));
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
	ret = mine->ok ? check_echo(o, &peer, peer_role) : 0;
	memset(o->figs_sent, 0, sizeof(o->figs_sent));
	memset(o->figs_rcvd, 0, sizeof(o->figs_rcvd));
	return ret;
}

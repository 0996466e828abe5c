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
	rb_put_bytes(w, a->sent, sizeof(a->sent));
	rb_put_bytes(w, a->rcvd, sizeof(a->rcvd));
	rb_put_bytes(w, a->mac, sizeof(a->mac));
}

int rb_agree_decode(const uint8_t *p, size_t len, struct rb_agree *a)
{
	struct rb_rbuf r = {p, len, 0, false};
	uint8_t ok;

	a->seq = rb_get_u64(&r);
	ok = rb_get_u8(&r);
	rb_get_str(&r, a->why, sizeof(a->why));
	rb_get_bytes(&r, a->sent, sizeof(a->sent));
	rb_get_bytes(&r, a->rcvd, sizeof(a->rcvd));
	rb_get_bytes(&r, a->mac, sizeof(a->mac));
	if (!rb_rbuf_done(&r) || ok > 1 || (ok && a->why[0]))
		return -EPROTO;
	a->ok = ok;
	return 0;
}

void rb_agree_mac(const uint8_t key[RB_WIRE_ECHO_LEN], const uint8_t *p, size_t len,
                  uint8_t mac[RB_WIRE_ECHO_LEN])
{
	const void *parts[] = {"AGREE", p};
	const size_t lens[] = {5, len - RB_WIRE_ECHO_LEN};

	rb_hmac_sha256(key, RB_WIRE_ECHO_LEN, parts, lens, 2, mac);
}

/*
 * The peer's chains against this side's own the other way round: what it took is
 * what this side sent, what it sent is what this side took. 0, or -EPROTO (said).
 */
static int check_chains(const struct rb_oob *o, const struct rb_agree *peer, const char *peer_role)
{
	const char *why = NULL;

	if (!rb_auth_equal(peer->rcvd, o->figs_sent, sizeof(peer->rcvd)))
		why = "took other figures than this side sent";
	else if (!rb_auth_equal(peer->sent, o->figs_rcvd, sizeof(peer->sent)))
		why = "sent other figures than this side took";
	if (!why)
		return 0;
	rb_err("the %s (%s) %s in this step (its verdict's chain of DONE and the other figure frames "
	       "differs): something on the control connection rewrote them, or the peer misreports them; "
	       "use --auth-key where it runs over a network you do not trust",
	       peer_role, o->peer, why);
	return -EPROTO;
}

int rb_agree(struct rb_oob *o, const struct rb_agree *mine_in, const char *peer_role)
{
	uint8_t buf[8 + 1 + 2 + RB_WIRE_MSG_LEN + 3 * RB_WIRE_ECHO_LEN], mac[RB_WIRE_ECHO_LEN];
	struct rb_wbuf w = {buf, 0, sizeof(buf), false};
	struct rb_agree peer, m = *mine_in, *mine = &m;
	struct rb_frame f;
	int ret;

	memcpy(m.sent, o->figs_sent, sizeof(m.sent));
	memcpy(m.rcvd, o->figs_rcvd, sizeof(m.rcvd));
	memset(m.mac, 0, sizeof(m.mac));
	rb_agree_encode(&w, mine);
	if (!w.err)
		rb_agree_mac(o->figs_key, buf, w.len, buf + w.len - RB_WIRE_ECHO_LEN);
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
	rb_agree_mac(o->figs_key, f.p, f.len, mac);
	if (!rb_auth_equal(mac, peer.mac, sizeof(mac))) {
		rb_err("the %s's verdict (%s) does not carry this connection's MAC: something on the control "
		       "connection rewrote it",
		       peer_role, o->peer);
		return -EPROTO;
	}
	if (!peer.ok) {
		rb_err("the %s (%s) judged the run failed: %s", peer_role, o->peer, peer.why);
		return -EIO;
	}
	ret = mine->ok ? check_chains(o, &peer, peer_role) : 0;
	memset(o->figs_sent, 0, sizeof(o->figs_sent));
	memset(o->figs_rcvd, 0, sizeof(o->figs_rcvd));
	return ret;
}

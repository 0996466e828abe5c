/* SPDX-License-Identifier: BSD-2-Clause */
/* The --auth-key handshake on the out-of-band channel (auth.h: what it proves, and the frames). */
#include "oob_priv.h"

#include "base/base.h"

#include <errno.h>
#include <string.h>

int rb_oob_auth_client(struct rb_oob *o, const struct rb_auth_key *k)
{
	uint8_t nc[RB_AUTH_LEN], ns[RB_AUTH_LEN], proof[RB_AUTH_LEN];
	struct rb_frame f;
	int ret = rb_auth_random(nc, sizeof(nc));

	if (!ret)
		ret = rb_oob_send(o, RB_MSG_AUTH, nc, sizeof(nc));
	/* A server without a key answers REFUSE: a usage error, said by rb_oob_recv. */
	if (!ret)
		ret = rb_oob_recv(o, &f, -1);
	if (ret)
		return ret;
	if (f.type != RB_MSG_CHALLENGE || f.len != 2 * RB_AUTH_LEN) {
		rb_err("protocol error: server %s answered AUTH with %s (%u bytes), not CHALLENGE", o->peer,
		       rb_msg_name(f.type), f.len);
		return -EPROTO;
	}
	memcpy(ns, f.p, sizeof(ns));
	rb_auth_proof(k, 'S', nc, ns, proof);
	if (!rb_auth_equal(proof, f.p + RB_AUTH_LEN, sizeof(proof))) {
		rb_usage_err("server %s does not hold this --auth-key secret (its proof does not match): "
		             "check the key file on both sides",
		             o->peer);
		return -EINVAL;
	}
	rb_auth_proof(k, 'C', nc, ns, proof);
	rb_auth_proof(k, 'F', nc, ns, o->figs_key);
	return rb_oob_send(o, RB_MSG_PROOF, proof, sizeof(proof));
}

int rb_oob_auth_challenge(int fd, const struct rb_auth_key *k, const uint8_t *payload, uint32_t len,
                          uint8_t nonce_c[RB_AUTH_LEN], uint8_t nonce_s[RB_AUTH_LEN])
{
	uint8_t out[2 * RB_AUTH_LEN];

	if (len != RB_AUTH_LEN || rb_auth_random(nonce_s, RB_AUTH_LEN))
		return -EPROTO;
	memcpy(nonce_c, payload, RB_AUTH_LEN);
	memcpy(out, nonce_s, RB_AUTH_LEN);
	rb_auth_proof(k, 'S', nonce_c, nonce_s, out + RB_AUTH_LEN);
	/* Not a moment's wait: a fresh connection's buffer takes it, or it is a stranger's. */
	return rb_oob_write_frame(fd, RB_MSG_CHALLENGE, out, sizeof(out), 0) ? -EPROTO : 0;
}

bool rb_oob_auth_check(const struct rb_auth_key *k, const uint8_t *payload, uint32_t len,
                       const uint8_t nonce_c[RB_AUTH_LEN], const uint8_t nonce_s[RB_AUTH_LEN])
{
	uint8_t want[RB_AUTH_LEN];

	if (len != RB_AUTH_LEN)
		return false;
	rb_auth_proof(k, 'C', nonce_c, nonce_s, want);
	return rb_auth_equal(want, payload, RB_AUTH_LEN);
}

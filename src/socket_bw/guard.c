/* SPDX-License-Identifier: BSD-2-Clause */
/* socket_bw's defences against a peer or a stranger: token, greeting, clock rule, grace. */
#include "guard.h"

#include "oob/oob.h"

#include <errno.h>
#include <string.h>

/* Fixed-size payloads, a few dozen bytes: the framing's small cap. */
const struct rb_msg_def sock_msgs[SOCK_NMSGS] = {
    {SOCK_MSG_SIZE, "SIZE", 256},
    {SOCK_MSG_DATAPORT, "DATAPORT", 256},
    {SOCK_MSG_RXDONE, "RXDONE", 256},
};

void sock_dataport_encode(struct rb_wbuf *w, const struct sock_dataport *d)
{
	rb_put_u64(w, d->port);
	rb_put_bytes(w, d->token, SOCK_TOKEN_LEN);
}

int sock_dataport_decode(const uint8_t *p, size_t len, struct sock_dataport *d)
{
	struct rb_rbuf r = {p, len, 0, false};
	uint64_t port = rb_get_u64(&r);

	rb_get_bytes(&r, d->token, SOCK_TOKEN_LEN);
	if (!rb_rbuf_done(&r) || port == 0 || port > 65535)
		return -EPROTO;
	d->port = (uint16_t)port;
	return 0;
}

void sock_greeting_encode(uint8_t out[SOCK_GREETING_LEN], const uint8_t token[SOCK_TOKEN_LEN], unsigned dir,
                          unsigned idx)
{
	memcpy(out, token, SOCK_TOKEN_LEN);
	out[SOCK_TOKEN_LEN] = (uint8_t)dir;
	out[SOCK_TOKEN_LEN + 1] = (uint8_t)idx;
}

int sock_greeting_check(const uint8_t in[SOCK_GREETING_LEN], const uint8_t token[SOCK_TOKEN_LEN],
                        unsigned *dir, unsigned *idx)
{
	if (!rb_auth_equal(in, token, SOCK_TOKEN_LEN))
		return -EACCES;
	*dir = in[SOCK_TOKEN_LEN];
	*idx = in[SOCK_TOKEN_LEN + 1];
	return 0;
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* socket_bw's defences against a peer or a stranger: token, greeting, the peer's TCP figures. */
#include "guard.h"

#include "base/base.h"
#include "oob/oob.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* Fixed-size payloads, a few dozen bytes: the framing's small cap. */
const struct rb_msg_def sock_msgs[SOCK_NMSGS] = {
    {SOCK_MSG_SIZE, "SIZE", 256, false},    {SOCK_MSG_DATAPORT, "DATAPORT", 256, false},
    {SOCK_MSG_RXDONE, "RXDONE", 256, true}, {SOCK_MSG_TCPINFO, "TCPINFO", 256, true},
    {SOCK_MSG_SRUN, "SRUN", 256, false},    {SOCK_MSG_SRXDONE, "SRXDONE", 256, true},
};

void sock_srxdone_encode(struct rb_wbuf *w, unsigned n, const uint64_t *msgs)
{
	rb_put_u32(w, n);
	for (unsigned i = 0; i < n; i++)
		rb_put_u64(w, msgs[i]);
}

int sock_srxdone_decode(const uint8_t *p, size_t len, unsigned want, uint64_t *msgs)
{
	struct rb_rbuf r = {p, len, 0, false};

	if (rb_get_u32(&r) != want || r.err)
		return -EPROTO;
	for (unsigned i = 0; i < want; i++)
		msgs[i] = rb_get_u64(&r);
	return rb_rbuf_done(&r) ? 0 : -EPROTO;
}

void sock_srun_encode(struct rb_wbuf *w, unsigned stream, uint64_t size, uint32_t count)
{
	rb_put_u32(w, stream);
	rb_msgrun_encode(w, size, count);
}

int sock_srun_decode(const uint8_t *p, size_t len, unsigned nstreams, unsigned *stream, uint64_t *size,
                     uint32_t *count)
{
	struct rb_rbuf r = {p, len, 0, false};

	*stream = rb_get_u32(&r);
	if (r.err || *stream >= nstreams)
		return -EPROTO;
	return rb_msgrun_decode(p + 4, len - 4, size, count);
}

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

void sock_tcp_encode(struct rb_wbuf *w, const struct sock_tcp *t)
{
	rb_put_u32(w, t->nsocks);
	rb_put_u64(w, t->retrans);
	rb_put_f64(w, t->rtt_us);
	rb_put_u64(w, t->cwnd);
	rb_put_str(w, t->cc);
}

int sock_tcp_decode(const uint8_t *p, size_t len, uint32_t max_socks, struct sock_tcp *t)
{
	struct rb_rbuf r = {p, len, 0, false};

	memset(t, 0, sizeof(*t));
	t->nsocks = rb_get_u32(&r);
	t->retrans = rb_get_u64(&r);
	t->rtt_us = rb_get_f64(&r);
	t->cwnd = rb_get_u64(&r);
	/* One kernel's name: at most TCP_CA_NAME_MAX - 1 characters. */
	rb_get_str(&r, t->cc, SOCK_CC_LEN);
	if (!rb_rbuf_done(&r) || !t->nsocks || t->nsocks > max_socks ||
	    t->retrans > (uint64_t)t->nsocks * UINT32_MAX || !isfinite(t->rtt_us) || t->rtt_us < 0 ||
	    t->rtt_us > (double)UINT32_MAX || t->cwnd > UINT32_MAX || !t->cc[0])
		return -EPROTO;
	return 0;
}

int sock_tcp_hold(const char *peer, struct sock_tcp *t, bool have_segs, uint64_t segs, uint64_t window_ns)
{
	double most_us = (double)(window_ns > RB_NS_PER_S ? window_ns : RB_NS_PER_S) / 1e3;

	if (have_segs && t->retrans > segs)
		rb_warn("%s's TCP figures claim %llu segments retransmitted, more than the %llu that arrived "
		        "here: not shown",
		        peer, (unsigned long long)t->retrans, (unsigned long long)segs);
	else if (t->rtt_us > most_us)
		rb_warn("%s's TCP figures claim a %.0f us round trip, longer than the step (%.0f us): not "
		        "shown",
		        peer, t->rtt_us, most_us);
	else
		return 0;
	memset(t, 0, sizeof(*t));
	return 1;
}

void sock_tcp_merge(const struct sock_tcp *client, const struct sock_tcp *server, struct sock_tcp *out)
{
	uint32_t n = client->nsocks + server->nsocks;

	if (!client->nsocks || !server->nsocks) {
		*out = client->nsocks ? *client : *server;
		return;
	}
	out->nsocks = n;
	out->retrans = client->retrans + server->retrans;
	out->rtt_us = (client->rtt_us * client->nsocks + server->rtt_us * server->nsocks) / n;
	out->cwnd = client->cwnd < server->cwnd ? client->cwnd : server->cwnd;
	if (!strcmp(client->cc, server->cc))
		snprintf(out->cc, sizeof(out->cc), "%s", client->cc);
	else
		snprintf(out->cc, sizeof(out->cc), "%.15s/%.15s", client->cc, server->cc);
}

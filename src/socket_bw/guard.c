/* socket_bw's defences against a peer or a stranger: token, greeting, clock rule, grace. */
#include "guard.h"

#include "auth.h"

#include <errno.h>
#include <string.h>

#define NS_PER_MS 1000000ull
#define NS_PER_S  1000000000ull

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

/*
 * Both clocks start when their side passes the barrier: the side whose BARRIER went
 * out first starts up to one trip later. The sender's clock stops when the receiver's
 * RXDONE arrives, one more trip after the receiver's stopped. Two round trips cover
 * both; the 20 ms and the quarter are for scheduling on a loaded host, and keep the
 * rule quiet on short steps, where the figures are the least precise.
 */
uint64_t sock_clock_slack_ns(uint64_t longer_ns, uint64_t rtt_ns)
{
	if (rtt_ns > NS_PER_S)
		rtt_ns = NS_PER_S; /* the peer's stack may delay ACKs: it cannot buy unbounded slack */
	return longer_ns / 4 + 20 * NS_PER_MS + 2 * rtt_ns;
}

bool sock_clocks_agree(uint64_t a_ns, uint64_t b_ns, uint64_t rtt_ns)
{
	uint64_t longer = a_ns > b_ns ? a_ns : b_ns, shorter = a_ns > b_ns ? b_ns : a_ns;

	return longer - shorter <= sock_clock_slack_ns(longer, rtt_ns);
}

/*
 * After -D the sender stops posting; what it published (up to XFER_INFLIGHT, plus the
 * socket buffers) still drains, and the last frames cross. Two seconds cover that on
 * any link of a Gb/s or more; a long step gets a quarter of its length.
 */
uint64_t sock_grace_ns(double duration_s)
{
	uint64_t q = (uint64_t)(duration_s * 1e9 / 4);

	return q > 2 * NS_PER_S ? q : 2 * NS_PER_S;
}

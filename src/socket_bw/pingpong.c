/* SPDX-License-Identifier: BSD-2-Clause */
/* socket_bw --ping-pong: one message each way per round trip over one socket. */
#include "data.h"
#include "pp.h"

#include "base/base.h"
#include "measure/measure.h"
#include "sockio.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* A failed round trip: the peer's own message when it closed after saying why. */
static int pp_fail(struct sock_run *r, int ret, uint64_t i)
{
	int peer;

	if (ret == -EINTR)
		return rb_check_stop();
	if (ret == -ECONNRESET && (peer = sock_hear_peer(r)))
		return peer;
	rb_err("ping-pong round trip %llu: %s", (unsigned long long)i,
	       ret == -ETIMEDOUT    ? "the peer sent nothing within --timeout"
	       : ret == -ECONNRESET ? "the peer closed the connection"
	                            : strerror(-ret));
	return ret;
}

/* One size's transport state: the data socket and the buffer that goes back and forth. */
struct pp_io {
	struct sock_run *r;
	struct sock_io io;
	uint8_t *buf;
	uint64_t size;
};

static int pp_ready(void *t, uint64_t i)
{
	struct pp_io *p = t;

	if (p->r->opt->verify) {
		rb_pattern_fill(p->buf, p->size, rb_pattern_tag(0, i));
		/* Test-only (RB_TEST_FAULT=corrupt:msg=N): one byte of round trip N, flipped. */
		if (rb_fault_at(RB_FAULT_CORRUPT, 0, i))
			p->buf[rb_fault_byte(p->size)] ^= 0xff;
	}
	return 0;
}

static int pp_ping(void *t, uint64_t i)
{
	struct pp_io *p = t;
	int ret = sock_send(&p->io, p->buf, p->size);

	if (!ret)
		ret = sock_recv(&p->io, p->buf, p->size);
	return ret ? pp_fail(p->r, ret, i) : 0;
}

static int pp_after(void *t, uint64_t i)
{
	struct pp_io *p = t;
	size_t bad;
	uint8_t e, g;

	if (!p->r->opt->verify || !rb_pattern_check(p->buf, p->size, rb_pattern_tag(0, i), &bad, &e, &g))
		return 0;
	rb_err("verify: socket 0, message %llu (the echo of round trip %llu, %llu bytes), byte %zu: "
	       "expected 0x%02x, received 0x%02x",
	       (unsigned long long)i, (unsigned long long)i, (unsigned long long)p->size, bad, e, g);
	return -EIO;
}

/* Server: echo round trip i, or 1 when the client's summary arrived on the control connection. */
static int pp_pong(void *t, uint64_t i)
{
	struct pp_io *p = t;
	int ret;

	for (;;) {
		struct pollfd pfd[2] = {{p->io.fd, POLLIN, 0}, {p->r->oob->fd, POLLIN, 0}};
		int pr = poll(pfd, 2, p->io.timeout_ms);

		if (pr < 0 && errno == EINTR) {
			if ((ret = rb_check_stop()))
				return ret;
			continue;
		}
		if (pr == 0)
			return pp_fail(p->r, -ETIMEDOUT, i);
		if (pr < 0) {
			ret = -errno;
			rb_err("ping-pong: poll failed: %s", strerror(-ret));
			return ret;
		}
		if (pfd[1].revents)
			return 1;
		break;
	}
	if ((ret = sock_recv(&p->io, p->buf, p->size)) || (ret = sock_send(&p->io, p->buf, p->size)))
		return pp_fail(p->r, ret, i);
	return 0;
}

static int pp_interval(void *t, const struct rb_pp_result *res, double from_s, double to_s)
{
	struct pp_io *p = t;
	return p->r->pp_interval_row(p->r->row_arg, p->size, res, from_s, to_s);
}

static const struct rb_pp_ops pp_ops = {
    .ready = pp_ready,
    .ping = pp_ping,
    .after = pp_after,
    .pong = pp_pong,
    .interval = pp_interval,
};

int pp_step(struct sock_run *r, uint64_t size, struct rb_pp_result *res)
{
	const struct sock_opts *o = r->opt;
	/* Zeroed and faulted in before the clock (sockio.h). */
	struct pp_io p = {r, {r->c2s[0], (int)o->timeout_s * 1000, NULL, NULL}, sock_buf_alloc(size), size};
	struct rb_pp_cfg cfg = {.iters = o->len.iters,
	                        .duration_s = o->len.duration_s,
	                        .warmup = o->warmup,
	                        .divisor = 2,
	                        .interval_s = r->step->interval_s};
	int ret;

	if (!p.buf) {
		rb_err("out of memory for a %llu-byte ping-pong buffer", (unsigned long long)size);
		return -ENOMEM;
	}
	ret = rb_pp_step(&r->pp, &pp_ops, &p, r->oob, &cfg, r->client, size, res);
	free(p.buf);
	return ret;
}

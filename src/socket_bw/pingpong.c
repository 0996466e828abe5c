/* socket_bw --ping-pong: one message each way per round trip over one socket. */
#include "socket_bw.h"

#include "fault.h"
#include "log.h"
#include "pattern.h"
#include "sig.h"
#include "xfer.h"
#include "timeutil.h"

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

int pp_step(struct sock_run *r, uint64_t size, struct rb_lat_summary *sum)
{
	struct rb_frame f;
	const struct sock_opts *o = r->opt;
	int fd = r->c2s[0], ret;
	struct sock_io io = {fd, (int)o->timeout_s * 1000, NULL, NULL};
	/* Zeroed: without --verify what goes on the wire is never leftover heap. */
	uint8_t *buf = calloc(1, size ? size : 1);
	struct rb_samples smp;
	uint64_t t_meas = 0, t_end = 0;

	if (!buf || rb_samples_init(&smp, o->iters ? o->iters : 1u << 16, 64u << 20)) {
		free(buf);
		rb_err("out of memory for a %llu-byte ping-pong buffer and its samples",
		       (unsigned long long)size);
		return -ENOMEM;
	}
	ret = 0;
	if (!r->client) {
		/* Echo until the client's statistics arrive on the control connection. */
		for (uint64_t i = 1; !ret;) {
			struct pollfd p[2] = {{fd, POLLIN, 0}, {r->oob->fd, POLLIN, 0}};
			int pr;

			ret = rb_check_stop();
			if (ret)
				break;
			pr = poll(p, 2, (int)o->timeout_s * 1000);
			if (pr < 0 && errno == EINTR)
				continue;
			if (pr == 0) {
				ret = pp_fail(r, -ETIMEDOUT, i);
			} else if (pr < 0) {
				ret = -errno;
				rb_err("ping-pong: poll failed: %s", strerror(-ret));
			} else if (p[1].revents) {
				break;
			} else if ((ret = sock_recv(&io, buf, size)) || (ret = sock_send(&io, buf, size))) {
				ret = pp_fail(r, ret, i);
			}
			i++;
		}
		if (!ret)
			ret = rb_oob_expect(r->oob, RB_MSG_LATSTATS, &f, -1);
		if (!ret && rb_latstats_decode(f.p, f.len, sum)) {
			rb_err("malformed LATSTATS from %s", r->oob->peer);
			ret = -EPROTO;
		}
		goto out;
	}
	for (uint64_t i = 1; !ret; i++) {
		uint64_t t0, t1;
		size_t bad;
		uint8_t e, g;

		if (o->iters && i > o->iters + o->warmup)
			break;
		if (!o->iters && t_meas && rb_now_ns() - t_meas >= (uint64_t)(o->duration_s * 1e9))
			break;
		ret = rb_check_stop();
		if (ret)
			break;
		if (o->verify) {
			rb_pattern_fill(buf, size, rb_pattern_tag(0, i));
			/* Test-only (RB_TEST_FAULT=corrupt:msg=N): one byte of round trip N, flipped. */
			if (rb_fault_at(RB_FAULT_CORRUPT, 0, i))
				buf[size / 2] ^= 0xff;
		}
		t0 = rb_now_ns();
		if ((ret = sock_send(&io, buf, size)) || (ret = sock_recv(&io, buf, size))) {
			ret = pp_fail(r, ret, i);
			break;
		}
		t1 = rb_now_ns();
		if (o->verify && rb_pattern_check(buf, size, rb_pattern_tag(0, i), &bad, &e, &g)) {
			rb_err("verify: socket 0, message %llu (the echo of round trip %llu, %llu bytes), "
			       "byte %zu: "
			       "expected 0x%02x, received 0x%02x",
			       (unsigned long long)i, (unsigned long long)i, (unsigned long long)size, bad, e,
			       g);
			ret = -EIO;
			break;
		}
		if (i == o->warmup + 1)
			t_meas = t0;
		if (i > o->warmup && rb_samples_push(&smp, t1 - t0)) {
			rb_err("too many samples in one size; shorten -D");
			ret = -E2BIG;
		}
		t_end = t1;
	}
	if (!ret) {
		uint8_t frame[128];
		struct rb_wbuf w = {frame, 0, sizeof(frame), false};
		rb_lat_summarize(smp.v, smp.n, sum);
		rb_lat_scale(sum, 0.5);
		sum->warmup = o->warmup;
		sum->elapsed_s = t_meas ? (double)(t_end - t_meas) / 1e9 : 0;
		rb_latstats_encode(&w, sum);
		ret = rb_oob_send_w(r->oob, RB_MSG_LATSTATS, &w);
	}
out:
	rb_samples_free(&smp);
	free(buf);
	return ret;
}

/* socket_bw --ping-pong: one message each way per round trip over one socket. */
#include "socket_bw.h"

#include "log.h"
#include "pattern.h"
#include "timeutil.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

static int io_all(int fd, uint8_t *p, uint64_t n, bool tx)
{
	while (n) {
		ssize_t k = tx ? send(fd, p, n, MSG_NOSIGNAL) : recv(fd, p, n, MSG_WAITALL);
		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0)
			return errno == EAGAIN ? -ETIMEDOUT : -errno;
		if (k == 0)
			return -ECONNRESET;
		p += k;
		n -= (uint64_t)k;
	}
	return 0;
}

static int pp_fail(struct sock_run *r, int ret, uint64_t i)
{
	rb_err("ping-pong round trip %llu: %s", (unsigned long long)i,
	       ret == -ETIMEDOUT    ? "the peer sent nothing within --timeout"
	       : ret == -ECONNRESET ? "the peer closed the connection"
	                            : strerror(-ret));
	return ret;
}

int pp_step(struct sock_run *r, uint64_t size, uint64_t seq, struct rb_lat_summary *sum)
{
	struct rb_frame f;
	const struct sock_opts *o = r->opt;
	int fd = r->c2s[0], ret;
	uint8_t *buf = malloc(size);
	struct rb_samples smp;
	uint64_t t_meas = 0, t_end = 0;

	if (!buf || rb_samples_init(&smp, o->iters ? o->iters : 1u << 16, 64u << 20)) {
		free(buf);
		return -ENOMEM;
	}
	ret = rb_oob_barrier(&r->oob, seq);
	if (!ret && !r->client) {
		/* Echo until the client's statistics arrive on the control connection. */
		for (uint64_t i = 1; !ret; i++) {
			struct pollfd p[2] = {{fd, POLLIN, 0}, {r->oob.fd, POLLIN, 0}};
			int pr = poll(p, 2, (int)o->timeout_s * 1000);
			if (pr == 0)
				ret = pp_fail(r, -ETIMEDOUT, i);
			else if (pr < 0)
				ret = -errno;
			else if (p[1].revents)
				break;
			else if ((ret = io_all(fd, buf, size, false)) || (ret = io_all(fd, buf, size, true)))
				ret = pp_fail(r, ret, i);
		}
		if (!ret)
			ret = rb_oob_expect(&r->oob, RB_MSG_LATSTATS, &f, -1);
		if (!ret && rb_latstats_decode(f.p, f.len, sum)) {
			rb_err("malformed LATSTATS from %s", r->oob.peer);
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
		if (o->verify)
			rb_pattern_fill(buf, size, rb_pattern_tag(0, i));
		t0 = rb_now_ns();
		if ((ret = io_all(fd, buf, size, true)) || (ret = io_all(fd, buf, size, false))) {
			ret = pp_fail(r, ret, i);
			break;
		}
		t1 = rb_now_ns();
		if (o->verify && rb_pattern_check(buf, size, rb_pattern_tag(0, i), &bad, &e, &g)) {
			rb_err("verify: echo of round trip %llu byte %zu: expected 0x%02x got 0x%02x",
			       (unsigned long long)i, bad, e, g);
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
		ret = rb_oob_send_w(&r->oob, RB_MSG_LATSTATS, &w);
	}
out:
	rb_samples_free(&smp);
	free(buf);
	return ret;
}

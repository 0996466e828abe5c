/* SPDX-License-Identifier: BSD-2-Clause */
#include "channel.h"

#include "base/base.h"
#include "figures.h"
#include "oob_priv.h"
#include "host/host.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <unistd.h>

void rb_oob_opts_default(struct rb_oob_opts *o)
{
	o->port = 18515;
	o->timeout_s = 60;
	o->bind = NULL;
	o->persist = false;
	o->auth_file = NULL;
	/* The key is not an option's: --all-pairs sets it for its pairs, and rb_run_pair parses again. */
}

struct rb_opt_table rb_oob_opt_table(struct rb_oob_opts *o)
{
	static const struct rb_opt rows[] = {
	    {.name = "port",
	     .key = 'p',
	     .type = RB_OPT_U32,
	     .off = offsetof(struct rb_oob_opts, port),
	     .arg = "PORT",
	     .help = "TCP port of the out-of-band channel (default 18515)",
	     .min = 1,
	     .max = 65535},
	    {.name = "oob-timeout",
	     .type = RB_OPT_U32,
	     .off = offsetof(struct rb_oob_opts, timeout_s),
	     .arg = "SEC",
	     .help = "give up connecting/accepting/waiting on the peer after SEC s (default 60)",
	     .min = 1,
	     .max = 86400},
	    {.name = "bind",
	     .type = RB_OPT_STR,
	     .off = offsetof(struct rb_oob_opts, bind),
	     .arg = "ADDR",
	     .help = "server: listen on ADDR only (default: all addresses)"},
	    {.name = "persist",
	     .type = RB_OPT_FLAG,
	     .off = offsetof(struct rb_oob_opts, persist),
	     .help = "server: serve clients one after another until SIGINT/SIGTERM, waiting for each without "
	             "--oob-timeout; run N writes FILE-N.EXT for --csv/--json FILE.EXT"},
	    {.name = "auth-key",
	     .type = RB_OPT_STR,
	     .off = offsetof(struct rb_oob_opts, auth_file),
	     .arg = "FILE",
	     .help = "both sides prove the secret in FILE (owner-only; default: $RB_AUTH_KEY if set) before "
	             "anything else; a server given one refuses every client without it"},
	    {0},
	};
	return (struct rb_opt_table){"Out-of-band channel (TCP)", rows, o, false, NULL};
}

void rb_oob_set_nodelay(int fd)
{
	int one = 1;
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

void rb_oob_peer_name(int fd, char *buf, size_t len)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char host[NI_MAXHOST], serv[NI_MAXSERV];

	memset(&ss, 0, sizeof(ss));
	if (getpeername(fd, (struct sockaddr *)&ss, &sl) ||
	    (ss.ss_family != AF_INET && ss.ss_family != AF_INET6) ||
	    getnameinfo((struct sockaddr *)&ss, sl, host, sizeof(host), serv, sizeof(serv),
	                NI_NUMERICHOST | NI_NUMERICSERV)) {
		snprintf(buf, len, "(local)");
		return;
	}
	/* An IPv4 client on the dual-stack listener: show it as the IPv4 address it is. */
	snprintf(buf, len, "%s:%s", strncmp(host, "::ffff:", 7) || !strchr(host, '.') ? host : host + 7,
	         serv);
}

void rb_oob_from_fd(int fd, int timeout_ms, struct rb_oob *out)
{
	/* A peer that stops reading must not hold a send forever either. */
	struct timeval tv = {timeout_ms / 1000, (timeout_ms % 1000) * 1000};

	memset(out, 0, sizeof(*out));
	out->fd = fd;
	out->timeout_ms = timeout_ms;
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	rb_oob_peer_name(fd, out->peer, sizeof(out->peer));
}

/*
 * After an ERROR, close without a reset: a close with unread bytes (the peer's
 * heartbeat) sends RST, which can discard the ERROR before the peer reads it. So
 * FIN first, then read and drop until the peer closes too, for at most
 * RB_OOB_LINGER_MS.
 */
static void linger_close(int fd)
{
	uint64_t deadline = rb_now_ns() + (uint64_t)RB_OOB_LINGER_MS * 1000000ull;
	uint8_t sink[4096];

	shutdown(fd, SHUT_WR);
	for (;;) {
		struct pollfd pfd = {fd, POLLIN, 0};
		uint64_t now = rb_now_ns();

		if (now >= deadline || poll(&pfd, 1, (int)((deadline - now + 999999) / 1000000)) <= 0)
			break;
		ssize_t n = recv(fd, sink, sizeof(sink), MSG_DONTWAIT);

		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
			break; /* the peer closed: it has read what we sent */
	}
}

void rb_oob_close(struct rb_oob *o)
{
	if (o->fd >= 0 && o->said_error)
		linger_close(o->fd);
	if (o->fd >= 0)
		close(o->fd);
	o->said_error = false;
	o->stopped = false;
	o->arrived = 0;
	o->fd = -1;
	free(o->rx);
	o->rx = NULL;
	o->rx_cap = 0;
}

/*
 * Header and payload in one sendmsg(): with TCP_NODELAY two writes would be two
 * segments, and the peer's reader would wake twice per frame. A short write (a full
 * socket buffer) continues where it stopped.
 */
static int write_frame(int fd, const uint8_t *hdr, const void *payload, size_t len, int timeout_ms)
{
	struct iovec iov[2] = {{(void *)hdr, RB_WIRE_HDR_LEN}, {(void *)payload, len}};
	struct msghdr mh = {.msg_iov = iov, .msg_iovlen = len ? 2 : 1};
	/* One deadline for the whole frame: a peer that reads a little at a time gets no fresh timeout. */
	uint64_t deadline = rb_now_ns() + (uint64_t)timeout_ms * 1000000ull;

	while (mh.msg_iovlen) {
		ssize_t w = sendmsg(fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w < 0) {
			uint64_t now = rb_now_ns();
			struct pollfd pfd = {fd, POLLOUT, 0};

			if (errno == EINTR && !rb_stop_signal())
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK)
				return -errno;
			/* The peer stopped reading. */
			if (now >= deadline)
				return -ETIMEDOUT;
			if (poll(&pfd, 1, (int)((deadline - now + 999999) / 1000000)) < 0 && errno == EINTR &&
			    rb_stop_signal())
				return -EINTR;
			continue;
		}
		while (mh.msg_iovlen && (size_t)w >= mh.msg_iov->iov_len) {
			w -= (ssize_t)mh.msg_iov->iov_len;
			mh.msg_iov++;
			mh.msg_iovlen--;
		}
		if (mh.msg_iovlen) {
			mh.msg_iov->iov_base = (uint8_t *)mh.msg_iov->iov_base + w;
			mh.msg_iov->iov_len -= (size_t)w;
		}
	}
	return 0;
}

int rb_oob_send(struct rb_oob *o, uint16_t type, const void *payload, uint32_t len)
{
	uint8_t hdr[RB_WIRE_HDR_LEN];
	int ret;

	if (len > rb_msg_max_len(type)) {
		rb_err("internal error: %u-byte %s frame exceeds its %u-byte limit", len, rb_msg_name(type),
		       rb_msg_max_len(type));
		return -EMSGSIZE;
	}
	rb_frame_hdr_encode(hdr, type, len);
	ret = write_frame(o->fd, hdr, payload, len, o->timeout_ms);
	if (!ret && rb_msg_figures(type))
		rb_figs_chain(o->figs_key, o->figs_sent, type, (const uint8_t *)payload, len);
	if (ret == -EPIPE || ret == -ECONNRESET) {
		rb_err("peer %s closed the connection (while sending %s)", o->peer, rb_msg_name(type));
		return -ECONNRESET;
	}
	if (ret == -ETIMEDOUT)
		rb_err("peer %s took nothing for %d ms while we sent %s (timeout)", o->peer, o->timeout_ms,
		       rb_msg_name(type));
	else if (ret)
		rb_err("out-of-band send of %s to %s failed: %s", rb_msg_name(type), o->peer, strerror(-ret));
	return ret;
}

int rb_oob_send_w(struct rb_oob *o, uint16_t type, const struct rb_wbuf *w)
{
	if (w->err) {
		rb_err("internal error: %s frame does not fit", rb_msg_name(type));
		return -EMSGSIZE;
	}
	return rb_oob_send(o, type, w->p, (uint32_t)w->len);
}

/*
 * Reads exactly n bytes before the deadline. A stop (a signal, the run's time
 * limit) ends a wait, not the reading of what had arrived by then: a peer's last
 * verdict, in before the signal, is still taken. Only those bytes: the count is
 * taken when the stop is first seen, so a peer that keeps sending holds no one.
 */
static int read_all(struct rb_oob *o, uint8_t *p, size_t n, uint64_t deadline)
{
	while (n) {
		struct pollfd pfd = {o->fd, POLLIN, 0};
		uint64_t now = rb_now_ns();
		int ms, pr, stop = rb_check_stop();
		ssize_t r;

		if (stop && !o->stopped) {
			int q = 0;

			o->stopped = true;
			o->arrived = ioctl(o->fd, FIONREAD, &q) == 0 && q > 0 ? (uint32_t)q : 0;
		}
		if (stop) {
			if (o->arrived < n)
				return -EINTR;
			r = recv(o->fd, p, n, MSG_DONTWAIT);
			if (r <= 0)
				return -EINTR;
			o->arrived -= (uint32_t)r;
			p += r;
			n -= (size_t)r;
			continue;
		}
		if (now >= deadline)
			return -ETIMEDOUT;
		ms = (int)((deadline - now + 999999) / 1000000);
		pr = poll(&pfd, 1, ms);
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr < 0)
			return -errno;
		if (pr == 0)
			return -ETIMEDOUT;
		r = recv(o->fd, p, n, 0);
		if (r < 0 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return -ECONNRESET;
		p += r;
		n -= (size_t)r;
	}
	return 0;
}

/* Grows the channel's receive buffer to hold n bytes (n is capped by the frame type). */
int rb_oob_rx_reserve(struct rb_oob *o, uint32_t n)
{
	uint8_t *p;

	if (n <= o->rx_cap)
		return 0;
	p = realloc(o->rx, n);
	if (!p) {
		rb_err("out of memory for a %u-byte frame", n);
		return -ENOMEM;
	}
	o->rx = p;
	o->rx_cap = n;
	return 0;
}

/*
 * One frame into the channel's buffer, without a word: returns 0, -ETIMEDOUT,
 * -ECONNRESET, -EINTR, -EPROTO (*why says what was wrong) or another -errno.
 */
static int recv_frame(struct rb_oob *o, struct rb_frame *f, int timeout_ms, char *why, size_t whylen)
{
	uint8_t hdr[RB_WIRE_HDR_LEN];
	struct rb_frame_hdr h;
	const char *reason = "";
	uint64_t deadline = rb_now_ns() + (uint64_t)timeout_ms * 1000000ull;
	int ret = read_all(o, hdr, sizeof(hdr), deadline);

	if (ret)
		return ret;
	ret = rb_frame_hdr_decode(hdr, &h, &reason);
	if (ret) {
		snprintf(why, whylen, "%s (type %u, %u bytes)", reason, h.type, h.len);
		return ret;
	}
	ret = rb_oob_rx_reserve(o, h.len ? h.len : 1);
	if (!ret)
		ret = read_all(o, o->rx, h.len, deadline);
	if (ret)
		return ret;
	f->type = h.type;
	f->len = h.len;
	f->p = o->rx;
	if (rb_msg_figures(h.type))
		rb_figs_chain(o->figs_key, o->figs_rcvd, h.type, o->rx, h.len);
	return 0;
}

int rb_oob_recv(struct rb_oob *o, struct rb_frame *f, int timeout_ms)
{
	char why[128] = "";
	int ret;

	if (timeout_ms < 0)
		timeout_ms = o->timeout_ms;
	ret = recv_frame(o, f, timeout_ms, why, sizeof(why));
	if (ret == -EINTR)
		return ret; /* the cause (the signal) is logged already */
	if (ret == -EPROTO) {
		rb_err("malformed frame from %s: %s", o->peer, why);
		return ret;
	}
	if (ret == -ETIMEDOUT) {
		rb_err("peer %s sent nothing for %d ms (timeout)", o->peer, timeout_ms);
		return ret;
	}
	if (ret == -ECONNRESET) {
		rb_err("peer %s closed the connection", o->peer);
		return ret;
	}
	if (ret) {
		rb_err("out-of-band receive from %s failed: %s", o->peer, strerror(-ret));
		return ret;
	}
	if (f->type == RB_MSG_REFUSE) {
		if (rb_text_decode(f->p, f->len, o->peer_error, sizeof(o->peer_error)))
			snprintf(o->peer_error, sizeof(o->peer_error), "(unreadable message)");
		/* What this side asked for is beyond the server's limits or rules: bad input. */
		rb_usage_err("server %s refused this run: %s", o->peer, o->peer_error);
		return -EINVAL;
	}
	if (f->type == RB_MSG_ERROR) {
		if (rb_text_decode(f->p, f->len, o->peer_error, sizeof(o->peer_error)))
			snprintf(o->peer_error, sizeof(o->peer_error), "(unreadable message)");
		if (o->role)
			rb_err("peer %s (the %s) failed: %s", o->peer, o->role, o->peer_error);
		else
			rb_err("peer %s failed: %s", o->peer, o->peer_error);
		return -EREMOTEIO;
	}
	return 0;
}

int rb_oob_expect(struct rb_oob *o, uint16_t type, struct rb_frame *f, int timeout_ms)
{
	int ret = rb_oob_recv(o, f, timeout_ms);

	if (ret)
		return ret;
	if (f->type != type) {
		rb_err("protocol error: expected %s from %s, got %s", rb_msg_name(type), o->peer,
		       rb_msg_name(f->type));
		return -EPROTO;
	}
	return 0;
}

int rb_oob_readable(struct rb_oob *o, int timeout_ms)
{
	struct pollfd pfd = {o->fd, POLLIN, 0};
	int pr = poll(&pfd, 1, timeout_ms);

	if (pr < 0)
		return errno == EINTR ? 0 : -errno;
	return pr > 0;
}

int rb_oob_write_frame(int fd, uint16_t type, const void *payload, uint32_t len, int timeout_ms)
{
	uint8_t hdr[RB_WIRE_HDR_LEN];

	rb_frame_hdr_encode(hdr, type, len);
	return write_frame(fd, hdr, payload, len, timeout_ms);
}

/* ERROR or REFUSE: best effort, never blocks longer than timeout_ms. */
__attribute__((format(printf, 4, 0))) static void send_text(int fd, int timeout_ms, uint16_t type,
                                                            const char *fmt, va_list ap)
{
	uint8_t buf[RB_WIRE_MSG_LEN + 8];
	struct rb_wbuf w = {buf, 0, sizeof(buf), false};
	char msg[RB_WIRE_MSG_LEN];

	if (fd < 0)
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	rb_text_encode(&w, msg);
	/* The peer may be gone already; that is not worth a second message. */
	if (!w.err)
		rb_oob_write_frame(fd, type, buf, (uint32_t)w.len, timeout_ms);
}

void rb_oob_send_error(struct rb_oob *o, const char *fmt, ...)
{
	va_list ap;

	if (!o)
		return;
	va_start(ap, fmt);
	send_text(o->fd, o->timeout_ms < 1000 ? o->timeout_ms : 1000, RB_MSG_ERROR, fmt, ap);
	va_end(ap);
	o->said_error = o->fd >= 0;
}

void rb_oob_send_refuse(struct rb_oob *o, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	send_text(o->fd, o->timeout_ms < 1000 ? o->timeout_ms : 1000, RB_MSG_REFUSE, fmt, ap);
	va_end(ap);
}

void rb_oob_refuse_now(int fd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	send_text(fd, 0, RB_MSG_REFUSE, fmt, ap);
	va_end(ap);
}

static void report_mismatch(void *ctx, const char *key, const char *l, const char *r)
{
	(void)ctx;
	rb_usage_err("param %s mismatch: local=%s remote=%s", key, l, r);
}

/* A server's: the first mismatch, the rest counted; said once, as the candidate's refusal. */
/*
 * A server's: every mismatch said as the client sees it (its value local, ours
 * remote) for the candidate's REFUSE, and as we see it for our refusal line.
 */
struct mismatch {
	char theirs[RB_WIRE_MSG_LEN - 64], ours[RB_WIRE_MSG_LEN - 64];
	size_t len[2];
	unsigned n;
};

static void add(char *buf, size_t cap, size_t *len, const char *key, const char *l, const char *r)
{
	int k;

	if (*len >= cap - 1)
		return;
	k = snprintf(buf + *len, cap - *len, "%sparam %s mismatch: local=%s remote=%s", *len ? "; " : "", key,
	             l, r);
	*len = k < 0 ? *len : *len + (size_t)k;
}

static void note_mismatch(void *ctx, const char *key, const char *ours, const char *theirs)
{
	struct mismatch *m = ctx;

	m->n++;
	add(m->theirs, sizeof(m->theirs), &m->len[0], key, theirs, ours);
	add(m->ours, sizeof(m->ours), &m->len[1], key, ours, theirs);
}

int rb_oob_refusal(struct rb_oob *o, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(o->refusal, sizeof(o->refusal), fmt, ap);
	va_end(ap);
	return -EPROTO;
}

/*
 * Server: the candidate's HELLO (screened already) against ours, before ours is
 * sent: one that disagrees learns only where, in a REFUSE, and is refused.
 */
static int judge(struct rb_oob *o, const struct rb_hello *local, struct rb_hello *remote)
{
	struct mismatch m = {"", "", {0, 0}, 0};

	o->have_hello = false;
	if (rb_hello_decode(o->rx, o->hello_len, remote))
		return rb_oob_refusal(o, "sent a malformed HELLO");
	if (strcmp(local->version, remote->version))
		rb_warn("peer runs version %s, this is %s", remote->version, local->version);
	if (!rb_hello_compare(local, remote, note_mismatch, &m))
		return 0;
	rb_oob_send_refuse(o, "%s", m.theirs);
	return rb_oob_refusal(o, "%s", m.ours);
}

int rb_oob_negotiate(struct rb_oob *o, const struct rb_hello *local, struct rb_hello *remote)
{
	uint8_t *buf;
	struct rb_wbuf w;
	struct rb_frame f;
	int ret = !o->server ? 0 : o->have_hello ? judge(o, local, remote) : rb_oob_refusal(o, "no HELLO");

	if (ret)
		return ret;
	buf = malloc(rb_msg_max_len(RB_MSG_HELLO));
	if (!buf) {
		rb_err("out of memory");
		return -ENOMEM;
	}
	w = (struct rb_wbuf){buf, 0, rb_msg_max_len(RB_MSG_HELLO), false};
	rb_hello_encode(&w, local);
	ret = rb_oob_send_w(o, RB_MSG_HELLO, &w);
	free(buf);
	/* A server has judged the client's HELLO already. */
	if (ret || o->server)
		return ret;
	ret = rb_oob_expect(o, RB_MSG_HELLO, &f, -1);
	if (ret)
		return ret;
	if (rb_hello_decode(f.p, f.len, remote)) {
		rb_err("malformed HELLO from %s", o->peer);
		return -EPROTO;
	}
	if (strcmp(local->tool, remote->tool)) {
		rb_usage_err("peer %s runs %s, not %s", o->peer, remote->tool, local->tool);
		return -EPROTO;
	}
	if (strcmp(local->version, remote->version))
		rb_warn("peer runs version %s, this is %s", remote->version, local->version);
	return rb_hello_compare(local, remote, report_mismatch, NULL) ? -EINVAL : 0;
}

int rb_oob_screen(struct rb_oob *o, const struct rb_hello *local, struct rb_hello *remote)
{
	if (!o->have_hello || rb_hello_decode(o->rx, o->hello_len, remote))
		return rb_oob_refusal(o, "sent a malformed HELLO");
	if (strcmp(local->tool, remote->tool)) {
		rb_oob_send_refuse(o, "this server does not run %s", remote->tool);
		return rb_oob_refusal(o, "a client of %s, not %s", remote->tool, local->tool);
	}
	return 0;
}

int rb_oob_barrier(struct rb_oob *o, uint64_t seq)
{
	uint8_t buf[16];
	struct rb_wbuf w = {buf, 0, sizeof(buf), false};
	struct rb_frame f;
	uint64_t got = 0;
	int ret;

	rb_u64_encode(&w, seq);
	o->barrier_ns = rb_now_ns();
	ret = rb_oob_send_w(o, RB_MSG_BARRIER, &w);
	if (!ret)
		ret = rb_oob_expect(o, RB_MSG_BARRIER, &f, -1);
	if (ret)
		return ret;
	if (rb_u64_decode(f.p, f.len, &got) || got != seq) {
		rb_err("protocol error: barrier %llu from %s, expected %llu", (unsigned long long)got,
		       o->peer, (unsigned long long)seq);
		return -EPROTO;
	}
	return 0;
}

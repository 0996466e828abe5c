/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The server end of the out-of-band channel: the listener, the candidates whose HELLO is
 * still being read (at most RB_OOB_PENDING at once), and strangers refused.
 */
#include "channel.h"

#include "base/base.h"
#include "oob_priv.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/*
 * RB_OOB_LISTEN_FD=N: the listener is N, a listening socket this process was started
 * with (a --victim run: the rank that exec'd it keeps the port across rounds). 0 when
 * taken (the variable is cleared, so no child of ours sees it), 1 when there is none,
 * or -EINVAL (said) when N is no listening socket.
 */
static int adopt(struct rb_oob_server *srv)
{
	const char *s = getenv("RB_OOB_LISTEN_FD");
	uint64_t fd;
	int acc = 0;
	socklen_t len = sizeof(acc);

	if (!s)
		return 1;
	if (rb_parse_u64_range(s, 3, INT_MAX, &fd) ||
	    getsockopt((int)fd, SOL_SOCKET, SO_ACCEPTCONN, &acc, &len) || !acc) {
		rb_usage_err(
		    "invalid value '%s' for RB_OOB_LISTEN_FD (allowed: a listening socket this process "
		    "was started with)",
		    s);
		return -EINVAL;
	}
	unsetenv("RB_OOB_LISTEN_FD");
	fcntl((int)fd, F_SETFD, FD_CLOEXEC);
	fcntl((int)fd, F_SETFL, fcntl((int)fd, F_GETFL) | O_NONBLOCK);
	srv->fd = (int)fd;
	return 0;
}

int rb_oob_listen(const struct rb_oob_opts *o, struct rb_oob_server *srv)
{
	struct addrinfo hints = {0}, *ai = NULL, *a;
	char port[16];
	int lfd = -1, ret, one = 1;

	memset(srv, 0, sizeof(*srv));
	srv->fd = -1;
	for (unsigned i = 0; i < RB_OOB_PENDING; i++)
		srv->pend[i].fd = -1;
	srv->o = o;
	/* A persistent server waits for its next client until it is stopped. */
	srv->deadline = o->persist ? UINT64_MAX : rb_now_ns() + (uint64_t)o->timeout_s * 1000000000ull;
	if ((ret = adopt(srv)) <= 0)
		return ret;
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE;
	snprintf(port, sizeof(port), "%u", o->port);
	ret = getaddrinfo(o->bind, port, &hints, &ai);
	if (ret) {
		rb_usage_err("cannot resolve listen address '%s': %s", o->bind ? o->bind : "*",
		             gai_strerror(ret));
		return -EINVAL;
	}
	/* Prefer the IPv6 wildcard (it takes IPv4 too), fall back to the rest. */
	for (int pass = 0; pass < 2 && lfd < 0; pass++) {
		for (a = ai; a && lfd < 0; a = a->ai_next) {
			if ((pass == 0) != (a->ai_family == AF_INET6))
				continue;
			/* Non-blocking: processes that share it (a pattern's flows) all wake for one
			 * connection, and those that lose the race must not block in accept (pend_accept
			 * takes EAGAIN). */
			lfd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
			if (lfd < 0) {
				ret = -errno;
				continue;
			}
			setsockopt(lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
			if (a->ai_family == AF_INET6) {
				int zero = 0;
				setsockopt(lfd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
			}
			if (bind(lfd, a->ai_addr, a->ai_addrlen) || listen(lfd, SOMAXCONN)) {
				ret = -errno;
				close(lfd);
				lfd = -1;
			}
		}
	}
	freeaddrinfo(ai);
	if (lfd < 0 && ret == -EADDRNOTAVAIL && o->bind) {
		rb_usage_err("invalid value '%s' for --bind: no interface of this host has that address",
		             o->bind);
		return -EINVAL;
	}
	if (lfd < 0) {
		rb_err("cannot listen on port %u: %s", o->port, strerror(-ret));
		return ret ? ret : -EADDRNOTAVAIL;
	}
	srv->fd = lfd;
	return 0;
}

/* Milliseconds from now until t, at least 1 while any time is left; at most an hour. */
static int ms_until(uint64_t t)
{
	uint64_t now = rb_now_ns(), hour = 3600ull * 1000000000ull;

	if (now >= t)
		return 0;
	return t - now > hour ? (int)(hour / 1000000) : (int)((t - now + 999999) / 1000000);
}

static int ms_left(const struct rb_oob_server *srv)
{
	return ms_until(srv->deadline);
}

static void note_refusal(struct rb_oob_server *srv, const char *peer, const char *why)
{
	uint64_t now = rb_now_ns();
	char more[64] = "";

	srv->refused++;
	snprintf(srv->last_peer, sizeof(srv->last_peer), "%s", peer);
	snprintf(srv->last_why, sizeof(srv->last_why), "%s", why);
	/* A few lines per window, then one with the count: a flood must not fill the log. */
	if (!srv->logged_at || now - srv->logged_at >= RB_OOB_REFUSAL_LOG_S * 1000000000ull) {
		if (srv->unlogged)
			snprintf(more, sizeof(more), " (and %u other(s) not shown since %u s ago)",
			         srv->unlogged, (unsigned)((now - srv->logged_at) / 1000000000ull));
		srv->logged_at = now;
		srv->in_window = 0;
		srv->unlogged = 0;
	}
	if (srv->in_window++ >= RB_OOB_REFUSAL_BURST) {
		srv->unlogged++;
		return;
	}
	if (srv->o->persist)
		rb_warn("refused a connection from %s: %s%s; still waiting for a client", peer, why, more);
	else
		rb_warn("refused a connection from %s: %s%s; still waiting for the peer (%d s left)", peer,
		        why, more, ms_left(srv) / 1000);
}

static void pend_drop(struct rb_oob_server *srv, struct rb_oob_pending *p, const char *why)
{
	if (why)
		note_refusal(srv, p->peer, why);
	close(p->fd);
	p->fd = -1;
	p->got = 0;
}

enum { PEND_FIRST, PEND_PROOF, PEND_HELLO };

/*
 * Reads the rest of a new connection's current frame without blocking: 1 when it is
 * whole (header in h), 0 while more may come, -EPROTO (why) when it is no frame of ours.
 */
static int pend_frame(struct rb_oob_pending *p, struct rb_frame_hdr *h, char *why, size_t whylen)
{
	const char *reason = "";
	uint32_t want = RB_WIRE_HDR_LEN;

	for (;;) {
		ssize_t r;

		if (p->got >= RB_WIRE_HDR_LEN) {
			if (rb_frame_hdr_decode(p->buf, h, &reason)) {
				snprintf(why, whylen, "%s (type %u, %u bytes)", reason, h->type, h->len);
				return -EPROTO;
			}
			/* Before the HELLO only the small handshake frames: no more is read than they hold.
			 */
			if (h->type != RB_MSG_HELLO && h->type != RB_MSG_AUTH && h->type != RB_MSG_PROOF) {
				snprintf(why, whylen, "began with %s instead of HELLO", rb_msg_name(h->type));
				return -EPROTO;
			}
			want = RB_WIRE_HDR_LEN + h->len;
			if (p->got == want)
				return 1;
		}
		r = recv(p->fd, p->buf + p->got, want - p->got, MSG_DONTWAIT);
		if (r > 0) {
			p->got += (uint32_t)r;
			continue;
		}
		if (r == 0) {
			snprintf(why, whylen, "%s",
			         p->stage == PEND_PROOF
			             ? "closed the connection after our CHALLENGE (its --auth-key "
			               "differs from ours?)"
			             : "closed the connection before sending a HELLO");
			return -EPROTO;
		}
		if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
			return 0;
		snprintf(why, whylen, "%s", strerror(errno));
		return -EPROTO;
	}
}

/* The --auth-key frames before the HELLO: 0 to read on, -EPROTO (why) for a stranger. */
static int pend_auth(const struct rb_auth_key *k, struct rb_oob_pending *p, const struct rb_frame_hdr *h,
                     char *why, size_t whylen)
{
	const uint8_t *payload = p->buf + RB_WIRE_HDR_LEN;

	if (p->stage == PEND_FIRST && !k->set) {
		rb_oob_refuse_now(p->fd, "this server runs without --auth-key");
		snprintf(why, whylen, "offered --auth-key to a server without one");
		return -EPROTO;
	}
	if (p->stage == PEND_FIRST && h->type == RB_MSG_AUTH &&
	    !rb_oob_auth_challenge(p->fd, k, payload, h->len, p->nonce_c, p->nonce_s)) {
		p->stage = PEND_PROOF;
		return 0;
	}
	if (p->stage == PEND_PROOF && h->type == RB_MSG_PROOF &&
	    rb_oob_auth_check(k, payload, h->len, p->nonce_c, p->nonce_s)) {
		p->stage = PEND_HELLO;
		return 0;
	}
	rb_oob_refuse_now(p->fd, "authentication failed (this server requires the right --auth-key)");
	snprintf(why, whylen, "failed authentication (%s)",
	         p->stage == PEND_FIRST ? "it offered no key" : "its key differs");
	return -EPROTO;
}

/*
 * Reads what a new connection has sent so far, without blocking: 1 when it has
 * proven the key (if this server has one) and sent a well-formed HELLO, 0 while that
 * may still come, -EPROTO (why) when the connection is a stranger.
 */
static int pend_read(const struct rb_auth_key *k, struct rb_oob_pending *p, char *why, size_t whylen)
{
	static struct rb_hello scratch;
	struct rb_frame_hdr h;
	int r;

	for (;;) {
		r = pend_frame(p, &h, why, whylen);
		if (r <= 0)
			return r;
		p->got = 0;
		if (h.type == RB_MSG_HELLO && (p->stage == PEND_HELLO || !k->set))
			break;
		r = pend_auth(k, p, &h, why, whylen);
		if (r)
			return r;
	}
	p->got = RB_WIRE_HDR_LEN + h.len;
	if (!rb_hello_decode(p->buf + RB_WIRE_HDR_LEN, h.len, &scratch))
		return 1;
	snprintf(why, whylen, "sent a malformed HELLO");
	return -EPROTO;
}

/* A new connection into a free slot; when all are taken, one least far in its handshake goes. */
static int pend_accept(struct rb_oob_server *srv)
{
	struct rb_oob_pending *p = NULL;
	int fd = accept4(srv->fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

	if (fd < 0) {
		int ret = -errno;
		if (ret == -EINTR || ret == -ECONNABORTED || ret == -EAGAIN)
			return 0;
		rb_err("accept on port %u failed: %s", srv->o->port, strerror(-ret));
		return ret;
	}
	/* Room for it: a free slot, else the one least far in its handshake, the oldest of those. */
	for (unsigned i = 0; i < RB_OOB_PENDING; i++) {
		struct rb_oob_pending *q = &srv->pend[i];
		if (q->fd < 0) {
			p = q;
			break;
		}
		if (!p || q->stage < p->stage || (q->stage == p->stage && q->since < p->since))
			p = q;
	}
	if (p->fd >= 0)
		pend_drop(srv, p,
		          "more new connections than the server reads at once; this one was the least far");
	if (!p->buf && !(p->buf = malloc(RB_WIRE_HDR_LEN + rb_msg_max_len(RB_MSG_HELLO)))) {
		close(fd);
		rb_err("out of memory");
		return -ENOMEM;
	}
	p->fd = fd;
	p->since = rb_now_ns();
	p->got = 0;
	p->stage = PEND_FIRST;
	rb_oob_peer_name(fd, p->peer, sizeof(p->peer));
	return 0;
}

/* Hands a connection whose HELLO is complete to out, the HELLO kept for rb_oob_negotiate. */
static int pend_take(struct rb_oob_server *srv, struct rb_oob_pending *p, struct rb_oob *out)
{
	uint32_t len = p->got - RB_WIRE_HDR_LEN;
	int fd = p->fd;

	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	rb_oob_set_nodelay(fd);
	rb_oob_from_fd(fd, (int)srv->o->timeout_s * 1000, out);
	out->role = "client";
	out->server = true;
	p->fd = -1;
	p->got = 0;
	if (rb_oob_rx_reserve(out, len ? len : 1)) {
		rb_oob_close(out);
		return -ENOMEM;
	}
	memcpy(out->rx, p->buf + RB_WIRE_HDR_LEN, len);
	if (srv->o->key.set)
		rb_auth_proof(&srv->o->key, 'F', p->nonce_c, p->nonce_s, out->figs_key);
	out->have_hello = true;
	out->hello_len = len;
	return 0;
}

int rb_oob_next_client(struct rb_oob_server *srv, struct rb_oob *out)
{
	for (;;) {
		struct pollfd pfd[1 + RB_OOB_PENDING];
		uint64_t wake = srv->deadline;
		int ret;

		if (rb_check_stop())
			return -EINTR;
		bool busy = false;

		for (unsigned i = 0; i < RB_OOB_PENDING; i++)
			busy = busy || srv->pend[i].fd >= 0;
		pfd[0] = (struct pollfd){srv->single && busy ? -1 : srv->fd, POLLIN, 0};
		for (unsigned i = 0; i < RB_OOB_PENDING; i++) {
			const struct rb_oob_pending *p = &srv->pend[i];
			uint64_t until = p->since + RB_OOB_HELLO_MS * 1000000ull;
			pfd[1 + i] = (struct pollfd){p->fd, POLLIN, 0};
			if (p->fd >= 0 && until < wake)
				wake = until;
		}
		if (!ms_left(srv)) {
			if (srv->refused)
				rb_err(
				    "no rdmabench client connected to port %u within %u s (--oob-timeout); "
				    "refused %u other connection(s), the last from %s: %s",
				    srv->o->port, srv->o->timeout_s, srv->refused, srv->last_peer,
				    srv->last_why);
			else
				rb_err("no client connected to port %u within %u s (--oob-timeout)",
				       srv->o->port, srv->o->timeout_s);
			return -ETIMEDOUT;
		}
		ret = poll(pfd, 1 + RB_OOB_PENDING, ms_until(wake));
		if (ret < 0 && errno == EINTR)
			continue;
		if (ret < 0) {
			ret = -errno;
			rb_err("poll on port %u failed: %s", srv->o->port, strerror(-ret));
			return ret;
		}
		for (unsigned i = 0; i < RB_OOB_PENDING; i++) {
			struct rb_oob_pending *p = &srv->pend[i];
			char why[160] = "";
			int r;

			if (p->fd < 0)
				continue;
			r = pfd[1 + i].revents ? pend_read(&srv->o->key, p, why, sizeof(why)) : 0;
			if (r == 1)
				return pend_take(srv, p, out);
			if (!r && !ms_until(p->since + RB_OOB_HELLO_MS * 1000000ull)) {
				if (p->got)
					snprintf(why, sizeof(why),
					         "sent %u bytes, not a whole HELLO, in %d ms", p->got,
					         RB_OOB_HELLO_MS);
				else
					snprintf(why, sizeof(why), "sent nothing for %d ms", RB_OOB_HELLO_MS);
				r = -EPROTO;
			}
			if (r < 0)
				pend_drop(srv, p, why);
		}
		if (pfd[0].fd >= 0 && (pfd[0].revents & POLLIN) && (ret = pend_accept(srv)))
			return ret;
	}
}

void rb_oob_refuse(struct rb_oob_server *srv, struct rb_oob *c, const char *why)
{
	note_refusal(srv, c->peer, why);
	rb_oob_close(c);
}

void rb_oob_server_close(struct rb_oob_server *srv)
{
	if (srv->fd >= 0)
		close(srv->fd);
	srv->fd = -1;
	for (unsigned i = 0; i < RB_OOB_PENDING; i++) {
		if (srv->pend[i].fd >= 0)
			close(srv->pend[i].fd);
		srv->pend[i].fd = -1;
		free(srv->pend[i].buf);
		srv->pend[i].buf = NULL;
	}
}

int rb_oob_accept(const struct rb_oob_opts *o, struct rb_oob *out)
{
	struct rb_oob_server srv;
	int ret = rb_oob_listen(o, &srv);

	if (!ret)
		ret = rb_oob_next_client(&srv, out);
	rb_oob_server_close(&srv);
	return ret;
}

/*
 * One non-blocking connect, bounded by the deadline: a host that drops SYNs would
 * otherwise hold a blocking connect() for the kernel's two-minute SYN retry budget.
 */

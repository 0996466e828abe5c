/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * socket_bw data connections: listen, connect, identify by the run's token, tune; and
 * after one closed under us, the peer's word on the control connection.
 */
#include "data.h"
#include "segs.h"

#include "base/base.h"
#include "host/host.h"
#include "sockio.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <netdb.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef SO_ZEROCOPY
#define SO_ZEROCOPY 60
#endif

/*
 * The kernel doubles SO_SNDBUF/SO_RCVBUF (its bookkeeping's share) and caps them at
 * net.core.[wr]mem_max: says so once when it gave less than twice what was asked.
 * Returns what it gave.
 */
static int set_buf(int fd, int opt, uint64_t want, const char *name, const char *sysctl)
{
	static bool warned[2];
	int got = 0;
	socklen_t gl = sizeof(got);
	bool *w = &warned[opt == SO_RCVBUF];

	setsockopt(fd, SOL_SOCKET, opt, &(int){(int)want}, sizeof(int));
	if (getsockopt(fd, SOL_SOCKET, opt, &got, &gl))
		return 0;
	if ((uint64_t)got < 2 * want && !*w) {
		*w = true;
		rb_warn("%s %llu: the kernel gives %d bytes (doubled, capped by net.core.%s)", name,
		        (unsigned long long)want, got, sysctl);
	}
	return got;
}

/* Buffer sizes go on before connect/listen: they decide the TCP window scale. */
static int tune(struct sock_run *r, int fd)
{
	const struct sock_opts *o = r->opt;
	int one = 1;
	/* Blocked calls wake up this often to look at the stop signal; sockio.c counts the timeout. */
	struct timeval tv = {0, SOCK_SLICE_MS * 1000};
	uint64_t snd = sock_sndbuf(o), rcv = sock_rcvbuf(o);

	if (!o->no_nodelay)
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (snd)
		r->sndbuf_got = set_buf(fd, SO_SNDBUF, snd, o->sndbuf ? "--sndbuf" : "-w", "wmem_max");
	if (rcv)
		r->rcvbuf_got = set_buf(fd, SO_RCVBUF, rcv, o->rcvbuf ? "--rcvbuf" : "-w", "rmem_max");
	/* Without it MSG_ZEROCOPY is silently ignored: the run would measure copies. */
	if (o->zerocopy && setsockopt(fd, SOL_SOCKET, SO_ZEROCOPY, &one, sizeof(one))) {
		rb_usage_err(
		    "--zerocopy: SO_ZEROCOPY is not supported on this system: %s (Linux 4.14 or later)",
		    strerror(errno));
		return -EINVAL;
	}
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	return 0;
}

static int data_count(const struct sock_run *r)
{
	return r->opt->pingpong ? 1 : (int)(r->total * (r->opt->bidir ? 2 : 1));
}

static int ms_left(uint64_t deadline)
{
	uint64_t now = rb_now_ns();
	return now >= deadline ? 0 : (int)((deadline - now + 999999) / 1000000);
}

/*
 * The data port's token: 128 bits from the kernel, drawn per run. Only the client
 * that got DATAPORT over the control connection can open a data connection.
 */
static int token_new(uint8_t token[SOCK_TOKEN_LEN])
{
	size_t have = 0;

	while (have < SOCK_TOKEN_LEN) {
		/* GRND_NONBLOCK: a pool not yet seeded (early boot) is an error, never a wait. */
		ssize_t n = getrandom(token + have, SOCK_TOKEN_LEN - have, GRND_NONBLOCK);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			int ret = -errno;
			rb_err("getrandom: cannot draw the data port's token: %s", strerror(-ret));
			return ret;
		}
		have += (size_t)n;
	}
	return 0;
}

/*
 * Connections accepted on the data port whose greeting has not all arrived. Ours
 * send theirs at once; a stranger that sends nothing is dropped, oldest first, when
 * more wait, so it can neither stall the accept loop nor fill the table.
 */
#define DOOR_PENDING 16

struct pending {
	int fd;
	size_t have;
	uint8_t got[SOCK_GREETING_LEN];
	struct sockaddr_storage from;
	socklen_t fl;
};

/* The data listener while serve_data waits for the run's connections. */
struct door {
	struct sock_run *r;
	int lfd;
	struct pending p[DOOR_PENDING];
	unsigned np;
	int got, want;
	unsigned refused;
	char first[NI_MAXHOST + 80]; /* the first refusal: from where, and why */
};

/* Pending connection i leaves the table (its fd closed when close_it). */
static void door_remove(struct door *d, unsigned i, bool close_it)
{
	if (close_it)
		close(d->p[i].fd);
	memmove(&d->p[i], &d->p[i + 1], (d->np - i - 1) * sizeof(d->p[0]));
	d->np--;
}

/*
 * Not one of ours: closed, never counted. Only the first is remembered: a stranger
 * that keeps connecting costs one summary line per run (serve_data), not a flood.
 */
static void refuse(struct door *d, unsigned i, const char *why)
{
	struct pending *p = &d->p[i];
	char host[NI_MAXHOST] = "?";

	if (!d->refused++) {
		getnameinfo((const struct sockaddr *)&p->from, p->fl, host, sizeof(host), NULL, 0,
		            NI_NUMERICHOST);
		/* A dual-stack listener sees IPv4 peers as ::ffff:a.b.c.d: say a.b.c.d. */
		snprintf(d->first, sizeof(d->first), "%s: %s",
		         strncmp(host, "::ffff:", 7) || !strchr(host, '.') ? host : host + 7, why);
	}
	door_remove(d, i, true);
}

/* A whole greeting: the stream it names becomes ours, or the connection is refused. */
static int admit(struct door *d, unsigned i)
{
	struct sock_run *r = d->r;
	unsigned dir, idx;
	int fd = d->p[i].fd, *slot;

	if (sock_greeting_check(d->p[i].got, r->token, &dir, &idx)) {
		refuse(d, i, "not this run's token");
		return 0;
	}
	/* Only the streams this run uses: s2c with -b or -R (then no c2s), and ping-pong's one c2s. */
	slot = dir > 1 || (dir == 1 && !r->opt->bidir && !r->opt->reverse) || (dir == 0 && r->opt->reverse) ||
	               idx >= (r->opt->pingpong ? 1 : r->total)
	           ? NULL
	           : &(dir == 0 ? r->c2s : r->s2c)[idx];
	if (!slot || *slot >= 0) {
		refuse(d, i, "a stream that does not exist or is already connected");
		return 0;
	}
	door_remove(d, i, false);
	if (tune(r, fd)) {
		close(fd);
		return -EINVAL;
	}
	*slot = fd;
	d->got++;
	return 0;
}

/* Reads what pending connection i has sent so far; never blocks, never reads past the greeting. */
static int hear(struct door *d, unsigned i)
{
	struct pending *p = &d->p[i];
	ssize_t n = recv(p->fd, p->got + p->have, sizeof(p->got) - p->have, MSG_DONTWAIT);

	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		return 0;
	if (n <= 0) {
		refuse(d, i, n ? "it failed before its greeting" : "it closed before its greeting");
		return 0;
	}
	p->have += (size_t)n;
	return p->have < sizeof(p->got) ? 0 : admit(d, i);
}

/* One connection off the listener, into the pending table. */
static int take(struct door *d)
{
	struct pending p = {.fl = sizeof(p.from)};
	int ret;

	p.fd = accept4(d->lfd, (struct sockaddr *)&p.from, &p.fl, SOCK_CLOEXEC);
	if (p.fd < 0 && (errno == EINTR || errno == ECONNABORTED || errno == EAGAIN || errno == EWOULDBLOCK))
		return 0;
	if (p.fd < 0) {
		ret = -errno;
		rb_err("accept on the data port failed: %s", strerror(-ret));
		return ret;
	}
	if (d->np == DOOR_PENDING)
		refuse(d, 0, "it sent no greeting while others waited");
	d->p[d->np++] = p;
	return 0;
}

/* Until every data connection of the run arrived, or the deadline. */
/*
 * The control connection while the data connections are awaited, looked at without
 * taking what waits there: a close ends the wait at once (-ECONNRESET: a candidate
 * gone before its run began), the client's ERROR is its cause, bytes that are no
 * frame of ours make it a stranger (-EPROTO). A frame of the run (the client's
 * BARRIER, sent once its connections are up) waits its turn: *quiet stops the look.
 */
static int control_spoke(struct door *d, bool *quiet)
{
	struct rb_oob *o = d->r->oob;
	uint8_t hdr[RB_WIRE_HDR_LEN];
	struct rb_frame_hdr h;
	struct rb_frame f;
	const char *why = "";
	ssize_t n = recv(o->fd, hdr, sizeof(hdr), MSG_PEEK | MSG_DONTWAIT);

	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? 0 : -errno;
	if (n == 0) {
		rb_err("peer %s closed the connection before its data connections arrived", o->peer);
		return -ECONNRESET;
	}
	*quiet = true;
	if ((size_t)n < sizeof(hdr))
		return 0;
	if (rb_frame_hdr_decode(hdr, &h, &why)) {
		rb_err("malformed frame from %s while its data connections were awaited: %s", o->peer, why);
		return -EPROTO;
	}
	return h.type == RB_MSG_ERROR ? rb_oob_recv(o, &f, 1000) : 0;
}

static int door_wait(struct door *d, uint64_t deadline)
{
	struct pollfd pfd[2 + DOOR_PENDING];
	bool quiet = false;
	int ret = 0;

	while (d->got < d->want && !ret) {
		int ms = ms_left(deadline), pr;

		pfd[0] = (struct pollfd){d->lfd, POLLIN, 0};
		pfd[1] = (struct pollfd){quiet ? -1 : d->r->oob->fd, POLLIN, 0};
		for (unsigned i = 0; i < d->np; i++)
			pfd[2 + i] = (struct pollfd){d->p[i].fd, POLLIN, 0};
		pr = ms ? poll(pfd, 2 + d->np, ms) : 0;
		if (pr < 0 && errno == EINTR) {
			ret = rb_check_stop();
			continue;
		}
		if (pr <= 0) {
			rb_err("only %d of %d data connections arrived within %u s", d->got, d->want,
			       d->r->opt->timeout_s);
			return -ETIMEDOUT;
		}
		if (pfd[1].revents && (ret = control_spoke(d, &quiet)))
			return ret;
		/* From the top: a removal moves only entries already looked at. */
		for (unsigned i = d->np; i-- > 0 && !ret;)
			if (pfd[2 + i].revents)
				ret = hear(d, i);
		if (!ret && pfd[0].revents)
			ret = take(d);
	}
	return ret;
}

/* The listener where the control connection arrived (the chosen interface), and its port. */
static int listen_data(struct sock_run *r, int backlog, int *lfd, uint16_t *port)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	int ret, fd;

	if (getsockname(r->oob->fd, (struct sockaddr *)&ss, &sl)) {
		ret = -errno;
		rb_err("getsockname on the control connection: %s", strerror(-ret));
		return ret;
	}
	((struct sockaddr_in *)&ss)->sin_port = 0; /* same offset for IPv6 */
	/* Non-blocking: a connection reset between poll and accept must not block accept. */
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd >= 0 && tune(r, fd)) {
		close(fd);
		return -EINVAL;
	}
	if (fd < 0 || bind(fd, (struct sockaddr *)&ss, sl) || listen(fd, backlog) ||
	    getsockname(fd, (struct sockaddr *)&ss, &sl)) {
		ret = -errno;
		rb_err("cannot open the data listener: %s", strerror(-ret));
		if (fd >= 0)
			close(fd);
		return ret;
	}
	*lfd = fd;
	*port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
	return 0;
}

int serve_data(struct sock_run *r)
{
	uint8_t buf[64];
	struct rb_wbuf w = {buf, 0, sizeof(buf), false};
	struct sock_dataport dp;
	struct door d = {.r = r, .lfd = -1, .want = data_count(r)};
	int ret = token_new(r->token);

	if (!ret)
		ret = listen_data(r, d.want + DOOR_PENDING, &d.lfd, &dp.port);
	if (ret)
		return ret;
	memcpy(dp.token, r->token, SOCK_TOKEN_LEN);
	sock_dataport_encode(&w, &dp);
	ret = rb_oob_send_w(r->oob, SOCK_MSG_DATAPORT, &w);
	if (!ret)
		ret = door_wait(&d, rb_now_ns() + (uint64_t)r->opt->timeout_s * 1000000000ull);
	/* Still greeting when ours are all here: strangers. */
	while (d.np)
		refuse(&d, d.np - 1, "no complete greeting");
	close(d.lfd);
	if (d.refused)
		rb_warn("data port: refused %u connection(s) that did not open with this run's token, none "
		        "counted (the first from %s)",
		        d.refused, d.first);
	return ret;
}

int connect_data(struct sock_run *r)
{
	struct rb_frame f;
	struct sockaddr_storage peer;
	socklen_t pl = sizeof(peer);
	struct sock_dataport dp;
	int ret = rb_oob_expect(r->oob, SOCK_MSG_DATAPORT, &f, -1), n = data_count(r);
	const int timeout_ms = (int)r->opt->timeout_s * 1000;

	if (ret)
		return ret;
	if (sock_dataport_decode(f.p, f.len, &dp)) {
		rb_err("malformed DATAPORT from %s (%u bytes)", r->oob->peer, f.len);
		return -EPROTO;
	}
	memcpy(r->token, dp.token, SOCK_TOKEN_LEN);
	if (getpeername(r->oob->fd, (struct sockaddr *)&peer, &pl)) {
		ret = -errno;
		rb_err("getpeername on the control connection: %s", strerror(-ret));
		return ret;
	}
	((struct sockaddr_in *)&peer)->sin_port = htons(dp.port);
	for (int i = 0; i < n; i++) {
		/* -b: the c2s streams, then the s2c ones; -R: s2c only. */
		int dir = r->opt->reverse || i >= (int)r->total ? 1 : 0, idx = i % (int)r->total;
		uint8_t hdr[SOCK_GREETING_LEN];
		int fd = socket(peer.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
		struct sock_io io = {fd, timeout_ms, NULL, NULL};

		if (fd < 0) {
			ret = -errno;
			rb_err("cannot open data socket %d: %s", i, strerror(-ret));
			return ret;
		}
		if (r->opt->ifname && r->nif.family == peer.ss_family &&
		    bind(fd, (struct sockaddr *)&r->nif.addr, r->nif.addrlen)) {
			ret = -errno;
			rb_err("cannot bind a data socket to %s (%s): %s", r->nif.addr_str, r->nif.name,
			       strerror(-ret));
			close(fd);
			return ret;
		}
		ret = tune(r, fd);
		if (!ret)
			ret = rb_connect_bounded(fd, (struct sockaddr *)&peer, pl,
			                         rb_now_ns() + (uint64_t)timeout_ms * 1000000ull);
		sock_greeting_encode(hdr, r->token, (unsigned)dir, (unsigned)idx);
		if (!ret)
			ret = sock_send(&io, hdr, sizeof(hdr));
		if (ret == -EINTR)
			ret = rb_check_stop();
		else if (ret && ret != -EINVAL)
			rb_err("data connection %d to %s port %u failed: %s", i, r->oob->peer, dp.port,
			       ret == -ETIMEDOUT ? "no answer within --timeout" : strerror(-ret));
		if (ret) {
			close(fd);
			return ret;
		}
		(dir == 0 ? r->c2s : r->s2c)[idx] = fd;
	}
	return 0;
}

int sock_hear_peer(struct sock_run *r)
{
	uint64_t deadline = rb_now_ns() + RB_NS_PER_S;
	struct rb_frame f;

	/* Frames sent before the failure (sizes of messages that will not come) are passed over. */
	for (;;) {
		uint64_t now = rb_now_ns();
		int ret;

		if (now >= deadline || rb_oob_readable(r->oob, (int)((deadline - now) / 1000000) + 1) <= 0)
			return 0;
		ret = rb_oob_recv(r->oob, &f, 1000);
		if (ret)
			return ret;
	}
}

/* The data sockets whose TCP figures this side reports: those it sends on (ping-pong: its one). */
static unsigned tcp_socks(const struct sock_run *r, const int **fds)
{
	if (r->opt->pingpong) {
		*fds = r->c2s;
		return 1;
	}
	*fds = r->client ? r->c2s : r->s2c;
	return sock_sends(r) ? r->total : 0;
}

void sock_tcp_mark(struct sock_run *r)
{
	const int *fds;
	unsigned n = tcp_socks(r, &fds);

	for (unsigned i = 0; i < n; i++) {
		struct tcp_info ti = {0};
		socklen_t tl = sizeof(ti);

		r->retrans0[i] =
		    getsockopt(fds[i], IPPROTO_TCP, TCP_INFO, &ti, &tl) ? 0 : ti.tcpi_total_retrans;
	}
	r->segs_known = !r->opt->pingpong && sock_receives(r);
	for (unsigned i = 0; r->segs_known && i < r->total; i++)
		r->segs_known = !sock_segs_in(r->client ? r->s2c[i] : r->c2s[i], &r->segs0[i]);
}

bool sock_segs_rcvd(const struct sock_run *r, uint64_t *segs)
{
	*segs = 0;
	for (unsigned i = 0; r->segs_known && i < r->total; i++) {
		uint32_t now;

		if (sock_segs_in(r->client ? r->s2c[i] : r->c2s[i], &now))
			return false;
		*segs += (uint32_t)(now - r->segs0[i]); /* a 32-bit count, across a wrap */
	}
	return r->segs_known;
}

int sock_tcp_read(const struct sock_run *r, struct sock_tcp *t)
{
	const int *fds;
	unsigned n = tcp_socks(r, &fds);
	double rtt = 0;
	socklen_t cl = SOCK_CC_LEN;

	memset(t, 0, sizeof(*t));
	for (unsigned i = 0; i < n; i++) {
		struct tcp_info ti = {0};
		socklen_t tl = sizeof(ti);

		if (getsockopt(fds[i], IPPROTO_TCP, TCP_INFO, &ti, &tl)) {
			int ret = -errno;
			rb_err("TCP_INFO of data socket %u: %s", i, strerror(-ret));
			return ret;
		}
		/* The counter is the socket's life's, 32 bits: the step's share, across a wrap. */
		t->retrans += (uint32_t)(ti.tcpi_total_retrans - r->retrans0[i]);
		rtt += ti.tcpi_rtt;
		if (!i || ti.tcpi_snd_cwnd < t->cwnd)
			t->cwnd = ti.tcpi_snd_cwnd;
	}
	if (n && getsockopt(fds[0], IPPROTO_TCP, TCP_CONGESTION, t->cc, &cl)) {
		int ret = -errno;
		rb_err("TCP_CONGESTION of data socket 0: %s", strerror(-ret));
		return ret;
	}
	t->cc[SOCK_CC_LEN - 1] = '\0';
	t->nsocks = n;
	t->rtt_us = n ? rtt / n : NAN;
	return 0;
}

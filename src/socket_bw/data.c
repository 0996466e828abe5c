/* socket_bw data connections: listen, connect, identify, tune. */
#include "socket_bw.h"

#include "log.h"
#include "sig.h"
#include "xfer.h"
#include "timeutil.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef SO_ZEROCOPY
#define SO_ZEROCOPY 60
#endif

#define DATA_MAGIC 0x5242u /* "RB" in the first bytes of every data connection */

/* The kernel doubles SO_SNDBUF/SO_RCVBUF and caps them at net.core.[wr]mem_max: say so once. */
static void set_buf(int fd, int opt, uint64_t want, const char *name, const char *sysctl)
{
	static bool warned[2];
	int got = 0;
	socklen_t gl = sizeof(got);
	bool *w = &warned[opt == SO_RCVBUF];

	setsockopt(fd, SOL_SOCKET, opt, &(int){(int)want}, sizeof(int));
	if (!getsockopt(fd, SOL_SOCKET, opt, &got, &gl) && (uint64_t)got < 2 * want && !*w) {
		*w = true;
		rb_warn("--%s %llu: the kernel gives %d bytes (doubled, capped by net.core.%s)", name,
		        (unsigned long long)want, got, sysctl);
	}
}

/* Buffer sizes go on before connect/listen: they decide the TCP window scale. */
static int tune(const struct sock_opts *o, int fd)
{
	int one = 1;
	/* Blocked calls wake up this often to look at the stop signal; sock_xfer.c counts the timeout. */
	struct timeval tv = {0, SOCK_SLICE_MS * 1000};

	if (!o->no_nodelay)
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (o->sndbuf)
		set_buf(fd, SO_SNDBUF, o->sndbuf, "sndbuf", "wmem_max");
	if (o->rcvbuf)
		set_buf(fd, SO_RCVBUF, o->rcvbuf, "rcvbuf", "rmem_max");
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
 * Reads and checks one data connection's 4-byte introduction. Returns 0 with the
 * stream stored in r, 1 when the connection is not one of ours (a stranger, or a
 * stream we have already: closed with a warning), or -errno.
 */
static int identify(struct sock_run *r, int fd, const struct sockaddr_storage *from, socklen_t fl,
                    uint64_t deadline)
{
	struct sock_io io = {fd, ms_left(deadline), NULL, NULL};
	char host[NI_MAXHOST] = "?";
	uint8_t hdr[4] = {0};
	int ret = sock_recv(&io, hdr, sizeof(hdr)), dir = hdr[2], idx = hdr[3];
	const char *why = NULL;

	if (ret == -EINTR)
		return rb_check_stop();
	if (ret)
		why = ret == -ETIMEDOUT ? "it sent nothing" : "it closed";
	else if ((hdr[0] << 8 | hdr[1]) != DATA_MAGIC)
		why = "no socket_bw greeting";
	else if (dir > 1 || idx >= (int)r->total || (dir == 0 ? r->c2s : r->s2c)[idx] >= 0)
		why = "a stream that does not exist or is already connected";
	if (!why) {
		(dir == 0 ? r->c2s : r->s2c)[idx] = fd;
		return 0;
	}
	getnameinfo((const struct sockaddr *)from, fl, host, sizeof(host), NULL, 0, NI_NUMERICHOST);
	rb_warn("data port: connection from %s refused (%s); still waiting for %s", host, why, r->oob->peer);
	close(fd);
	return 1;
}

int serve_data(struct sock_run *r)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	uint8_t buf[16];
	struct rb_wbuf w = {buf, 0, sizeof(buf), false};
	uint64_t deadline;
	int lfd, ret, n = data_count(r), got = 0;

	/* Listen where the control connection arrived: the chosen interface. */
	if (getsockname(r->oob->fd, (struct sockaddr *)&ss, &sl)) {
		ret = -errno;
		rb_err("getsockname on the control connection: %s", strerror(-ret));
		return ret;
	}
	((struct sockaddr_in *)&ss)->sin_port = 0; /* same offset for IPv6 */
	lfd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd >= 0 && tune(r->opt, lfd)) {
		close(lfd);
		return -EINVAL;
	}
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&ss, sl) || listen(lfd, n) ||
	    getsockname(lfd, (struct sockaddr *)&ss, &sl)) {
		ret = -errno;
		rb_err("cannot open the data listener: %s", strerror(-ret));
		if (lfd >= 0)
			close(lfd);
		return ret;
	}
	rb_u64_encode(&w, ntohs(((struct sockaddr_in *)&ss)->sin_port));
	ret = rb_oob_send_w(r->oob, RB_MSG_DATAPORT, &w);
	deadline = rb_now_ns() + (uint64_t)r->opt->timeout_s * 1000000000ull;
	while (got < n && !ret) {
		struct pollfd p = {lfd, POLLIN, 0};
		struct sockaddr_storage from;
		socklen_t fl = sizeof(from);
		int fd, pr = ms_left(deadline) ? poll(&p, 1, ms_left(deadline)) : 0;

		if (pr < 0 && errno == EINTR) {
			ret = rb_check_stop();
			continue;
		}
		if (pr <= 0) {
			rb_err("only %d of %d data connections arrived within %u s", got, n,
			       r->opt->timeout_s);
			ret = -ETIMEDOUT;
			break;
		}
		fd = accept4(lfd, (struct sockaddr *)&from, &fl, SOCK_CLOEXEC);
		if (fd < 0 && (errno == EINTR || errno == ECONNABORTED || errno == EAGAIN))
			continue;
		if (fd < 0) {
			ret = -errno;
			rb_err("accept on the data port failed: %s", strerror(-ret));
			break;
		}
		ret = tune(r->opt, fd);
		if (!ret)
			ret = identify(r, fd, &from, fl, deadline);
		else
			close(fd);
		if (ret == 0)
			got++;
		else if (ret == 1)
			ret = 0; /* a stranger: the wait goes on */
	}
	close(lfd);
	return ret;
}

/* connect() bounded by timeout_ms (a blocking one waits out the kernel's SYN retries). */
static int connect_bounded(int fd, const struct sockaddr *sa, socklen_t sl, int timeout_ms)
{
	uint64_t deadline = rb_now_ns() + (uint64_t)timeout_ms * 1000000ull;
	int fl = fcntl(fd, F_GETFL), err = 0, pr = 0;
	socklen_t el = sizeof(err);

	fcntl(fd, F_SETFL, fl | O_NONBLOCK);
	if (connect(fd, sa, sl) && errno != EINPROGRESS)
		return -errno;
	/* In slices, so that a stop is noticed while the peer does not answer. */
	while (pr <= 0) {
		struct pollfd p = {fd, POLLOUT, 0};

		if (!ms_left(deadline))
			return -ETIMEDOUT;
		pr = poll(&p, 1, SOCK_SLICE_MS);
		if (pr < 0 && errno != EINTR)
			return -errno;
		if (rb_stop_signal())
			return -EINTR;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el))
		return -errno;
	fcntl(fd, F_SETFL, fl);
	return -err;
}

int connect_data(struct sock_run *r)
{
	struct rb_frame f;
	struct sockaddr_storage peer;
	socklen_t pl = sizeof(peer);
	uint64_t port = 0;
	int ret = rb_oob_expect(r->oob, RB_MSG_DATAPORT, &f, -1), n = data_count(r);
	const int timeout_ms = (int)r->opt->timeout_s * 1000;

	if (ret)
		return ret;
	if (rb_u64_decode(f.p, f.len, &port) || port == 0 || port > 65535) {
		rb_err("malformed DATAPORT from %s", r->oob->peer);
		return -EPROTO;
	}
	if (getpeername(r->oob->fd, (struct sockaddr *)&peer, &pl)) {
		ret = -errno;
		rb_err("getpeername on the control connection: %s", strerror(-ret));
		return ret;
	}
	((struct sockaddr_in *)&peer)->sin_port = htons((uint16_t)port);
	for (int i = 0; i < n; i++) {
		int dir = i < (int)r->total ? 0 : 1, idx = i % (int)r->total;
		uint8_t hdr[4] = {DATA_MAGIC >> 8, DATA_MAGIC & 0xff, (uint8_t)dir, (uint8_t)idx};
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
		ret = tune(r->opt, fd);
		if (!ret)
			ret = connect_bounded(fd, (struct sockaddr *)&peer, pl, timeout_ms);
		if (!ret)
			ret = sock_send(&io, hdr, sizeof(hdr));
		if (ret == -EINTR)
			ret = rb_check_stop();
		else if (ret && ret != -EINVAL)
			rb_err("data connection %d to %s port %llu failed: %s", i, r->oob->peer,
			       (unsigned long long)port,
			       ret == -ETIMEDOUT ? "no answer within --timeout" : strerror(-ret));
		if (ret) {
			close(fd);
			return ret;
		}
		(dir == 0 ? r->c2s : r->s2c)[idx] = fd;
	}
	return 0;
}

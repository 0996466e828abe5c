/* socket_bw data connections: listen, connect, identify, tune. */
#include "socket_bw.h"

#include "log.h"
#include "timeutil.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#ifndef SO_ZEROCOPY
#define SO_ZEROCOPY 60
#endif

#define DATA_MAGIC 0x5242u /* "RB" in the first bytes of every data connection */

static void tune(const struct sock_opts *o, int fd)
{
	int one = 1;
	struct timeval tv = {(time_t)o->timeout_s, 0};

	if (!o->no_nodelay)
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (o->sndbuf)
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &(int){(int)o->sndbuf}, sizeof(int));
	if (o->rcvbuf)
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &(int){(int)o->rcvbuf}, sizeof(int));
	if (o->zerocopy && setsockopt(fd, SOL_SOCKET, SO_ZEROCOPY, &one, sizeof(one)))
		rb_warn("SO_ZEROCOPY not supported here: %s (sending with copies)", strerror(errno));
	/* Every blocking send/recv on a data socket is bounded. */
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
}

static int data_count(const struct sock_run *r)
{
	return r->opt->pingpong ? 1 : (int)(r->total * (r->opt->bidir ? 2 : 1));
}

int serve_data(struct sock_run *r)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	uint8_t buf[16];
	struct rb_wbuf w = {buf, 0, sizeof(buf), false};
	int lfd, ret, n = data_count(r);

	/* Listen where the control connection arrived: the chosen interface. */
	if (getsockname(r->oob.fd, (struct sockaddr *)&ss, &sl))
		return -errno;
	((struct sockaddr_in *)&ss)->sin_port = 0; /* same offset for IPv6 */
	lfd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (lfd < 0 || bind(lfd, (struct sockaddr *)&ss, sl) || listen(lfd, n) ||
	    getsockname(lfd, (struct sockaddr *)&ss, &sl)) {
		ret = -errno;
		rb_err("cannot open the data listener: %s", strerror(errno));
		if (lfd >= 0)
			close(lfd);
		return ret;
	}
	rb_u64_encode(&w, ntohs(((struct sockaddr_in *)&ss)->sin_port));
	ret = rb_oob_send_w(&r->oob, RB_MSG_DATAPORT, &w);
	for (int i = 0; i < n && !ret; i++) {
		struct pollfd p = {lfd, POLLIN, 0};
		uint8_t hdr[4];
		int fd, dir, idx;

		if (poll(&p, 1, (int)r->opt->timeout_s * 1000) <= 0) {
			rb_err("only %d of %d data connections arrived within %u s", i, n, r->opt->timeout_s);
			ret = -ETIMEDOUT;
			break;
		}
		fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0) {
			ret = -errno;
			break;
		}
		tune(r->opt, fd);
		/* Which stream is this? Validate before use: a stray client gets nothing. */
		if (recv(fd, hdr, 4, MSG_WAITALL) != 4 || (hdr[0] << 8 | hdr[1]) != DATA_MAGIC) {
			rb_err("a data connection did not identify itself; closed");
			close(fd);
			ret = -EPROTO;
			break;
		}
		dir = hdr[2];
		idx = hdr[3];
		if (dir > 1 || idx >= (int)r->total || (dir == 0 ? r->c2s : r->s2c)[idx] >= 0) {
			rb_err(
			    "data connection with direction %d index %d refused (expected %u per direction)",
			    dir, idx, r->total);
			close(fd);
			ret = -EPROTO;
			break;
		}
		(dir == 0 ? r->c2s : r->s2c)[idx] = fd;
	}
	close(lfd);
	return ret;
}

int connect_data(struct sock_run *r)
{
	struct rb_frame f;
	struct sockaddr_storage peer;
	socklen_t pl = sizeof(peer);
	uint64_t port = 0;
	int ret = rb_oob_expect(&r->oob, RB_MSG_DATAPORT, &f, -1), n = data_count(r);

	if (ret)
		return ret;
	if (rb_u64_decode(f.p, f.len, &port) || port == 0 || port > 65535) {
		rb_err("malformed DATAPORT from %s", r->oob.peer);
		return -EPROTO;
	}
	if (getpeername(r->oob.fd, (struct sockaddr *)&peer, &pl))
		return -errno;
	((struct sockaddr_in *)&peer)->sin_port = htons((uint16_t)port);
	for (int i = 0; i < n; i++) {
		int dir = i < (int)r->total ? 0 : 1, idx = i % (int)r->total;
		uint8_t hdr[4] = {DATA_MAGIC >> 8, DATA_MAGIC & 0xff, (uint8_t)dir, (uint8_t)idx};
		int fd = socket(peer.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);

		if (fd < 0)
			return -errno;
		if (r->opt->ifname && r->nif.family == peer.ss_family &&
		    bind(fd, (struct sockaddr *)&r->nif.addr, r->nif.addrlen)) {
			ret = -errno;
			rb_err("cannot bind a data socket to %s (%s): %s", r->nif.addr_str, r->nif.name,
			       strerror(errno));
			close(fd);
			return ret;
		}
		tune(r->opt, fd);
		if (connect(fd, (struct sockaddr *)&peer, pl) || send(fd, hdr, 4, MSG_NOSIGNAL) != 4) {
			ret = -errno;
			rb_err("data connection %d to %s port %llu failed: %s", i, r->oob.peer,
			       (unsigned long long)port, strerror(errno));
			close(fd);
			return ret;
		}
		(dir == 0 ? r->c2s : r->s2c)[idx] = fd;
	}
	return 0;
}

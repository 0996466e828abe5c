/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target: the out-of-band receive path on a hostile byte stream. The
 * input is written into one end of a socketpair whose sending side is then shut
 * down, or (FO_SERVER) sent by the first TCP client of a listening server with a
 * real peer queued behind it; our end makes the calls a tool makes (accept,
 * negotiate, barrier, QPINFO frames, a receive loop) and decodes every frame it
 * gets, as the tools do.
 *
 * Nothing may crash or touch memory it does not own (AddressSanitizer), and no
 * call may wait: the stream always ends in EOF, so a receive that reports a
 * timeout was waiting for bytes that can never come (a hang on a real peer).
 */
#include "fuzz.h"
#include "oob/channel.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Long enough that a receive which does wait shows up as a timeout, not a flake. */
#define TIMEOUT_MS 5000
/* Our own frames go to a reader that never reads: keep them well within its buffer. */
#define MAX_BARRIERS 64

static struct rb_qpinfo qp[RB_WIRE_MAX_QPS];

struct peer_state {
	struct rb_qpinfo_msg m;
	unsigned filled;
};

/* A receive ends the input's stream only by EOF or a refusal; never by waiting. */
static void check_ret(int ret)
{
	FUZZ_CHECK(ret != -ETIMEDOUT);
}

/* What a tool does with a frame: decode it by its type. */
static void consume(const struct rb_frame *f, struct peer_state *s)
{
	static struct rb_hello h;
	struct fuzz_msgs m;
	unsigned sum = 0;

	FUZZ_CHECK(f->type > 0 && f->type < RB_MSG_TYPE_END && f->len <= rb_msg_max_len(f->type));
	/* The view covers len bytes the channel owns. */
	for (uint32_t i = 0; i < f->len; i++)
		sum += f->p[i];
	(void)sum;
	switch (f->type) {
	case RB_MSG_HELLO: rb_hello_decode(f->p, f->len, &h); break;
	case RB_MSG_QPINFO:
		if (s->filled && s->filled == s->m.count)
			s->filled = 0; /* a new exchange */
		if (rb_qpinfo_decode(f->p, f->len, &s->m, RB_WIRE_MAX_QPS, s->filled, &s->filled))
			s->filled = 0;
		break;
	case BW_MSG_WINDOW: rb_window_decode(f->p, f->len, &m.window); break;
	case BW_MSG_VERIFY: rb_verdict_decode(f->p, f->len, &m.verdict); break;
	case RB_MSG_LATSTATS: rb_latstats_decode(f->p, f->len, &m.lat); break;
	case RB_MSG_DONE:
	case SOCK_MSG_RXDONE: rb_stepend_decode(f->p, f->len, &m.stepend); break;
	case SOCK_MSG_SIZE: rb_msgrun_decode(f->p, f->len, &m.run.size, &m.run.count); break;
	default: rb_u64_decode(f->p, f->len, &m.u64); break;
	}
}

/* The handshake a verbs tool runs before measuring. */
static void negotiate(struct rb_oob *o, struct peer_state *s)
{
	static struct rb_hello local, remote;
	struct rb_frame f;
	int ret;

	fuzz_local_hello(&local);
	ret = rb_oob_negotiate(o, &local, &remote);
	check_ret(ret);
	if (ret)
		return;
	ret = rb_oob_barrier(o, 1);
	check_ret(ret);
	if (ret)
		return;
	do {
		ret = rb_oob_expect(o, RB_MSG_QPINFO, &f, -1);
		check_ret(ret);
		if (ret)
			return;
		ret = rb_qpinfo_decode(f.p, f.len, &s->m, RB_WIRE_MAX_QPS, s->filled, &s->filled);
	} while (!ret && s->filled < s->m.count);
}

/* Writes the input into fd without blocking; returns how much of it went in. */
static size_t feed(int fd, const uint8_t *p, size_t n)
{
	size_t done = 0;

	while (done < n) {
		ssize_t w = send(fd, p + done, n - done, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		done += (size_t)w;
	}
	return done;
}

/* The peer's side of a socketpair: the input, then EOF. */
static void pair_channel(const uint8_t *data, size_t size, struct rb_oob *o, int *peer)
{
	int sv[2], bufsz = 4 * FUZZ_OOB_MAX_INPUT;

	FUZZ_CHECK(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0);
	setsockopt(sv[1], SOL_SOCKET, SO_SNDBUF, &bufsz, sizeof(bufsz));
	setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &bufsz, sizeof(bufsz));
	/* Our own sends must not block the harness either: a full buffer is an error, not a wait. */
	fcntl(sv[0], F_SETFL, O_NONBLOCK);
	feed(sv[1], data, size);
	shutdown(sv[1], SHUT_WR);
	rb_oob_from_fd(sv[0], TIMEOUT_MS, o);
	peer[0] = sv[1];
}

/* connect(), which libFuzzer's SIGALRM (-timeout) may interrupt: the connection goes on. */
static int connect_retry(int fd, const struct sockaddr_in *sa)
{
	struct pollfd pfd = {fd, POLLOUT, 0};
	int err = 0;
	socklen_t el = sizeof(err);

	if (!connect(fd, (const struct sockaddr *)sa, sizeof(*sa)))
		return 0;
	if (errno != EINTR)
		return errno;
	while (poll(&pfd, 1, 1000) < 0 && errno == EINTR)
		;
	return getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) ? errno : err;
}

/* A TCP connection to port on loopback that sends bytes, then EOF; closed with a reset. */
static int dial(uint16_t port, const uint8_t *p, size_t n)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(port)};
	struct linger lg = {1, 0}; /* closed first, it resets: no TIME_WAIT left behind */
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0), err;

	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	err = fd < 0 ? errno : connect_retry(fd, &sa);
	if (err)
		fuzz_fail(__FILE__, __LINE__, strerror(err));
	setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
	feed(fd, p, n);
	shutdown(fd, SHUT_WR);
	return fd;
}

/*
 * The server's side: the input comes from the first client on the port, and a real
 * peer (HELLO, BARRIER 1) queues behind it. The server must accept one of them: the
 * input if it opens with a good HELLO, else the real peer, without waiting.
 */
static void server_channel(const uint8_t *data, size_t size, struct rb_oob *o, int *peer)
{
	static const struct rb_oob_opts opts = {.port = 0, .timeout_s = 60, .bind = "127.0.0.1"};
	static uint8_t real[2 * RB_WIRE_HDR_LEN + 8 + sizeof(struct rb_hello)];
	static struct rb_hello hello;
	struct rb_wbuf w = {real + RB_WIRE_HDR_LEN, 0, sizeof(real) - 2 * RB_WIRE_HDR_LEN - 8, false};
	struct rb_oob_server srv;
	struct sockaddr_in sa;
	socklen_t sl = sizeof(sa);
	size_t len;
	int ret;

	fuzz_local_hello(&hello);
	rb_hello_encode(&w, &hello);
	rb_frame_hdr_encode(real, RB_MSG_HELLO, (uint32_t)w.len);
	len = RB_WIRE_HDR_LEN + w.len;
	rb_frame_hdr_encode(real + len, RB_MSG_BARRIER, 8);
	w = (struct rb_wbuf){real + len + RB_WIRE_HDR_LEN, 0, 8, false};
	rb_u64_encode(&w, 1);
	len += RB_WIRE_HDR_LEN + 8;

	FUZZ_CHECK(rb_oob_listen(&opts, &srv) == 0);
	FUZZ_CHECK(getsockname(srv.fd, (struct sockaddr *)&sa, &sl) == 0);
	peer[0] = dial(ntohs(sa.sin_port), data, size);
	peer[1] = dial(ntohs(sa.sin_port), real, len);
	ret = rb_oob_next_client(&srv, o);
	rb_oob_server_close(&srv);
	FUZZ_CHECK(ret == 0);
	fcntl(o->fd, F_SETFL, O_NONBLOCK);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct peer_state s = {{0, qp, {0, 0, 0}}, 0};
	struct rb_oob o;
	struct rb_frame f;
	int peer[2] = {-1, -1}, ret = 0;
	unsigned mode;

	fuzz_register_msgs();

	if (size < 1)
		return 0;
	mode = data[0] % FO_MODE_END;
	data++;
	size = size - 1 < FUZZ_OOB_MAX_INPUT ? size - 1 : FUZZ_OOB_MAX_INPUT;
	if (mode == FO_SERVER)
		server_channel(data, size, &o, peer);
	else
		pair_channel(data, size, &o, peer);

	switch (mode) {
	case FO_SERVER:
	case FO_NEGOTIATE: negotiate(&o, &s); break;
	case FO_BARRIER:
		for (uint64_t seq = 0; seq < MAX_BARRIERS && !ret; seq++) {
			ret = rb_oob_barrier(&o, seq);
			check_ret(ret);
		}
		break;
	case FO_EXPECT:
		while (!ret) {
			ret = rb_oob_expect(&o, RB_MSG_DONE, &f, -1);
			check_ret(ret);
		}
		break;
	}
	/* Then whatever is left, frame by frame; each one consumes at least a header. */
	for (size_t i = 0; i <= size / RB_WIRE_HDR_LEN; i++) {
		ret = rb_oob_recv(&o, &f, -1);
		check_ret(ret);
		if (ret == -ECONNRESET)
			break;
		if (!ret)
			consume(&f, &s);
	}
	FUZZ_CHECK(ret == -ECONNRESET || ret == -EPROTO || ret == -EREMOTEIO || ret == 0);
	/* The peers first: a TCP peer resets (SO_LINGER 0) instead of lingering in TIME_WAIT. */
	for (int i = 0; i < 2; i++)
		if (peer[i] >= 0)
			close(peer[i]);
	rb_oob_close(&o);
	return 0;
}

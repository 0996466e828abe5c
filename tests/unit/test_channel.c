/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The out-of-band channel over socket pairs and loopback: negotiation, barrier and
 * error forwarding, bounded reads and garbage, frames refused by their header
 * alone, one write per frame, a server that refuses strangers and is held up by
 * none, and a connect bounded when SYNs are dropped. The frames' codecs are
 * test_wire.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "oob/channel.h"
#include "oob/qpinfo.h"
#include "oob/wire.h"

#include <errno.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

/* The real channel over a socketpair: negotiation, barrier, error forwarding. */
static void channel(void **state)
{
	int sv[2];
	pid_t pid;
	static struct rb_hello mine, theirs;
	struct rb_oob o;
	int status;
	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	pid = fork();
	if (pid == 0) {
		struct rb_oob c;
		static struct rb_hello h, r;
		close(sv[0]);
		rb_oob_from_fd(sv[1], 2000, &c);
		strcpy(h.tool, "rc_write_bw");
		strcpy(h.version, "0.1.0");
		rb_hello_add(&h, "iters", "200");
		/* Mismatch: exits 0 only if negotiation reports -EINVAL. */
		if (rb_oob_negotiate(&c, &h, &r) != -EINVAL)
			_exit(1);
		if (rb_oob_barrier(&c, 7))
			_exit(2);
		rb_oob_send_error(&c, "completion error: test");
		_exit(0);
	}
	close(sv[1]);
	rb_oob_from_fd(sv[0], 2000, &o);
	strcpy(mine.tool, "rc_write_bw");
	strcpy(mine.version, "0.1.0");
	rb_hello_add(&mine, "iters", "100");
	assert_int_equal(rb_oob_negotiate(&o, &mine, &theirs), -EINVAL);
	assert_int_equal(rb_oob_barrier(&o, 7), 0);
	{
		struct rb_frame f;
		assert_int_equal(rb_oob_recv(&o, &f, 2000), -EREMOTEIO);
		assert_string_equal(o.peer_error, "completion error: test");
		/* Then EOF: the peer is gone. */
		assert_int_equal(rb_oob_recv(&o, &f, 2000), -ECONNRESET);
	}
	waitpid(pid, &status, 0);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	rb_oob_close(&o);
}

static void channel_timeout_and_garbage(void **state)
{
	int sv[2];
	struct rb_oob o;
	struct rb_frame f;
	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	rb_oob_from_fd(sv[0], 100, &o);
	/* Nothing arrives: the read is bounded. */
	assert_int_equal(rb_oob_recv(&o, &f, 100), -ETIMEDOUT);
	/* An HTTP request is not a frame. */
	assert_int_equal(write(sv[1], "GET / HTTP/1.1\r\n\r\n", 18), 18);
	assert_int_equal(rb_oob_recv(&o, &f, 100), -EPROTO);
	close(sv[1]);
	rb_oob_close(&o);
}

/*
 * A hostile peer sends a BARRIER with a 4 KiB payload. The barrier's own buffer is
 * 16 bytes; the frame must be refused by its header, before any payload is read,
 * whatever buffer the caller had.
 */
static void oversized_frame_refused(void **state)
{
	int sv[2];
	struct rb_oob o;
	uint8_t frame[RB_WIRE_HDR_LEN + 4096];
	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	rb_oob_from_fd(sv[0], 500, &o);
	memset(frame, 0x41, sizeof(frame));
	rb_frame_hdr_encode(frame, RB_MSG_BARRIER, 4096);
	assert_int_equal(write(sv[1], frame, sizeof(frame)), (ssize_t)sizeof(frame));
	assert_int_equal(rb_oob_barrier(&o, 1), -EPROTO);
	/* Nothing of the payload was consumed: the header alone decided. */
	assert_int_equal(recv(sv[0], frame, sizeof(frame), MSG_DONTWAIT), 4096);
	/* Each type has its own cap; a legal QPINFO length is still fine. */
	assert_true(rb_msg_max_len(RB_MSG_BARRIER) < 4096);
	assert_true(rb_msg_max_len(RB_MSG_QPINFO) <= RB_WIRE_MAX_PAYLOAD);
	assert_true(rb_msg_max_len(RB_MSG_QPINFO) >= 8 * RB_QPINFO_PER_FRAME);
	assert_int_equal(rb_msg_max_len(0), 0);
	assert_int_equal(rb_msg_max_len(RB_MSG_TYPE_END), 0);
	close(sv[1]);
	rb_oob_close(&o);
}

/* Connects to 127.0.0.1:port and sends len bytes (then closes, or lingers). */
static void stranger(unsigned port, const void *bytes, size_t len, unsigned linger_ms)
{
	struct rb_oob_opts o = {.port = port, .timeout_s = 5};
	struct rb_oob c;

	if (rb_oob_connect("127.0.0.1", &o, &c))
		_exit(1);
	if (len && write(c.fd, bytes, len) != (ssize_t)len)
		_exit(2);
	usleep(linger_ms * 1000);
	rb_oob_close(&c);
}

/*
 * Strangers on the server's port (garbage, an HTTP request, a silent connection
 * that closes, a frame that is not a HELLO) are refused one after the other, and
 * the real client behind them is accepted with its HELLO kept for negotiation.
 */
static void server_refuses_strangers(void **state)
{
	static struct rb_hello mine, theirs;
	struct rb_oob_server srv;
	struct rb_oob_opts o = {.timeout_s = 20};
	struct rb_oob c;
	uint8_t junk_frame[RB_WIRE_HDR_LEN + 8];
	pid_t pid;
	int status, ret = -1;
	(void)state;
	for (unsigned i = 0; i < 20 && ret; i++) {
		o.port = 20000 + (unsigned)(getpid() * 7 + i * 131) % 30000;
		ret = rb_oob_listen(&o, &srv);
	}
	assert_int_equal(ret, 0);
	rb_frame_hdr_encode(junk_frame, RB_MSG_BARRIER, 8);
	memset(junk_frame + RB_WIRE_HDR_LEN, 0, 8);
	strcpy(mine.tool, "rc_write_bw");
	strcpy(mine.version, "0.1.0");
	rb_hello_add(&mine, "iters", "100");
	pid = fork();
	if (pid == 0) {
		struct rb_oob_opts co = {.port = o.port, .timeout_s = 5};
		static struct rb_hello r;
		stranger(o.port, "\x01\x02garbage", 9, 0);
		stranger(o.port, "GET / HTTP/1.1\r\nHost: x\r\n\r\n", 27, 0);
		stranger(o.port, NULL, 0, 0);
		stranger(o.port, junk_frame, sizeof(junk_frame), 0);
		if (rb_oob_connect("127.0.0.1", &co, &c) || rb_oob_negotiate(&c, &mine, &r))
			_exit(3);
		_exit(rb_oob_barrier(&c, 1) ? 4 : 0);
	}
	assert_int_equal(rb_oob_next_client(&srv, &c), 0);
	assert_int_equal(srv.refused, 4);
	assert_true(c.have_hello);
	assert_int_equal(rb_oob_negotiate(&c, &mine, &theirs), 0);
	assert_string_equal(theirs.tool, "rc_write_bw");
	assert_int_equal(rb_oob_barrier(&c, 1), 0);
	waitpid(pid, &status, 0);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	rb_oob_close(&c);
	/* Nobody else comes: the wait ends at --oob-timeout, naming the last refusal. */
	srv.deadline = 0;
	assert_int_equal(rb_oob_next_client(&srv, &c), -ETIMEDOUT);
	rb_oob_server_close(&srv);
}

/*
 * A stranger that starts a HELLO and then dawdles holds nobody up: the real client
 * connecting after it is accepted at once, not after the stranger's 5 s.
 */
static void slow_stranger_holds_nobody_up(void **state)
{
	static struct rb_hello mine;
	struct rb_oob_server srv;
	struct rb_oob_opts o = {.timeout_s = 20};
	struct rb_oob c;
	struct timespec t0, t1;
	pid_t slow, real;
	int status, ret = -1;
	(void)state;
	for (unsigned i = 0; i < 20 && ret; i++) {
		o.port = 20000 + (unsigned)(getpid() * 11 + i * 137) % 30000;
		ret = rb_oob_listen(&o, &srv);
	}
	assert_int_equal(ret, 0);
	strcpy(mine.tool, "rc_write_bw");
	strcpy(mine.version, "0.1.0");
	slow = fork();
	if (slow == 0) {
		uint8_t hdr[RB_WIRE_HDR_LEN];
		rb_frame_hdr_encode(hdr, RB_MSG_HELLO, 40);
		stranger(o.port, hdr, 6, 4000); /* half a header, then nothing for 4 s */
		_exit(0);
	}
	usleep(200 * 1000);
	real = fork();
	if (real == 0) {
		struct rb_oob_opts co = {.port = o.port, .timeout_s = 5};
		static struct rb_hello r;
		if (rb_oob_connect("127.0.0.1", &co, &c) || rb_oob_negotiate(&c, &mine, &r))
			_exit(3);
		_exit(0);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(rb_oob_next_client(&srv, &c), 0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	assert_true(t1.tv_sec - t0.tv_sec < 3); /* the stranger had 4 s of silence left */
	assert_int_equal(rb_oob_negotiate(&c, &mine, &mine), 0);
	waitpid(real, &status, 0);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	waitpid(slow, &status, 0);
	rb_oob_close(&c);
	rb_oob_server_close(&srv);
}

/*
 * A server whose accept queue is full drops SYNs, as a firewalled host does. The
 * client must give up at --oob-timeout, not after the kernel's SYN retries (~2 min).
 */
static void connect_bounded_when_syns_dropped(void **state)
{
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t sl = sizeof(sa);
	int lfd = socket(AF_INET, SOCK_STREAM, 0), fill[4];
	struct rb_oob_opts o = {.timeout_s = 1};
	struct rb_oob c;
	struct timespec t0, t1;
	(void)state;
	assert_int_equal(bind(lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(lfd, 0), 0);
	assert_int_equal(getsockname(lfd, (struct sockaddr *)&sa, &sl), 0);
	o.port = ntohs(sa.sin_port);
	/* Fill the queue (never accepted); later SYNs are dropped. */
	for (unsigned i = 0; i < 4; i++) {
		fill[i] = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
		connect(fill[i], (struct sockaddr *)&sa, sizeof(sa));
	}
	usleep(100 * 1000);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	assert_int_equal(rb_oob_connect("127.0.0.1", &o, &c), -ETIMEDOUT);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	/* A generous bound: 1 s asked for, the kernel would take 127 s. */
	assert_true(t1.tv_sec - t0.tv_sec < 10);
	for (unsigned i = 0; i < 4; i++)
		close(fill[i]);
	close(lfd);
}

/* A frame leaves in one write: the reader sees header and payload together. */
static void frame_in_one_segment(void **state)
{
	int sv[2];
	struct rb_oob o;
	uint8_t got[64];
	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
	rb_oob_from_fd(sv[0], 500, &o);
	assert_int_equal(rb_oob_send(&o, RB_MSG_PROGRESS, "12345678", 8), 0);
	/* SEQPACKET keeps write boundaries: one record means one system call. */
	assert_int_equal(recv(sv[1], got, sizeof(got), 0), RB_WIRE_HDR_LEN + 8);
	/* A payload beyond the type's cap is refused on the way out, too. */
	assert_int_equal(rb_oob_send(&o, RB_MSG_PROGRESS, got, 4096), -EMSGSIZE);
	close(sv[1]);
	rb_oob_close(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(channel),
	    cmocka_unit_test(channel_timeout_and_garbage),
	    cmocka_unit_test(oversized_frame_refused),
	    cmocka_unit_test(frame_in_one_segment),
	    cmocka_unit_test(server_refuses_strangers),
	    cmocka_unit_test(connect_bounded_when_syns_dropped),
	    cmocka_unit_test(slow_stranger_holds_nobody_up),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

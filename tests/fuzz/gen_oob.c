/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fuzz_oob's seeds (DIR/oob/): behind the mode byte, whole conversations as a
 * peer sends them (a --verify run, socket_bw's control stream, barriers, DONEs),
 * the strangers a side meets (HTTP, junk after a HELLO, a truncated or oversized
 * frame), and the same again as a listening server's first clients.
 */
#include "gen_seeds.h"

#include <string.h>

static void run_frame(struct seed *s, uint64_t size, uint32_t count)
{
	struct rb_wbuf w = {pbuf, 0, sizeof(pbuf), false};

	rb_msgrun_encode(&w, size, count);
	frame(s, SOCK_MSG_SIZE, &w);
}

static void u64_frame(struct seed *s, uint16_t type, uint64_t v)
{
	struct rb_wbuf w = {pbuf, 0, sizeof(pbuf), false};

	PAYLOAD(&w, rb_u64_encode, v);
	frame(s, type, &w);
}

static void qpinfo_frames(struct seed *s, unsigned count)
{
	struct rb_qpinfo_msg m;
	struct rb_wbuf w = {pbuf, 0, sizeof(pbuf), false};

	qpinfo_msg(&m, count);
	for (unsigned f = 0; f < rb_qpinfo_frames(count); f++) {
		w.len = 0;
		rb_qpinfo_encode(&w, &m, f);
		frame(s, RB_MSG_QPINFO, &w);
	}
}

/* fuzz_oob: mode byte, then what the peer sends. */
void oob_seeds(void)
{
	static struct rb_hello hello;
	struct rb_wbuf w = {pbuf, 0, sizeof(pbuf), false};
	struct seed *s = calloc(1, sizeof(*s));
	uint8_t mode;

	if (!s)
		exit(1);
	fuzz_local_hello(&hello);

	/* A whole rc_write_bw --verify run from the client's side, then its ERROR. */
	s->len = 0;
	mode = FO_NEGOTIATE;
	put(s, &mode, 1);
	PAYLOAD(&w, rb_hello_encode, &hello);
	frame(s, RB_MSG_HELLO, &w);
	u64_frame(s, RB_MSG_BARRIER, 1);
	qpinfo_frames(s, 3);
	u64_frame(s, RB_MSG_BARRIER, 2);
	u64_frame(s, RB_MSG_PROGRESS, 5);
	PAYLOAD(&w, rb_window_encode, &window);
	frame(s, BW_MSG_WINDOW, &w);
	PAYLOAD(&w, rb_verdict_encode, &verdict);
	frame(s, BW_MSG_VERIFY, &w);
	PAYLOAD(&w, rb_stepend_encode, &done);
	frame(s, RB_MSG_DONE, &w);
	PAYLOAD(&w, rb_latstats_encode, &lat);
	frame(s, RB_MSG_LATSTATS, &w);
	PAYLOAD(&w, rb_text_encode, "interrupted by SIGINT");
	frame(s, RB_MSG_ERROR, &w);
	save("oob", "negotiate-run", s);

	/* A handshake with more QPs than one QPINFO frame holds. */
	s->len = 0;
	put(s, &mode, 1);
	PAYLOAD(&w, rb_hello_encode, &hello);
	frame(s, RB_MSG_HELLO, &w);
	u64_frame(s, RB_MSG_BARRIER, 1);
	qpinfo_frames(s, RB_QPINFO_PER_FRAME + 1);
	save("oob", "negotiate-qpinfo-2frames", s);

	/* A forged HELLO, then junk. */
	s->len = 0;
	put(s, &mode, 1);
	PAYLOAD(&w, rb_hello_encode, &hello);
	frame(s, RB_MSG_HELLO, &w);
	put(s, "\x00\x01\x02junk junk junk junk", 22);
	save("oob", "stranger-hello-junk", s);

	/* socket_bw's control stream. */
	s->len = 0;
	mode = FO_RECV;
	put(s, &mode, 1);
	u64_frame(s, SOCK_MSG_DATAPORT, 40000);
	run_frame(s, 1048576, 16);
	run_frame(s, 1048576, 3);
	run_frame(s, 0, 0);
	PAYLOAD(&w, rb_stepend_encode, &stepend);
	frame(s, SOCK_MSG_RXDONE, &w);
	frame(s, RB_MSG_DONE, &w);
	save("oob", "recv-socket-step", s);

	/* Barriers in sequence, then one out of order. */
	s->len = 0;
	mode = FO_BARRIER;
	put(s, &mode, 1);
	for (uint64_t i = 0; i < 4; i++)
		u64_frame(s, RB_MSG_BARRIER, i);
	u64_frame(s, RB_MSG_BARRIER, 9);
	save("oob", "barriers", s);

	/* DONE frames, then another type. */
	s->len = 0;
	mode = FO_EXPECT;
	put(s, &mode, 1);
	PAYLOAD(&w, rb_stepend_encode, &done);
	frame(s, RB_MSG_DONE, &w);
	frame(s, RB_MSG_DONE, &w);
	u64_frame(s, RB_MSG_PROGRESS, 1);
	save("oob", "expect-done", s);

	/* Strangers on the port: an HTTP request, a header promising more than arrives. */
	s->len = 0;
	mode = FO_NEGOTIATE;
	put(s, &mode, 1);
	put(s, "GET / HTTP/1.1\r\nHost: server:18515\r\n\r\n", 38);
	save("oob", "stranger-http", s);
	s->len = 0;
	put(s, &mode, 1);
	{
		uint8_t h[RB_WIRE_HDR_LEN];
		rb_frame_hdr_encode(h, RB_MSG_QPINFO, rb_msg_max_len(RB_MSG_QPINFO));
		put(s, h, sizeof(h));
		put(s, "short", 5);
	}
	save("oob", "stranger-truncated", s);
	/* Defect 1 of issue 8: a BARRIER with a 4 KiB payload. */
	s->len = 0;
	mode = FO_BARRIER;
	put(s, &mode, 1);
	{
		uint8_t h[RB_WIRE_HDR_LEN], junk[4096];
		rb_frame_hdr_encode(h, RB_MSG_BARRIER, sizeof(junk));
		memset(junk, 0x41, sizeof(junk));
		put(s, h, sizeof(h));
		put(s, junk, sizeof(junk));
	}
	save("oob", "barrier-oversized", s);

	/* The server's port: the same strangers, a silent one, a real peer, a non-HELLO opening. */
	static const char *const on_port[] = {"stranger-http", "stranger-hello-junk", "stranger-truncated",
	                                      "negotiate-run", "barriers"};
	for (unsigned i = 0; i < sizeof(on_port) / sizeof(on_port[0]); i++) {
		char path[4096], name[64];
		FILE *f;

		snprintf(path, sizeof(path), "%s/oob/%s", outdir, on_port[i]);
		f = fopen(path, "rb");
		if (!f || !(s->len = fread(s->b, 1, sizeof(s->b), f))) {
			fprintf(stderr, "gen_seeds: cannot read back %s\n", path);
			exit(1);
		}
		fclose(f);
		s->b[0] = FO_SERVER;
		snprintf(name, sizeof(name), "server-%s", on_port[i]);
		save("oob", name, s);
	}
	s->len = 1;
	save("oob", "server-silent", s);
	free(s);
}

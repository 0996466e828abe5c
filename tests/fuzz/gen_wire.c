/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fuzz_wire's seeds (DIR/wire/): behind the selector byte, a valid payload of
 * every frame type, the longest JOIN, END and ROW a decoder takes, a data
 * connection's greeting, FIFO elements at and past their area's end, and
 * ERROR text and QPINFO frames after the cap the target gives their decoder.
 */
#include "gen_seeds.h"

#include <string.h>

static const struct rb_fab_join join_rank1 = {1, 4, 4242, 2, {0}, "node-02", "mlx5_0,mlx5_1", "10.0.0.2"};
static const struct sock_dataport dataport = {40000,
                                              {0x8f, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 0xf8}};

/* One input of fuzz_wire: the selector byte, then the payload in w. */
static void wire_save(struct seed *s, uint8_t sel, const struct rb_wbuf *w, const char *name)
{
	s->len = 0;
	put(s, &sel, 1);
	put(s, w->p, w->len);
	save("wire", name, s);
}

/* fuzz_wire: selector byte, then the payload. */
void wire_seeds(void)
{
	static struct rb_hello hello;
	struct rb_wbuf w = {pbuf, 0, sizeof(pbuf), false};
	struct seed *s = calloc(1, sizeof(*s));
	char name[64];
	uint8_t sel;
	static const unsigned qp_counts[] = {1, 3, RB_QPINFO_PER_FRAME + 1};
	static struct rb_fab_join join;
	static struct rb_fab_end end;
	uint8_t greeting[SOCK_GREETING_LEN];
	static const struct {
		const char *name;
		uint64_t off, size;
	} fifos[] = {{"fifo", 4096, 8192}, {"fifo-fills-area", 12288, 4096}, {"fifo-past-area", 4096, 65536}};

	if (!s)
		exit(1);
	for (unsigned t = 1; t < RB_MSG_TYPE_END; t++) {
		uint8_t h[RB_WIRE_HDR_LEN];

		if (!rb_msg_max_len(t))
			continue; /* a number nobody speaks */
		s->len = 0;
		sel = FW_HDR;
		put(s, &sel, 1);
		rb_frame_hdr_encode(h, (uint16_t)t, rb_msg_max_len(t));
		put(s, h, sizeof(h));
		snprintf(name, sizeof(name), "hdr-%s", rb_msg_name(t));
		save("wire", name, s);
	}
#define WIRE_SEED(selector, nm, enc, arg)                                                                    \
	do {                                                                                                 \
		PAYLOAD(&w, enc, arg);                                                                       \
		wire_save(s, selector, &w, nm);                                                              \
	} while (0)
	fuzz_local_hello(&hello);
	WIRE_SEED(FW_HELLO, "hello", rb_hello_encode, &hello);
	WIRE_SEED(FW_STEPEND, "done", rb_stepend_encode, &done);
	WIRE_SEED(FW_WINDOW, "window", rb_window_encode, &window);
	WIRE_SEED(FW_VERDICT, "verdict", rb_verdict_encode, &verdict);
	WIRE_SEED(FW_LATSTATS, "latstats", rb_latstats_encode, &lat);
	WIRE_SEED(FW_STEPEND, "stepend", rb_stepend_encode, &stepend);
	WIRE_SEED(FW_U64, "u64", rb_u64_encode, 42);
	WIRE_SEED(FW_AGREE, "agree", rb_agree_encode, (&(struct rb_agree){.seq = 3, .ok = true}));
	WIRE_SEED(FW_AGREE, "agree_fail", rb_agree_encode,
	          (&(struct rb_agree){.seq = UINT64_MAX, .ok = false, .why = "gate --min-bw 10 failed"}));
	WIRE_SEED(FW_JOIN, "join", rb_fab_join_encode, &join_rank1);
	WIRE_SEED(FW_END, "end", rb_fab_end_encode,
	          (&(struct rb_fab_end){.round = 2, .partner = 5, .dev = "mlx5_0"}));
	WIRE_SEED(FW_END, "end_failed", rb_fab_end_encode,
	          (&(struct rb_fab_end){
	              .round = 0, .partner = UINT32_MAX, .code = 1, .error = "no route to host"}));
	WIRE_SEED(FW_DATAPORT, "dataport", sock_dataport_encode, &dataport);
	WIRE_SEED(
	    FW_TCPINFO, "tcpinfo", sock_tcp_encode,
	    (&(struct sock_tcp){.nsocks = 4, .retrans = 12, .rtt_us = 28.5, .cwnd = 10, .cc = "cubic"}));
	/* The longest of each: a decoder's limit one byte away. */
	join = join_rank1;
	longest(join.host, sizeof(join.host), 'h');
	longest(join.dev, sizeof(join.dev), 'd');
	longest(join.addr, sizeof(join.addr), 'a');
	WIRE_SEED(FW_JOIN, "join-longest", rb_fab_join_encode, &join);
	end = (struct rb_fab_end){.round = 1, .partner = 0, .code = 255};
	longest(end.error, sizeof(end.error), 'e');
	longest(end.dev, sizeof(end.dev), 'd');
	WIRE_SEED(FW_END, "end-longest", rb_fab_end_encode, &end);
#undef WIRE_SEED
	w.len = 0;
	bw_row(&w, 1, 0, 3, 1, 262144);
	wire_save(s, FW_ROW, &w, "row");
	w.len = 0;
	full_row(&w, 0, 1, 0);
	wire_save(s, FW_ROW, &w, "row-full");
	w.len = 0;
	{
		const struct rb_fab_go go = {
		    .round = 4, .partner = 2, .role = RB_GO_CLIENT, .phase = RB_GO_RETEST};
		static struct rb_fab_go flows = {
		    .round = 1,
		    .partner = UINT32_MAX,
		    .role = RB_GO_FLOWS,
		    .nflows = 3,
		    .flows = {{1, RB_GO_SERVER}, {1, RB_GO_CLIENT}, {2, RB_GO_SERVER}}};

		rb_fab_go_encode(&w, &go);
		wire_save(s, FW_GO, &w, "go");
		w.len = 0;
		rb_fab_go_encode(&w, &flows);
	}
	wire_save(s, FW_GO, &w, "go-flows");
	/* DATAPORT, then the greeting of the data connection c2s 3. */
	w.len = 0;
	sock_dataport_encode(&w, &dataport);
	sock_greeting_encode(greeting, dataport.token, 0, 3);
	rb_put_bytes(&w, greeting, sizeof(greeting));
	wire_save(s, FW_DATAPORT, &w, "dataport-greeting");

	/*
	 * FIFO elements, request 0 of 2 into a 16 KiB area: one the sender takes, one that
	 * fills the area to its last byte, one whose size runs past it. After each, the
	 * bounds: rkey 0x1234, tag 7, nreqs 2 (stored less 1), len 16 KiB (less 1), need
	 * 4096, request 0.
	 */
	for (unsigned v = 0; v < sizeof(fifos) / sizeof(fifos[0]); v++) {
		const struct fifo_elem el = {
		    FUZZ_FIFO_BASE + fifos[v].off, fifos[v].size, {0x1234, 0, 0, 0}, 2, 7, 42};
		static const uint8_t bounds[FUZZ_FIFO_TAIL] = {0, 0, 0x12, 0x34, 0,    0,
		                                               0, 7, 1,    0x3f, 0xff, 0x10};
		uint8_t e[FIFO_ELEM_BYTES];

		fifo_elem_encode(e, &el);
		w.len = 0;
		rb_put_bytes(&w, e, sizeof(e));
		rb_put_bytes(&w, bounds, sizeof(bounds));
		wire_save(s, FW_FIFO, &w, fifos[v].name);
	}
	/* STAMPS: 3 rows of 4 events from row 0 (the last frame), and a frame's worth from row 512. */
	for (unsigned v = 0; v < 2; v++) {
		uint32_t from = v ? RB_STAMPS_FRAME_ROWS : 0, k = v ? RB_STAMPS_FRAME_ROWS : 3;

		w.len = 0;
		rb_put_u8(&w, 3);                     /* events: 3 % 12 + 1 */
		rb_put_u16(&w, (uint16_t)(from / 2)); /* the row expected */
		rb_put_u32(&w, from);
		rb_put_u32(&w, k);
		rb_put_u32(&w, 4);
		for (uint32_t i = 0; i < k * 4; i++)
			rb_put_u64(&w, 1000000 + 7 * (uint64_t)i);
		wire_save(s, FW_STAMPS, &w, v ? "stamps-full" : "stamps-last");
	}
	s->len = 0;
	sel = FW_MSGRUN;
	put(s, &sel, 1);
	w.len = 0;
	rb_msgrun_encode(&w, 131072, 64);
	put(s, w.p, w.len);
	save("wire", "msgrun", s);

	/* ERROR text: u16 cap, payload. */
	s->len = 0;
	sel = FW_TEXT;
	put(s, &sel, 1);
	put(s, (uint8_t[]){(RB_WIRE_MSG_LEN - 1) >> 8, (RB_WIRE_MSG_LEN - 1) & 0xff}, 2); /* cap 512 */
	PAYLOAD(&w, rb_text_encode, "completion error on QP 0x11: remote access error (vendor err 0x88)");
	put(s, w.p, w.len);
	save("wire", "text", s);

	/* QPINFO: u16 cap, then each frame with a u16 length: 1 QP, 3 QPs, two frames. */
	for (unsigned c = 0; c < sizeof(qp_counts) / sizeof(qp_counts[0]); c++) {
		struct rb_qpinfo_msg m;
		uint16_t cap = RB_WIRE_MAX_QPS - 1;

		qpinfo_msg(&m, qp_counts[c]);
		s->len = 0;
		sel = FW_QPINFO;
		put(s, &sel, 1);
		put(s, (uint8_t[]){cap >> 8, cap & 0xff}, 2);
		for (unsigned f = 0; f < rb_qpinfo_frames(m.count); f++) {
			w.len = 0;
			rb_qpinfo_encode(&w, &m, f);
			put(s, (uint8_t[]){(uint8_t)(w.len >> 8), (uint8_t)w.len}, 2);
			put(s, w.p, w.len);
		}
		snprintf(name, sizeof(name), "qpinfo-%u", m.count);
		save("wire", name, s);
	}
	free(s);
}

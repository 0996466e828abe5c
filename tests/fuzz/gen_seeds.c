/*
 * Writes the fuzz targets' seed corpus: DIR/wire/ holds a valid payload of every
 * frame type (behind fuzz_wire's selector byte), DIR/oob/ whole conversations as
 * a peer sends them (behind fuzz_oob's mode byte), plus the strangers a server
 * meets on its port. Made with the library's own encoders, so the seeds follow
 * the wire format as it changes.
 *
 *   gen_seeds DIR
 */
#include "fuzz.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>

static const char *outdir;
static int failed;

/* A growable byte string. */
struct seed {
	uint8_t b[FUZZ_OOB_MAX_INPUT];
	size_t len;
};

static void put(struct seed *s, const void *p, size_t n)
{
	if (n > sizeof(s->b) - s->len) {
		fprintf(stderr, "gen_seeds: seed too long\n");
		exit(1);
	}
	memcpy(s->b + s->len, p, n);
	s->len += n;
}

static void save(const char *sub, const char *name, const struct seed *s)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s/%s", outdir, sub, name);
	f = fopen(path, "wb");
	if (!f || fwrite(s->b, 1, s->len, f) != s->len || fclose(f)) {
		fprintf(stderr, "gen_seeds: cannot write %s: %s\n", path, strerror(errno));
		failed = 1;
	}
}

/* Every encoder, one payload each: enc(&w, arg). */
#define PAYLOAD(w, enc, arg)                                                                                 \
	do {                                                                                                 \
		(w)->len = 0;                                                                                \
		enc(w, arg);                                                                                 \
		if ((w)->err) {                                                                              \
			fprintf(stderr, "gen_seeds: %s does not fit\n", #enc);                               \
			exit(1);                                                                             \
		}                                                                                            \
	} while (0)

static uint8_t pbuf[RB_WIRE_MAX_PAYLOAD];
static struct rb_qpinfo qps[RB_WIRE_MAX_QPS];

static void qpinfo_msg(struct rb_qpinfo_msg *m, unsigned count)
{
	m->count = count;
	m->qp = qps;
	m->ctl = (struct rb_region){0x7e0000000000ull, 139264, 0x5678};
	for (unsigned i = 0; i < count; i++) {
		qps[i] =
		    (struct rb_qpinfo){.qpn = 0x11 + i, .psn = 0xabcdef, .rkey = 0x1234, .lid = 0, .mtu = 3};
		memset(qps[i].gid, 0, 10);
		qps[i].gid[10] = qps[i].gid[11] = 0xff;
		qps[i].gid[12] = 10, qps[i].gid[15] = 1;
		qps[i].len = 65536;
		qps[i].addr = 0x7f0000001000ull + (uint64_t)i * qps[i].len;
	}
}

/* A frame as the peer sends it: header, then the payload in w. */
static void frame(struct seed *s, uint16_t type, const struct rb_wbuf *w)
{
	uint8_t h[RB_WIRE_HDR_LEN];

	rb_frame_hdr_encode(h, type, (uint32_t)w->len);
	put(s, h, sizeof(h));
	put(s, w->p, w->len);
}

static void run_frame(struct seed *s, uint64_t size, uint32_t count)
{
	struct rb_wbuf w = {pbuf, 0, sizeof(pbuf), false};

	rb_msgrun_encode(&w, size, count);
	frame(s, RB_MSG_SIZE, &w);
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

/* The values each measurement frame carries in a real run. */
static const struct rb_stepend done = {1000, 65536000, 2100000000, 0.25, NAN};
static const struct rb_window window = {3, 64, 1};
static const struct rb_verdict verdict = {1, 2, 17, 4095, 0xa5, 0x5a};
static const struct rb_lat_summary lat = {1000, 100, 5.1, 6.2, 6.5, 0.7, 7.0, 9.9, 12.5, 40.0, 0.013};
static const struct rb_stepend stepend = {1000, 1048576000, 2000000000, NAN, 87.5};

/* fuzz_wire: selector byte, then the payload. */
static void wire_seeds(void)
{
	static struct rb_hello hello;
	struct rb_wbuf w = {pbuf, 0, sizeof(pbuf), false};
	struct seed *s = calloc(1, sizeof(*s));
	char name[64];
	uint8_t sel;
	static const unsigned qp_counts[] = {1, 3, RB_QPINFO_PER_FRAME + 1};

	if (!s)
		exit(1);
	for (unsigned t = 1; t < RB_MSG_TYPE_END; t++) {
		uint8_t h[RB_WIRE_HDR_LEN];

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
		s->len = 0;                                                                                  \
		sel = selector;                                                                              \
		put(s, &sel, 1);                                                                             \
		PAYLOAD(&w, enc, arg);                                                                       \
		put(s, w.p, w.len);                                                                          \
		save("wire", nm, s);                                                                         \
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
#undef WIRE_SEED
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

/* fuzz_oob: mode byte, then what the peer sends. */
static void oob_seeds(void)
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
	frame(s, RB_MSG_WINDOW, &w);
	PAYLOAD(&w, rb_verdict_encode, &verdict);
	frame(s, RB_MSG_VERIFY, &w);
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
	u64_frame(s, RB_MSG_DATAPORT, 40000);
	run_frame(s, 1048576, 16);
	run_frame(s, 1048576, 3);
	run_frame(s, 0, 0);
	PAYLOAD(&w, rb_stepend_encode, &stepend);
	frame(s, RB_MSG_RXDONE, &w);
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

int main(int argc, char **argv)
{
	char path[4096];

	if (argc != 2) {
		fprintf(stderr, "usage: gen_seeds DIR\n");
		return 2;
	}
	outdir = argv[1];
	for (const char *const *sub = (const char *const[]){"", "/wire", "/oob", NULL}; *sub; sub++) {
		snprintf(path, sizeof(path), "%s%s", outdir, *sub);
		if (mkdir(path, 0755) && errno != EEXIST) {
			fprintf(stderr, "gen_seeds: cannot create %s: %s\n", path, strerror(errno));
			return 1;
		}
	}
	wire_seeds();
	oob_seeds();
	return failed;
}

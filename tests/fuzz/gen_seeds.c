/*
 * Writes the fuzz targets' seed corpus: DIR/wire/ holds a valid payload of every
 * frame type (behind fuzz_wire's selector byte), DIR/oob/ whole conversations as
 * a peer sends them (behind fuzz_oob's mode byte), plus the strangers a server
 * meets on its port, DIR/fabric/ whole --all-pairs jobs as the coordinator's port
 * sees them (behind fuzz_fabric's job byte). Made with the library's own encoders,
 * so the seeds follow the wire format as it changes.
 *
 *   gen_seeds DIR
 */
#include "fuzz.h"

#include "measure/schedule.h"

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

/* The values each measurement frame carries in a real run. */
static const struct rb_stepend done = {1000, 65536000, 2100000000, 0.25, NAN};
static const struct rb_window window = {3, 64, 1};
static const struct rb_verdict verdict = {1, 2, 17, 4095, 0xa5, 0x5a};
static const struct rb_lat_summary lat = {1000, 100, 5.1, 6.2, 6.5, 0.7, 7.0, 9.9, 12.5, 40.0, 0.013};
static const struct rb_stepend stepend = {1000, 1048576000, 2000000000, NAN, 87.5};
static const struct rb_fab_join join_rank1 = {1, 4, 4242, 2, {0}, "node-02", "mlx5_0,mlx5_1", "10.0.0.2"};
static const struct sock_dataport dataport = {40000,
                                              {0x8f, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 0xf8}};

/* A pair's row of bandwidth at one size, as rc_write_bw's client sends it. */
static void bw_row(struct rb_wbuf *w, uint32_t round, uint32_t server, uint32_t client, uint32_t rail,
                   uint64_t size)
{
	static struct rb_row row;

	memset(&row, 0, sizeof(row));
	rb_row_u64(&row, "size_bytes", "size", size);
	rb_row_dbl(&row, "bw_avg_gbps", "BW[Gb/s]", 2, 90.0 + rail + (double)size / 1e6);
	rb_row_dbl(&row, "bw_peak_gbps", NULL, 2, 97.5);
	rb_row_u64(&row, "msgs", NULL, 4096);
	rb_row_str(&row, "device", "dev", "mlx5_0");
	rb_row_bool(&row, "verified", NULL, true);
	rb_fab_row_encode(w, round, server, client, rail, &row);
}

/* The longest string a field of cap bytes takes: cap - 1 of c. */
static void longest(char *out, size_t cap, char c)
{
	memset(out, c, cap - 1);
	out[cap - 1] = '\0';
}

/* A row of RB_ROW_MAX fields, every type, each key, label and string as long as the decoder takes. */
static void full_row(struct rb_wbuf *w, uint32_t round, uint32_t server, uint32_t client)
{
	static struct rb_row row;
	static char keys[RB_ROW_MAX][RB_FAB_KEY_LEN], labels[RB_ROW_MAX][RB_FAB_LABEL_LEN];
	static char str[sizeof(row.f[0].s)];

	memset(&row, 0, sizeof(row));
	longest(str, sizeof(str), 's');
	for (unsigned i = 0; i < RB_ROW_MAX; i++) {
		longest(keys[i], sizeof(keys[i]), 'k');
		snprintf(keys[i], sizeof(keys[i]), "%02u", i);
		keys[i][2] = 'k';
		longest(labels[i], sizeof(labels[i]), 'l');
		switch (i % 4) {
		case 0: rb_row_u64(&row, keys[i], labels[i], UINT64_MAX - i); break;
		case 1: rb_row_dbl(&row, keys[i], labels[i], 12, 1e300 * i); break;
		case 2: rb_row_str(&row, keys[i], labels[i], str); break;
		default: rb_row_bool(&row, keys[i], NULL, i & 4); break;
		}
	}
	rb_fab_row_encode(w, round, server, client, 0, &row);
}

/* A pair's row of latency, as rc_write_lat's client sends it. */
static void lat_row(struct rb_wbuf *w, uint32_t round, uint32_t server, uint32_t client)
{
	static struct rb_row row;

	memset(&row, 0, sizeof(row));
	rb_row_u64(&row, "size_bytes", "size", 8);
	rb_row_dbl(&row, "lat_p50_us", "p50[us]", 2, 1.9 + client);
	rb_row_dbl(&row, "lat_p99_us", "p99[us]", 2, 2.6 + client);
	rb_fab_row_encode(w, round, server, client, 0, &row);
}

/* One input of fuzz_wire: the selector byte, then the payload in w. */
static void wire_save(struct seed *s, uint8_t sel, const struct rb_wbuf *w, const char *name)
{
	s->len = 0;
	put(s, &sel, 1);
	put(s, w->p, w->len);
	save("wire", name, s);
}

/* fuzz_wire: selector byte, then the payload. */
static void wire_seeds(void)
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
	rb_fab_go_encode(&w, 4, FF_SEED);
	wire_save(s, FW_GO, &w, "go");
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

/* fuzz_fabric: one connection's record, its stream's length and then the stream. */
static void conn(struct seed *s, const struct seed *stream)
{
	put(s, (uint8_t[]){(uint8_t)(stream->len >> 8), (uint8_t)stream->len}, 2);
	put(s, stream->b, stream->len);
}

static void join_frame(struct seed *s, uint32_t rank, uint32_t size, uint32_t rails)
{
	struct rb_fab_join j = {rank, size, 1000 + rank, rails, {0}, "", "", "10.0.0.1"};
	struct rb_wbuf w = {pbuf, 0, sizeof(pbuf), false};

	memset(j.cookie, FF_COOKIE_BYTE, sizeof(j.cookie));
	snprintf(j.host, sizeof(j.host), "node-%02u", rank);
	if (rails > 1)
		snprintf(j.dev, sizeof(j.dev), "mlx5_0,mlx5_1");
	else
		snprintf(j.dev, sizeof(j.dev), "mlx5_%u", rank);
	rb_fab_join_encode(&w, &j);
	frame(s, RB_MSG_JOIN, &w);
}

static void end_frame(struct seed *s, uint32_t round, uint32_t partner, const char *error)
{
	struct rb_fab_end e = {round, partner, error ? 1 : 0, "", "mlx5_0"};
	struct rb_wbuf w = {pbuf, 0, sizeof(pbuf), false};

	snprintf(e.error, sizeof(e.error), "%s", error ? error : "");
	rb_fab_end_encode(&w, &e);
	frame(s, RB_MSG_END, &w);
}

/* How a job's ranks behave: bandwidth or latency rows, a pair that fails, a rank that dies. */
struct job {
	const char *name;
	uint32_t n, mode, k, rails;
	bool lat, full;                 /* full: the client's first row is as long as a row gets */
	uint32_t fail_round, dead_rank; /* UINT32_MAX: none */
};

/* Rank r's whole stream: its JOIN, then per round its rows (the client's) and its END. */
static void rank_stream(struct seed *st, const struct job *jb, uint32_t r)
{
	const struct rb_pairs_spec spec = {(enum rb_pairs_mode)jb->mode, jb->k};
	struct rb_wbuf w = {pbuf, 0, sizeof(pbuf), false};

	st->len = 0;
	join_frame(st, r, jb->n, jb->rails);
	for (uint32_t round = 0; round < rb_sched_rounds(&spec, jb->n); round++) {
		struct rb_pair p;
		bool in = rb_sched_mine(&spec, jb->n, FF_SEED, round, r, &p);
		uint32_t partner = !in ? UINT32_MAX : p.client == r ? p.server : p.client;

		if (r == jb->dead_rank && round == 1)
			return; /* its stream ends: the coordinator loses it */
		if (in && p.client == r && jb->full) {
			w.len = 0;
			full_row(&w, round, p.server, r);
			frame(st, RB_MSG_ROW, &w);
		}
		for (uint32_t rail = 0; in && p.client == r && rail < jb->rails; rail++) {
			for (uint64_t size = 65536; size <= (jb->lat ? 65536u : 262144u); size *= 4) {
				w.len = 0;
				if (jb->lat)
					lat_row(&w, round, p.server, r);
				else
					bw_row(&w, round, p.server, r, rail, size);
				frame(st, RB_MSG_ROW, &w);
			}
		}
		end_frame(st, round, partner,
		          in && round == jb->fail_round ? "completion error: retry exceeded" : NULL);
	}
}

/* fuzz_fabric: the job byte, then each rank's connection; strangers first where a job has them. */
static void fabric_seeds(void)
{
	static const struct job jobs[] = {
	    {"pair", 2, RB_PAIRS_ALL, 1, 1, false, false, UINT32_MAX, UINT32_MAX},
	    {"pair-full-row", 2, RB_PAIRS_ALL, 1, 1, false, true, UINT32_MAX, UINT32_MAX},
	    {"ring3-2rails", 3, RB_PAIRS_RING, 1, 2, false, false, UINT32_MAX, UINT32_MAX},
	    {"all4-lat", 4, RB_PAIRS_ALL, 1, 1, true, false, UINT32_MAX, UINT32_MAX},
	    {"random5-failed-pair", 5, RB_PAIRS_RANDOM, 2, 1, false, false, 1, UINT32_MAX},
	    {"all6-rank-lost", 6, RB_PAIRS_ALL, 1, 1, false, false, UINT32_MAX, 4},
	    {"strangers", 2, RB_PAIRS_ALL, 1, 1, false, false, UINT32_MAX, UINT32_MAX},
	};
	struct seed *s = calloc(1, sizeof(*s)), *st = calloc(1, sizeof(*st));

	if (!s || !st)
		exit(1);
	for (unsigned j = 0; j < sizeof(jobs) / sizeof(jobs[0]); j++) {
		const struct job *jb = &jobs[j];
		uint8_t b = FF_JOB(jb->n, jb->mode, jb->k);

		s->len = 0;
		put(s, &b, 1);
		if (!strcmp(jb->name, "strangers")) {
			uint8_t h[RB_WIRE_HDR_LEN];

			/* An HTTP request, a JOIN header promising more than a JOIN holds, another job's
			 * JOIN. */
			st->len = 0;
			put(st, "GET / HTTP/1.1\r\n\r\n", 18);
			conn(s, st);
			st->len = 0;
			rb_frame_hdr_encode(h, RB_MSG_JOIN, 65535);
			put(st, h, sizeof(h));
			conn(s, st);
			st->len = 0;
			join_frame(st, 0, 3, 1);
			conn(s, st);
		}
		for (uint32_t r = 0; r < jb->n; r++) {
			rank_stream(st, jb, r);
			conn(s, st);
			/* The same rank again, at once: a JOIN for a rank that joined already. */
			if (!strcmp(jb->name, "strangers") && r == 0)
				conn(s, st);
		}
		save("fabric", jb->name, s);
	}
	/* Ranks with 1 and 2 rails: the coordinator ends the run. */
	s->len = 0;
	put(s, (uint8_t[]){FF_JOB(2, RB_PAIRS_ALL, 1)}, 1);
	st->len = 0;
	join_frame(st, 0, 2, 1);
	conn(s, st);
	st->len = 0;
	join_frame(st, 1, 2, 2);
	conn(s, st);
	save("fabric", "rails-differ", s);
	free(st);
	free(s);
}

int main(int argc, char **argv)
{
	char path[4096];

	fuzz_register_msgs();
	if (argc != 2) {
		fprintf(stderr, "usage: gen_seeds DIR\n");
		return 2;
	}
	outdir = argv[1];
	for (const char *const *sub = (const char *const[]){"", "/wire", "/oob", "/fabric", NULL}; *sub;
	     sub++) {
		snprintf(path, sizeof(path), "%s%s", outdir, *sub);
		if (mkdir(path, 0755) && errno != EEXIST) {
			fprintf(stderr, "gen_seeds: cannot create %s: %s\n", path, strerror(errno));
			return 1;
		}
	}
	wire_seeds();
	oob_seeds();
	fabric_seeds();
	return failed;
}

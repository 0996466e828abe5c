/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * libFuzzer target: every decoder of what a peer sends, on arbitrary bytes. A
 * decoder must refuse the input or produce a value that encodes back to exactly the
 * bytes it came from (so nothing it accepts is ambiguous), and never read outside
 * the input or write outside its output (AddressSanitizer checks that). What a tool
 * does with a decoded value right after, where it bounds an index or a size, is
 * checked too: the HELLO comparison, the clock rule on DONE, the data connection's
 * greeting against DATAPORT, fifo_check before the sender writes.
 *
 * The decoders (fuzz.h's selectors): frame header, HELLO, QPINFO, WINDOW, VERIFY,
 * LATSTATS, DONE/RXDONE, u64 (BARRIER, PROGRESS, DATAPORT's port), ERROR/REFUSE
 * text, SIZE, AGREE, JOIN, ROW, END, GO, socket_bw's DATAPORT, fifo_pingpong's FIFO
 * element, STAMPS (a step's stamps, to the client). check_decoders.sh fails the fuzz suites when src/ has one
 * no target calls.
 */
#include "fuzz.h"

#include <errno.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static uint8_t out[RB_WIRE_MAX_PAYLOAD + 4096];

/* Encodes with enc and checks the bytes are the decoder's input. */
#define ROUNDTRIP(enc, val, in, in_len)                                                                      \
	do {                                                                                                 \
		struct rb_wbuf w_ = {out, 0, sizeof(out), false};                                            \
		enc(&w_, val);                                                                               \
		FUZZ_CHECK(!w_.err && w_.len == (in_len) && !memcmp(out, in, in_len));                       \
	} while (0)

static unsigned mismatches;

static void count_mismatch(void *ctx, const char *key, const char *l, const char *r)
{
	/* Every string handed out must be terminated within its field. */
	FUZZ_CHECK(strlen(key) < RB_WIRE_KEY_LEN && strlen(l) < RB_WIRE_VAL_LEN &&
	           strlen(r) < RB_WIRE_VAL_LEN);
	mismatches++;
}

static uint16_t take_u16(const uint8_t **p, size_t *n)
{
	uint16_t v;

	if (*n < 2)
		return 0;
	v = (uint16_t)((*p)[0] << 8 | (*p)[1]);
	*p += 2;
	*n -= 2;
	return v;
}

static void hdr(const uint8_t *p, size_t n)
{
	uint8_t in[RB_WIRE_HDR_LEN] = {0}, enc[RB_WIRE_HDR_LEN];
	struct rb_frame_hdr h;
	const char *why = NULL;

	memcpy(in, p, n < sizeof(in) ? n : sizeof(in));
	if (rb_frame_hdr_decode(in, &h, &why)) {
		FUZZ_CHECK(why && why[0]);
		return;
	}
	FUZZ_CHECK(h.len <= rb_msg_max_len(h.type) && h.len <= RB_WIRE_MAX_PAYLOAD);
	FUZZ_CHECK(strcmp(rb_msg_name(h.type), "UNKNOWN") != 0);
	rb_frame_hdr_encode(enc, h.type, h.len);
	FUZZ_CHECK(!memcmp(enc, in, sizeof(enc)));
}

static void hello(const uint8_t *p, size_t n)
{
	static struct rb_hello h, local;

	if (rb_hello_decode(p, n, &h))
		return;
	/* A string that filled its field would run into the next one, where ASan cannot see it. */
	FUZZ_CHECK(h.nparams <= RB_WIRE_MAX_PARAMS && h.tool[0]);
	FUZZ_CHECK(strlen(h.tool) < sizeof(h.tool) && strlen(h.version) < sizeof(h.version));
	for (unsigned i = 0; i < h.nparams; i++)
		FUZZ_CHECK(strlen(h.params[i].key) < sizeof(h.params[i].key) &&
		           strlen(h.params[i].val) < sizeof(h.params[i].val));
	ROUNDTRIP(rb_hello_encode, &h, p, n);
	fuzz_local_hello(&local);
	mismatches = 0;
	FUZZ_CHECK(rb_hello_compare(&local, &h, count_mismatch, NULL) == mismatches);
	FUZZ_CHECK(mismatches <= local.nparams + h.nparams);
	for (unsigned i = 0; i < h.nparams; i++)
		FUZZ_CHECK(rb_hello_get(&h, h.params[i].key) != NULL);
}

/* Decodes the frames of one side's QPINFO in order, as conn.c does; checks a complete set. */
static void qpinfo_frames(const uint8_t *p, size_t n, struct rb_qpinfo_msg *m, unsigned cap)
{
	const uint8_t *frame[RB_WIRE_MAX_QPS / RB_QPINFO_PER_FRAME + 1];
	size_t flen[RB_WIRE_MAX_QPS / RB_QPINFO_PER_FRAME + 1];
	unsigned filled = 0, nf = 0;

	while (n >= 2 && nf < sizeof(frame) / sizeof(frame[0])) {
		size_t len = take_u16(&p, &n);
		int ret;

		if (len > n)
			len = n;
		ret = rb_qpinfo_decode(p, len, m, cap, filled, &filled);
		if (ret == -E2BIG)
			FUZZ_CHECK(m->count > cap);
		if (ret)
			return;
		FUZZ_CHECK(m->count <= cap && filled <= m->count);
		frame[nf] = p;
		flen[nf++] = len;
		p += len;
		n -= len;
		if (filled == m->count)
			break;
	}
	if (!nf || filled != m->count)
		return;
	for (unsigned i = 0; i < filled; i++)
		FUZZ_CHECK(m->qp[i].mtu >= 1 && m->qp[i].mtu <= 5 && m->qp[i].qpn <= 0xffffff &&
		           m->qp[i].psn <= 0xffffff);
	/* Complete: the same frames come out of the encoder. */
	FUZZ_CHECK(nf == rb_qpinfo_frames(m->count));
	for (unsigned f = 0; f < nf; f++) {
		struct rb_wbuf w = {out, 0, sizeof(out), false};

		rb_qpinfo_encode(&w, m, f);
		FUZZ_CHECK(!w.err && w.len == flen[f] && !memcmp(out, frame[f], flen[f]));
	}
}

static void qpinfo(const uint8_t *p, size_t n)
{
	unsigned cap = take_u16(&p, &n) % RB_WIRE_MAX_QPS + 1;
	/* Exactly cap entries on the heap, so a write past them is caught. */
	struct rb_qpinfo_msg m = {0, malloc(cap * sizeof(struct rb_qpinfo)), {0, 0, 0}};

	FUZZ_CHECK(m.qp);
	qpinfo_frames(p, n, &m, cap);
	free(m.qp);
}

static void text(const uint8_t *p, size_t n)
{
	size_t cap = take_u16(&p, &n) % RB_WIRE_MSG_LEN + 1;
	/* Exactly cap bytes on the heap, so a write at msg[cap] is caught. */
	char *msg = malloc(cap);

	FUZZ_CHECK(msg);
	if (!rb_text_decode(p, n, msg, cap)) {
		FUZZ_CHECK(strlen(msg) < cap);
		ROUNDTRIP(rb_text_encode, msg, p, n);
	}
	free(msg);
}

/* Every string a decoder hands out ends within its field. */
#define TERMINATED(field) FUZZ_CHECK(strnlen(field, sizeof(field)) < sizeof(field))

/* JOIN: the coordinator takes rk[rank] of size ranks and as many rails as RB_MAX_RAILS. */
static void join(const uint8_t *p, size_t n)
{
	struct rb_fab_join j;

	if (rb_fab_join_decode(p, n, &j))
		return;
	FUZZ_CHECK(j.rank < j.size && j.rails >= 1 && j.rails <= RB_MAX_RAILS);
	TERMINATED(j.host);
	TERMINATED(j.dev);
	TERMINATED(j.addr);
	ROUNDTRIP(rb_fab_join_encode, &j, p, n);
}

/*
 * ROW: every field typed, keyed and within the decoder's arrays; written back the
 * same (a bool byte other than 0 or 1 would come back as 1).
 */
static void row(const uint8_t *p, size_t n)
{
	static struct rb_fab_row r;
	struct rb_wbuf w = {out, 0, sizeof(out), false};

	if (rb_fab_row_decode(p, n, &r))
		return;
	FUZZ_CHECK(r.row.n <= RB_ROW_MAX);
	for (unsigned i = 0; i < r.row.n; i++) {
		const struct rb_field *f = &r.row.f[i];

		TERMINATED(r.keys[i]);
		TERMINATED(r.labels[i]);
		TERMINATED(f->s);
		FUZZ_CHECK(f->key == r.keys[i] && f->key[0] && (!f->label || f->label == r.labels[i]));
		FUZZ_CHECK(f->prec >= 0 && f->prec <= 12 && f->type <= RB_F_BOOL);
	}
	rb_fab_row_encode(&w, r.round, r.server, r.client, r.rail, &r.row);
	FUZZ_CHECK(!w.err && w.len == n && !memcmp(out, p, n));
}

/* END: an exit code, and the error and devices it names. */
static void end(const uint8_t *p, size_t n)
{
	struct rb_fab_end e;

	if (rb_fab_end_decode(p, n, &e))
		return;
	FUZZ_CHECK(e.code < 256);
	TERMINATED(e.error);
	TERMINATED(e.dev);
	ROUNDTRIP(rb_fab_end_encode, &e, p, n);
}

static void go(const uint8_t *p, size_t n)
{
	struct rb_fab_go g;
	struct rb_wbuf w = {out, 0, sizeof(out), false};

	if (rb_fab_go_decode(p, n, &g))
		return;
	FUZZ_CHECK(g.role <= RB_GO_FLOWS && (g.partner == UINT32_MAX) == (g.role > RB_GO_CLIENT));
	FUZZ_CHECK(g.role == RB_GO_FLOWS ? g.nflows >= 1 && g.nflows <= RB_FAB_GO_FLOWS : g.nflows == 0);
	for (unsigned i = 0; i < g.nflows; i++)
		FUZZ_CHECK(g.flows[i].partner != UINT32_MAX && g.flows[i].role <= RB_FLOW_VICTIM_CLIENT);
	rb_fab_go_encode(&w, &g);
	FUZZ_CHECK(!w.err && w.len == n && !memcmp(out, p, n));
}

/* DATAPORT, then the greeting a data connection opens with: it names the stream only with the token. */
static void dataport(const uint8_t *p, size_t n)
{
	struct sock_dataport d;
	uint8_t greet[SOCK_GREETING_LEN] = {0};
	unsigned dir = 0, idx = 0;
	size_t len = n < 8 + SOCK_TOKEN_LEN ? n : 8 + SOCK_TOKEN_LEN;

	if (sock_dataport_decode(p, len, &d))
		return;
	FUZZ_CHECK(d.port >= 1);
	ROUNDTRIP(sock_dataport_encode, &d, p, len);
	memcpy(greet, p + len, n - len < sizeof(greet) ? n - len : sizeof(greet));
	if (!sock_greeting_check(greet, d.token, &dir, &idx))
		FUZZ_CHECK(!memcmp(greet, d.token, SOCK_TOKEN_LEN) && dir == greet[SOCK_TOKEN_LEN] &&
		           idx == greet[SOCK_TOKEN_LEN + 1]);
	else
		FUZZ_CHECK(memcmp(greet, d.token, SOCK_TOKEN_LEN) != 0);
}

/* TCPINFO: what a receiver may put in its row is bounded, whatever the peer sent. */
static void tcpinfo(const uint8_t *p, size_t n)
{
	struct sock_tcp t;

	if (sock_tcp_decode(p, n, 64, &t))
		return;
	FUZZ_CHECK(t.nsocks >= 1 && t.nsocks <= 64 && t.retrans <= (uint64_t)t.nsocks << 32);
	FUZZ_CHECK(t.rtt_us >= 0 && t.rtt_us <= 4294967296.0 && t.cwnd < (1ull << 32) && t.cc[0]);
	FUZZ_CHECK(memchr(t.cc, 0, sizeof(t.cc)) != NULL);
}

/* SRUN: a stream index below the streams, a run as SIZE's rules say, and back to the same bytes. */
static void srun(const uint8_t *p, size_t n)
{
	unsigned stream;
	uint64_t size;
	uint32_t count;

	if (sock_srun_decode(p, n, 16, &stream, &size, &count))
		return;
	FUZZ_CHECK(stream < 16 && (size ? count >= 1 && count <= RB_WIRE_MAX_RUN : count == 0));
	{
		struct rb_wbuf w = {out, 0, sizeof(out), false};

		sock_srun_encode(&w, stream, size, count);
		FUZZ_CHECK(!w.err && w.len == n && !memcmp(out, p, n));
	}
}

/* SRXDONE: exactly the streams wanted, each count read, and back to the same bytes. */
static void srxdone(const uint8_t *p, size_t n)
{
	uint64_t msgs[16];
	unsigned want;

	if (n < 1)
		return;
	want = p[0] % 17;
	if (sock_srxdone_decode(p + 1, n - 1, want, msgs))
		return;
	FUZZ_CHECK(n - 1 == 4 + 8 * (size_t)want);
	{
		struct rb_wbuf w = {out, 0, sizeof(out), false};

		sock_srxdone_encode(&w, want, msgs);
		FUZZ_CHECK(!w.err && w.len == n - 1 && !memcmp(out, p + 1, n - 1));
	}
}

/*
 * A STAMPS frame: accepted only as the next rows in order, of the events this side
 * stamps, within the frame's and the step's caps, exactly that long; what it took
 * encodes back to the frame, and no row outside them is touched.
 */
static void stamps(const uint8_t *p, size_t n)
{
	static uint64_t rows[(size_t)RB_STAMPS_ROWS * RB_STAMPS_EVENTS_MAX];
	unsigned events;
	uint64_t got, from;
	char why[224];
	int ret;

	if (n < 3)
		return;
	events = p[0] % RB_STAMPS_EVENTS_MAX + 1;
	p++;
	n--;
	from = got = (uint64_t)take_u16(&p, &n) * 2;
	/* The row before the expected one (within the rows' room): left alone. */
	if (got && got <= RB_STAMPS_ROWS)
		rows[got * events - 1] = 0xdead;
	ret = rb_stamps_decode(p, (uint32_t)n, events, rows, &got, why, sizeof(why));
	FUZZ_CHECK(!from || from > RB_STAMPS_ROWS || rows[from * events - 1] == 0xdead);
	if (ret < 0) {
		FUZZ_CHECK(got == from && strlen(why) < sizeof(why));
		return;
	}
	FUZZ_CHECK(got >= from && got - from <= RB_STAMPS_FRAME_ROWS && got <= RB_STAMPS_ROWS);
	FUZZ_CHECK(n == 12 + (got - from) * events * 8 && (ret == 1) == (got - from < RB_STAMPS_FRAME_ROWS));
	{
		struct rb_wbuf w = {out, 0, sizeof(out), false};

		rb_put_u32(&w, (uint32_t)from);
		rb_put_u32(&w, (uint32_t)(got - from));
		rb_put_u32(&w, events);
		for (uint64_t i = from * events; i < got * events; i++)
			rb_put_u64(&w, rows[i]);
		FUZZ_CHECK(!w.err && w.len == n && !memcmp(out, p, n));
	}
}

static uint64_t take_be(const uint8_t **p, unsigned bytes)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < bytes; i++)
		v = v << 8 | *(*p)++;
	return v;
}

/*
 * A FIFO element the peer wrote, checked as the sender checks it. One that passes
 * lies within the receiver's area and offers at least the message, and is then used
 * as the sender may use it: its whole size written at its address, here into a heap
 * copy of the receiver's area (AddressSanitizer sees a byte past it).
 */
static void fifo(const uint8_t *p, size_t n)
{
	uint8_t in[FIFO_ELEM_BYTES + FUZZ_FIFO_TAIL] = {0}, enc[FIFO_ELEM_BYTES];
	const uint8_t *t = in + FIFO_ELEM_BYTES;
	struct fifo_bounds b = {.base = FUZZ_FIFO_BASE};
	struct fifo_elem e;
	char why[160];
	unsigned r;
	uint8_t *area;

	memcpy(in, p, n < sizeof(in) ? n : sizeof(in));
	fifo_elem_decode(in, &e);
	fifo_elem_encode(enc, &e);
	/* Every field is read; the padding after idx is not. */
	FUZZ_CHECK(!memcmp(enc, in, 48) && fifo_elem_idx(in) == e.idx);
	b.rkey = (uint32_t)take_be(&t, 4);
	b.tag = (uint32_t)take_be(&t, 4);
	b.nreqs = 1 + (uint32_t)take_be(&t, 1) % FIFO_MAX_RECVS;
	b.len = 1 + take_be(&t, 2);
	b.need = take_be(&t, 2) % (b.len + 1);
	r = (unsigned)take_be(&t, 1) % FIFO_MAX_RECVS;
	why[0] = '\0';
	if (fifo_check(&e, r, &b, why, sizeof(why))) {
		FUZZ_CHECK(why[0] && strlen(why) < sizeof(why));
		return;
	}
	FUZZ_CHECK(e.addr >= b.base && e.addr - b.base < b.len && e.size <= b.len - (e.addr - b.base));
	FUZZ_CHECK(e.size >= b.need && e.rkeys[0] == b.rkey && e.tag == b.tag && (r || e.nreqs == b.nreqs));
	area = malloc(b.len);
	FUZZ_CHECK(area);
	memset(area + (e.addr - b.base), 0x5a, e.size);
	free(area);
}

/* A payload the decoder accepts encodes back to the same bytes. */
#define DECODE_ROUNDTRIP(dec, enc, val, in, in_len)                                                          \
	do {                                                                                                 \
		if (!dec(in, in_len, val))                                                                   \
			ROUNDTRIP(enc, val, in, in_len);                                                     \
	} while (0)

/*
 * DONE: written back the same. Its elapsed time then meets the clock rule, against
 * another figure of the input for this side's and its message count for the round
 * trip: the rule is symmetric and agrees with itself.
 */
static void stepend(const uint8_t *p, size_t n, struct rb_stepend *e)
{
	if (rb_stepend_decode(p, n, e))
		return;
	ROUNDTRIP(rb_stepend_encode, e, p, n);
	FUZZ_CHECK(rb_stepend_clocks_agree(e->bytes, e->elapsed_ns, e->msgs) ==
	           rb_stepend_clocks_agree(e->elapsed_ns, e->bytes, e->msgs));
	FUZZ_CHECK(rb_stepend_clocks_agree(e->elapsed_ns, e->elapsed_ns, e->msgs));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_msgs m;
	const struct rb_lat_summary *l = &m.lat;
	const uint8_t *p = data + 1;
	size_t n;

	fuzz_register_msgs();

	if (size < 1)
		return 0;
	n = size - 1;
	switch (data[0] % FW_SEL_END) {
	case FW_HDR: hdr(p, n); break;
	case FW_HELLO: hello(p, n); break;
	case FW_QPINFO: qpinfo(p, n); break;
	case FW_WINDOW: DECODE_ROUNDTRIP(rb_window_decode, rb_window_encode, &m.window, p, n); break;
	case FW_VERDICT: DECODE_ROUNDTRIP(rb_verdict_decode, rb_verdict_encode, &m.verdict, p, n); break;
	case FW_LATSTATS:
		if (rb_latstats_decode(p, n, &m.lat))
			break;
		FUZZ_CHECK(l->min <= l->p50 && l->p50 <= l->p90 && l->p90 <= l->p99 && l->p99 <= l->p999 &&
		           l->p999 <= l->max);
		ROUNDTRIP(rb_latstats_encode, l, p, n);
		break;
	case FW_STEPEND: stepend(p, n, &m.stepend); break;
	case FW_U64:
		if (!rb_u64_decode(p, n, &m.u64))
			ROUNDTRIP(rb_u64_encode, m.u64, p, n);
		break;
	case FW_TEXT: text(p, n); break;
	case FW_AGREE:
		if (rb_agree_decode(p, n, &m.agree))
			break;
		FUZZ_CHECK(strlen(m.agree.why) < sizeof(m.agree.why) && (!m.agree.ok || !m.agree.why[0]));
		ROUNDTRIP(rb_agree_encode, &m.agree, p, n);
		break;
	case FW_MSGRUN:
		if (rb_msgrun_decode(p, n, &m.run.size, &m.run.count))
			break;
		FUZZ_CHECK(m.run.size ? m.run.count >= 1 && m.run.count <= RB_WIRE_MAX_RUN
		                      : m.run.count == 0);
		{
			struct rb_wbuf w_ = {out, 0, sizeof(out), false};
			rb_msgrun_encode(&w_, m.run.size, m.run.count);
			FUZZ_CHECK(!w_.err && w_.len == n && !memcmp(out, p, n));
		}
		break;
	case FW_JOIN: join(p, n); break;
	case FW_ROW: row(p, n); break;
	case FW_END: end(p, n); break;
	case FW_GO: go(p, n); break;
	case FW_DATAPORT: dataport(p, n); break;
	case FW_FIFO: fifo(p, n); break;
	case FW_TCPINFO: tcpinfo(p, n); break;
	case FW_SRUN: srun(p, n); break;
	case FW_SRXDONE: srxdone(p, n); break;
	case FW_STAMPS: stamps(p, n); break;
	}
	return 0;
}

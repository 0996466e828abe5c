/*
 * libFuzzer target: every out-of-band frame decoder on arbitrary bytes. A decoder
 * must refuse the input or produce a value that encodes back to exactly the bytes
 * it came from (so nothing it accepts is ambiguous), and never read outside the
 * input or write outside its output (AddressSanitizer checks that).
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

/* A payload the decoder accepts encodes back to the same bytes. */
#define DECODE_ROUNDTRIP(dec, enc, val, in, in_len)                                                          \
	do {                                                                                                 \
		if (!dec(in, in_len, val))                                                                   \
			ROUNDTRIP(enc, val, in, in_len);                                                     \
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fuzz_msgs m;
	const struct rb_lat_summary *l = &m.lat;
	const uint8_t *p = data + 1;
	size_t n;

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
	case FW_STEPEND: DECODE_ROUNDTRIP(rb_stepend_decode, rb_stepend_encode, &m.stepend, p, n); break;
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
	}
	return 0;
}

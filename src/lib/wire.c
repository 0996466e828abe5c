#include "wire.h"

#include "latency.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char *const msg_names[RB_MSG_TYPE_END] = {
    [RB_MSG_HELLO] = "HELLO",       [RB_MSG_QPINFO] = "QPINFO",     [RB_MSG_BARRIER] = "BARRIER",
    [RB_MSG_PROGRESS] = "PROGRESS", [RB_MSG_DONE] = "DONE",         [RB_MSG_WINDOW] = "WINDOW",
    [RB_MSG_VERIFY] = "VERIFY",     [RB_MSG_ERROR] = "ERROR",       [RB_MSG_LATSTATS] = "LATSTATS",
    [RB_MSG_SIZE] = "SIZE",         [RB_MSG_DATAPORT] = "DATAPORT", [RB_MSG_RXDONE] = "RXDONE",
};

const char *rb_msg_name(unsigned type)
{
	if (type > 0 && type < RB_MSG_TYPE_END)
		return msg_names[type];
	return "UNKNOWN";
}

/*
 * Per-type payload caps. HELLO holds at most RB_WIRE_MAX_PARAMS key/value strings
 * (about 8 KiB); QPINFO holds RB_QPINFO_PER_FRAME QPs (32 KiB); ERROR is one message string;
 * everything else is a handful of fixed-size numbers.
 */
#define SMALL_FRAME_MAX 256u
#define QPINFO_MAX      (57u + RB_QPINFO_PER_FRAME * 8u)
#define HELLO_MAX       (2u * (2 + RB_WIRE_KEY_LEN) + 2 + RB_WIRE_MAX_PARAMS * (4u + RB_WIRE_KEY_LEN + RB_WIRE_VAL_LEN))

uint32_t rb_msg_max_len(unsigned type)
{
	switch (type) {
	case RB_MSG_HELLO: return HELLO_MAX;
	case RB_MSG_QPINFO: return QPINFO_MAX;
	case RB_MSG_ERROR: return 2 + RB_WIRE_MSG_LEN;
	default: return type > 0 && type < RB_MSG_TYPE_END ? SMALL_FRAME_MAX : 0;
	}
}

void rb_frame_hdr_encode(uint8_t out[RB_WIRE_HDR_LEN], uint16_t type, uint32_t len)
{
	struct rb_wbuf w = {out, 0, RB_WIRE_HDR_LEN, false};
	rb_put_u32(&w, RB_WIRE_MAGIC);
	rb_put_u16(&w, RB_WIRE_VERSION);
	rb_put_u16(&w, type);
	rb_put_u32(&w, len);
}

int rb_frame_hdr_decode(const uint8_t in[RB_WIRE_HDR_LEN], struct rb_frame_hdr *h, const char **why)
{
	struct rb_rbuf r = {in, RB_WIRE_HDR_LEN, 0, false};
	uint32_t magic = rb_get_u32(&r);
	uint16_t version = rb_get_u16(&r);

	h->type = rb_get_u16(&r);
	h->len = rb_get_u32(&r);
	if (magic != RB_WIRE_MAGIC)
		*why = "bad magic (not an rdmabench peer?)";
	else if (version != RB_WIRE_VERSION)
		*why = "unsupported protocol version";
	else if (h->type == 0 || h->type >= RB_MSG_TYPE_END)
		*why = "unknown frame type";
	else if (h->len > rb_msg_max_len(h->type))
		*why = "payload longer than its frame type allows";
	else
		return 0;
	return -EPROTO;
}

/* ---- primitives ---- */

static uint8_t *wspace(struct rb_wbuf *w, size_t n)
{
	uint8_t *p;
	if (w->err || w->cap - w->len < n) {
		w->err = true;
		return NULL;
	}
	p = w->p + w->len;
	w->len += n;
	return p;
}

static void put_be(struct rb_wbuf *w, uint64_t v, unsigned n)
{
	uint8_t *p = wspace(w, n);
	if (!p)
		return;
	for (unsigned i = 0; i < n; i++)
		p[i] = (uint8_t)(v >> (8 * (n - 1 - i)));
}

void rb_put_u8(struct rb_wbuf *w, uint8_t v)
{
	put_be(w, v, 1);
}
void rb_put_u16(struct rb_wbuf *w, uint16_t v)
{
	put_be(w, v, 2);
}
void rb_put_u32(struct rb_wbuf *w, uint32_t v)
{
	put_be(w, v, 4);
}
void rb_put_u64(struct rb_wbuf *w, uint64_t v)
{
	put_be(w, v, 8);
}

void rb_put_f64(struct rb_wbuf *w, double v)
{
	uint64_t bits;
	memcpy(&bits, &v, sizeof(bits));
	put_be(w, bits, 8);
}

void rb_put_bytes(struct rb_wbuf *w, const void *b, size_t n)
{
	uint8_t *p = wspace(w, n);
	if (p && n)
		memcpy(p, b, n);
}

void rb_put_str(struct rb_wbuf *w, const char *s)
{
	size_t n = strlen(s);
	if (n > UINT16_MAX) {
		w->err = true;
		return;
	}
	rb_put_u16(w, (uint16_t)n);
	rb_put_bytes(w, s, n);
}

static const uint8_t *rspace(struct rb_rbuf *r, size_t n)
{
	const uint8_t *p;
	if (r->err || r->len - r->off < n) {
		r->err = true;
		return NULL;
	}
	p = r->p + r->off;
	r->off += n;
	return p;
}

static uint64_t get_be(struct rb_rbuf *r, unsigned n)
{
	const uint8_t *p = rspace(r, n);
	uint64_t v = 0;
	if (!p)
		return 0;
	for (unsigned i = 0; i < n; i++)
		v = (v << 8) | p[i];
	return v;
}

uint8_t rb_get_u8(struct rb_rbuf *r)
{
	return (uint8_t)get_be(r, 1);
}
uint16_t rb_get_u16(struct rb_rbuf *r)
{
	return (uint16_t)get_be(r, 2);
}
uint32_t rb_get_u32(struct rb_rbuf *r)
{
	return (uint32_t)get_be(r, 4);
}
uint64_t rb_get_u64(struct rb_rbuf *r)
{
	return get_be(r, 8);
}

double rb_get_f64(struct rb_rbuf *r)
{
	uint64_t bits = get_be(r, 8);
	double v;
	memcpy(&v, &bits, sizeof(v));
	return v;
}

void rb_get_bytes(struct rb_rbuf *r, void *b, size_t n)
{
	const uint8_t *p = rspace(r, n);
	if (p && n)
		memcpy(b, p, n);
}

void rb_get_str(struct rb_rbuf *r, char *out, size_t cap)
{
	uint16_t n = rb_get_u16(r);
	const uint8_t *p;

	out[0] = '\0';
	if (r->err)
		return;
	if (n >= cap) {
		r->err = true;
		return;
	}
	p = rspace(r, n);
	if (!p)
		return;
	for (unsigned i = 0; i < n; i++) {
		if (p[i] < 0x20 || p[i] > 0x7e) { /* no control bytes into our terminal */
			r->err = true;
			return;
		}
	}
	memcpy(out, p, n);
	out[n] = '\0';
}

bool rb_rbuf_done(const struct rb_rbuf *r)
{
	return !r->err && r->off == r->len;
}

/* ---- messages ---- */

void rb_hello_encode(struct rb_wbuf *w, const struct rb_hello *h)
{
	rb_put_str(w, h->tool);
	rb_put_str(w, h->version);
	rb_put_u16(w, (uint16_t)h->nparams);
	for (unsigned i = 0; i < h->nparams; i++) {
		rb_put_str(w, h->params[i].key);
		rb_put_str(w, h->params[i].val);
	}
}

int rb_hello_decode(const uint8_t *p, size_t len, struct rb_hello *h)
{
	struct rb_rbuf r = {p, len, 0, false};

	rb_get_str(&r, h->tool, sizeof(h->tool));
	rb_get_str(&r, h->version, sizeof(h->version));
	h->nparams = rb_get_u16(&r);
	if (h->nparams > RB_WIRE_MAX_PARAMS)
		return -EPROTO;
	for (unsigned i = 0; i < h->nparams && !r.err; i++) {
		rb_get_str(&r, h->params[i].key, sizeof(h->params[i].key));
		rb_get_str(&r, h->params[i].val, sizeof(h->params[i].val));
		if (!r.err && !h->params[i].key[0])
			return -EPROTO;
	}
	return rb_rbuf_done(&r) && h->tool[0] ? 0 : -EPROTO;
}

unsigned rb_qpinfo_frames(unsigned count)
{
	return (count + RB_QPINFO_PER_FRAME - 1) / RB_QPINFO_PER_FRAME;
}

void rb_qpinfo_encode(struct rb_wbuf *w, const struct rb_qpinfo_msg *m, unsigned frame)
{
	const struct rb_qpinfo *q0 = &m->qp[0];
	unsigned first = frame * RB_QPINFO_PER_FRAME, n = m->count - first;

	if (n > RB_QPINFO_PER_FRAME)
		n = RB_QPINFO_PER_FRAME;
	rb_put_u32(w, m->count);
	rb_put_u32(w, first);
	rb_put_u16(w, (uint16_t)n);
	rb_put_u16(w, q0->lid);
	rb_put_u8(w, q0->mtu);
	rb_put_bytes(w, q0->gid, sizeof(q0->gid));
	rb_put_u32(w, q0->rkey);
	rb_put_u64(w, q0->addr);
	rb_put_u64(w, q0->len);
	rb_put_u64(w, q0->stride);
	for (unsigned i = first; i < first + n; i++) {
		rb_put_u32(w, m->qp[i].qpn);
		rb_put_u32(w, m->qp[i].psn);
	}
}

int rb_qpinfo_decode(const uint8_t *p, size_t len, struct rb_qpinfo_msg *m, unsigned cap, unsigned next,
                     unsigned *filled)
{
	struct rb_rbuf r = {p, len, 0, false};
	struct rb_qpinfo shared = {0};
	uint32_t total = rb_get_u32(&r), first = rb_get_u32(&r);
	unsigned n = rb_get_u16(&r);

	shared.lid = rb_get_u16(&r);
	shared.mtu = rb_get_u8(&r);
	rb_get_bytes(&r, shared.gid, sizeof(shared.gid));
	shared.rkey = rb_get_u32(&r);
	shared.addr = rb_get_u64(&r);
	shared.len = rb_get_u64(&r);
	shared.stride = rb_get_u64(&r);
	if (r.err || total == 0 || total > RB_WIRE_MAX_QPS || first != next || n == 0 ||
	    n > RB_QPINFO_PER_FRAME || n > total - first || (next && total != m->count))
		return -EPROTO;
	/* MTU is an ibv_mtu code (256..4096); QP i's buffer must not wrap. */
	if (shared.mtu < 1 || shared.mtu > 5)
		return -EPROTO;
	/* The last QP's buffer, addr + (total - 1) * stride + len, must not wrap. */
	if (shared.stride && shared.stride > (UINT64_MAX - shared.addr) / total)
		return -EPROTO;
	if (shared.len > UINT64_MAX - shared.addr - (total - 1) * shared.stride)
		return -EPROTO;
	if (len - r.off != (size_t)n * 8)
		return -EPROTO;
	m->count = total;
	if (total > cap)
		return -E2BIG;
	if (next) {
		const struct rb_qpinfo *q0 = &m->qp[0];
		if (q0->lid != shared.lid || q0->mtu != shared.mtu || q0->rkey != shared.rkey ||
		    q0->addr != shared.addr || q0->len != shared.len || q0->stride != shared.stride ||
		    memcmp(q0->gid, shared.gid, sizeof(shared.gid)))
			return -EPROTO;
	}
	for (unsigned i = first; i < first + n; i++) {
		struct rb_qpinfo *q = &m->qp[i];
		*q = shared;
		q->addr = shared.addr + (uint64_t)i * shared.stride;
		q->qpn = rb_get_u32(&r);
		q->psn = rb_get_u32(&r);
		/* QPN and PSN are 24-bit. */
		if (q->qpn > 0xffffff || q->psn > 0xffffff)
			return -EPROTO;
	}
	*filled = first + n;
	return rb_rbuf_done(&r) ? 0 : -EPROTO;
}

void rb_latstats_encode(struct rb_wbuf *w, const struct rb_lat_summary *l)
{
	rb_put_u64(w, l->count);
	rb_put_u64(w, l->warmup);
	rb_put_f64(w, l->min);
	rb_put_f64(w, l->p50);
	rb_put_f64(w, l->mean);
	rb_put_f64(w, l->stdev);
	rb_put_f64(w, l->p90);
	rb_put_f64(w, l->p99);
	rb_put_f64(w, l->p999);
	rb_put_f64(w, l->max);
	rb_put_f64(w, l->elapsed_s);
}

int rb_latstats_decode(const uint8_t *p, size_t len, struct rb_lat_summary *l)
{
	struct rb_rbuf r = {p, len, 0, false};
	const double *order[] = {&l->min, &l->p50, &l->p90, &l->p99, &l->p999, &l->max};

	l->count = rb_get_u64(&r);
	l->warmup = rb_get_u64(&r);
	l->min = rb_get_f64(&r);
	l->p50 = rb_get_f64(&r);
	l->mean = rb_get_f64(&r);
	l->stdev = rb_get_f64(&r);
	l->p90 = rb_get_f64(&r);
	l->p99 = rb_get_f64(&r);
	l->p999 = rb_get_f64(&r);
	l->max = rb_get_f64(&r);
	l->elapsed_s = rb_get_f64(&r);
	if (!rb_rbuf_done(&r) || !(l->elapsed_s >= 0 && l->elapsed_s < 1e9))
		return -EPROTO;
	for (unsigned i = 0; i < 6; i++)
		if (!(*order[i] >= 0 && *order[i] < 1e12) || (i && *order[i] < *order[i - 1]))
			return -EPROTO;
	if (!(l->mean >= l->min && l->mean <= l->max) || !(l->stdev >= 0 && l->stdev < 1e12))
		return -EPROTO;
	return 0;
}

void rb_stepend_encode(struct rb_wbuf *w, const struct rb_stepend *e)
{
	rb_put_u64(w, e->msgs);
	rb_put_u64(w, e->bytes);
	rb_put_u64(w, e->elapsed_ns);
	rb_put_f64(w, e->peak_gbps);
	rb_put_f64(w, e->cpu_pct);
}

int rb_stepend_decode(const uint8_t *p, size_t len, struct rb_stepend *e)
{
	struct rb_rbuf r = {p, len, 0, false};

	e->msgs = rb_get_u64(&r);
	e->bytes = rb_get_u64(&r);
	e->elapsed_ns = rb_get_u64(&r);
	e->peak_gbps = rb_get_f64(&r);
	e->cpu_pct = rb_get_f64(&r);
	if (!rb_rbuf_done(&r))
		return -EPROTO;
	/* A figure that is negative or infinite is a corrupt frame; NaN says "not measured". */
	if (rb_stepend_has(e->peak_gbps) && !(e->peak_gbps >= 0 && e->peak_gbps < 1e9))
		return -EPROTO;
	if (rb_stepend_has(e->cpu_pct) && !(e->cpu_pct >= 0 && e->cpu_pct <= 100.0 * 4096))
		return -EPROTO;
	if (e->msgs && !e->elapsed_ns)
		return -EPROTO;
	return e->msgs <= e->bytes || e->bytes == 0 ? 0 : -EPROTO;
}

void rb_u64_encode(struct rb_wbuf *w, uint64_t v)
{
	rb_put_u64(w, v);
}

int rb_u64_decode(const uint8_t *p, size_t len, uint64_t *v)
{
	struct rb_rbuf r = {p, len, 0, false};
	*v = rb_get_u64(&r);
	return rb_rbuf_done(&r) ? 0 : -EPROTO;
}

void rb_text_encode(struct rb_wbuf *w, const char *msg)
{
	char clean[RB_WIRE_MSG_LEN];
	size_t i;

	for (i = 0; msg[i] && i < sizeof(clean) - 1; i++)
		clean[i] = (msg[i] >= 0x20 && msg[i] <= 0x7e) ? msg[i] : '?';
	clean[i] = '\0';
	rb_put_str(w, clean);
}

int rb_text_decode(const uint8_t *p, size_t len, char *msg, size_t cap)
{
	struct rb_rbuf r = {p, len, 0, false};
	rb_get_str(&r, msg, cap);
	return rb_rbuf_done(&r) ? 0 : -EPROTO;
}

int rb_hello_add(struct rb_hello *h, const char *key, const char *fmt, ...)
{
	va_list ap;
	struct rb_param *p;
	int n;

	if (h->nparams >= RB_WIRE_MAX_PARAMS || strlen(key) >= RB_WIRE_KEY_LEN)
		return -E2BIG;
	p = &h->params[h->nparams];
	va_start(ap, fmt);
	n = vsnprintf(p->val, sizeof(p->val), fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= sizeof(p->val))
		return -E2BIG;
	snprintf(p->key, sizeof(p->key), "%s", key);
	h->nparams++;
	return 0;
}

const char *rb_hello_get(const struct rb_hello *h, const char *key)
{
	for (unsigned i = 0; i < h->nparams; i++)
		if (!strcmp(h->params[i].key, key))
			return h->params[i].val;
	return NULL;
}

unsigned rb_hello_compare(const struct rb_hello *local, const struct rb_hello *remote,
                          void (*report)(const char *key, const char *l, const char *r))
{
	unsigned bad = 0;

	for (unsigned i = 0; i < local->nparams; i++) {
		const char *rv = rb_hello_get(remote, local->params[i].key);
		if (!rv || strcmp(rv, local->params[i].val)) {
			bad++;
			report(local->params[i].key, local->params[i].val, rv ? rv : "(absent)");
		}
	}
	for (unsigned i = 0; i < remote->nparams; i++) {
		if (!rb_hello_get(local, remote->params[i].key)) {
			bad++;
			report(remote->params[i].key, "(absent)", remote->params[i].val);
		}
	}
	return bad;
}

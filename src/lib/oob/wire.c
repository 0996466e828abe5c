/* SPDX-License-Identifier: BSD-2-Clause */
#include "wire.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/*
 * Per-type payload caps. HELLO holds at most RB_WIRE_MAX_PARAMS key/value strings
 * (about 8 KiB); QPINFO holds RB_QPINFO_PER_FRAME QPs (32 KiB); ERROR is one message string;
 * everything else is a handful of fixed-size numbers.
 */
#define SMALL_FRAME_MAX 256u
#define QPINFO_MAX      (77u + RB_QPINFO_PER_FRAME * 8u)
#define HELLO_MAX                                                                                            \
	(2u * (2 + RB_WIRE_KEY_LEN) + (2 + RB_WIRE_HOST_LEN) + 2 +                                           \
	 (RB_WIRE_MAX_PARAMS + RB_WIRE_MAX_ARGS) * (4u + RB_WIRE_KEY_LEN + RB_WIRE_VAL_LEN) + 2)
#define TEXT_MAX (2u + RB_WIRE_MSG_LEN)

/* The library's types, then whatever was registered: by type number. */
static struct rb_msg_def types[RB_MSG_TYPE_END] = {
    [RB_MSG_HELLO] = {RB_MSG_HELLO, "HELLO", HELLO_MAX, false},
    [RB_MSG_QPINFO] = {RB_MSG_QPINFO, "QPINFO", QPINFO_MAX, false},
    [RB_MSG_BARRIER] = {RB_MSG_BARRIER, "BARRIER", SMALL_FRAME_MAX, false},
    [RB_MSG_PROGRESS] = {RB_MSG_PROGRESS, "PROGRESS", SMALL_FRAME_MAX, false},
    [RB_MSG_DONE] = {RB_MSG_DONE, "DONE", SMALL_FRAME_MAX, true},
    [RB_MSG_CLOCK] = {RB_MSG_CLOCK, "CLOCK", 32, false},
    [RB_MSG_STAMPS] = {RB_MSG_STAMPS, "STAMPS", RB_WIRE_STAMPS_MAX, false},
    [RB_MSG_ERROR] = {RB_MSG_ERROR, "ERROR", TEXT_MAX, false},
    [RB_MSG_LATSTATS] = {RB_MSG_LATSTATS, "LATSTATS", SMALL_FRAME_MAX, true},
    [RB_MSG_AUTH] = {RB_MSG_AUTH, "AUTH", SMALL_FRAME_MAX, false},
    [RB_MSG_CHALLENGE] = {RB_MSG_CHALLENGE, "CHALLENGE", SMALL_FRAME_MAX, false},
    [RB_MSG_PROOF] = {RB_MSG_PROOF, "PROOF", SMALL_FRAME_MAX, false},
    [RB_MSG_AGREE] = {RB_MSG_AGREE, "AGREE", 8 + 1 + 3 * RB_WIRE_ECHO_LEN + TEXT_MAX, false},
    [RB_MSG_REFUSE] = {RB_MSG_REFUSE, "REFUSE", TEXT_MAX, false},
};

int rb_msg_register(const struct rb_msg_def *defs, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		const struct rb_msg_def *d = &defs[i];
		struct rb_msg_def *slot = d->type > 0 && d->type < RB_MSG_TYPE_END ? &types[d->type] : NULL;

		if (!slot || !d->name || !d->max_len || d->max_len > RB_WIRE_MAX_PAYLOAD)
			return -EINVAL;
		if (slot->name && (strcmp(slot->name, d->name) || slot->max_len != d->max_len ||
		                   slot->figures != d->figures))
			return -EEXIST;
		*slot = *d;
	}
	return 0;
}

const char *rb_msg_name(unsigned type)
{
	if (type > 0 && type < RB_MSG_TYPE_END && types[type].name)
		return types[type].name;
	return "UNKNOWN";
}

bool rb_msg_figures(unsigned type)
{
	return type > 0 && type < RB_MSG_TYPE_END && types[type].figures;
}

uint32_t rb_msg_max_len(unsigned type)
{
	return type > 0 && type < RB_MSG_TYPE_END ? types[type].max_len : 0;
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
	else if (!rb_msg_max_len(h->type))
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

/* ---- the library's generic payloads: one u64 (BARRIER, PROGRESS, DATAPORT), one string (ERROR), SIZE ----
 */

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

void rb_msgrun_encode(struct rb_wbuf *w, uint64_t size, uint32_t count)
{
	rb_put_u64(w, size);
	rb_put_u32(w, count);
}

int rb_msgrun_decode(const uint8_t *p, size_t len, uint64_t *size, uint32_t *count)
{
	struct rb_rbuf r = {p, len, 0, false};

	*size = rb_get_u64(&r);
	*count = rb_get_u32(&r);
	if (!rb_rbuf_done(&r))
		return -EPROTO;
	/* The end says so with both zero; a run holds at least one message. */
	if (*size ? *count == 0 || *count > RB_WIRE_MAX_RUN : *count != 0)
		return -EPROTO;
	return 0;
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

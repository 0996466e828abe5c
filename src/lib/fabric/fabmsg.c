/* SPDX-License-Identifier: BSD-2-Clause */
#include "fabmsg.h"

#include <errno.h>
#include <string.h>

void rb_fab_join_encode(struct rb_wbuf *w, const struct rb_fab_join *j)
{
	rb_put_u32(w, j->rank);
	rb_put_u32(w, j->size);
	rb_put_u32(w, j->pid);
	rb_put_u32(w, j->rails);
	rb_put_bytes(w, j->cookie, sizeof(j->cookie));
	rb_put_str(w, j->host);
	rb_put_str(w, j->dev);
	rb_put_str(w, j->addr);
}

int rb_fab_join_decode(const uint8_t *p, size_t len, struct rb_fab_join *j)
{
	struct rb_rbuf r = {p, len, 0, false};

	memset(j, 0, sizeof(*j));
	j->rank = rb_get_u32(&r);
	j->size = rb_get_u32(&r);
	j->pid = rb_get_u32(&r);
	j->rails = rb_get_u32(&r);
	rb_get_bytes(&r, j->cookie, sizeof(j->cookie));
	rb_get_str(&r, j->host, sizeof(j->host));
	rb_get_str(&r, j->dev, sizeof(j->dev));
	rb_get_str(&r, j->addr, sizeof(j->addr));
	return rb_rbuf_done(&r) && j->rank < j->size && j->rails >= 1 && j->rails <= 16 ? 0 : -EPROTO;
}

void rb_fab_row_encode(struct rb_wbuf *w, uint32_t round, uint32_t server, uint32_t client, uint32_t rail,
                       const struct rb_row *row)
{
	rb_put_u32(w, round);
	rb_put_u32(w, server);
	rb_put_u32(w, client);
	rb_put_u32(w, rail);
	rb_put_u16(w, (uint16_t)row->n);
	for (unsigned i = 0; i < row->n; i++) {
		const struct rb_field *f = &row->f[i];
		char buf[RB_FAB_LABEL_LEN + 8];
		const char *label = f->label ? rb_field_label(f, buf, sizeof(buf)) : "";

		if (strlen(f->key) >= RB_FAB_KEY_LEN || strlen(label) >= RB_FAB_LABEL_LEN)
			w->err = true;
		rb_put_u8(w, (uint8_t)f->type);
		rb_put_u8(w, (uint8_t)f->prec);
		rb_put_str(w, f->key);
		rb_put_str(w, label);
		switch (f->type) {
		case RB_F_U64: rb_put_u64(w, f->v.u); break;
		case RB_F_DBL: rb_put_f64(w, f->v.d); break;
		case RB_F_BOOL: rb_put_u8(w, f->v.b); break;
		default: rb_put_str(w, rb_field_str(f)); break;
		}
	}
}

int rb_fab_row_decode(const uint8_t *p, size_t len, struct rb_fab_row *out)
{
	struct rb_rbuf r = {p, len, 0, false};
	unsigned n;

	memset(&out->row, 0, sizeof(out->row));
	out->round = rb_get_u32(&r);
	out->server = rb_get_u32(&r);
	out->client = rb_get_u32(&r);
	out->rail = rb_get_u32(&r);
	n = rb_get_u16(&r);
	if (r.err || n > RB_ROW_MAX)
		return -EPROTO;
	for (unsigned i = 0; i < n && !r.err; i++) {
		struct rb_field *f = &out->row.f[i];
		unsigned type = rb_get_u8(&r);

		f->prec = rb_get_u8(&r);
		rb_get_str(&r, out->keys[i], sizeof(out->keys[i]));
		rb_get_str(&r, out->labels[i], sizeof(out->labels[i]));
		if (r.err || !out->keys[i][0] || f->prec > 12)
			return -EPROTO;
		f->key = out->keys[i];
		f->label = out->labels[i][0] ? out->labels[i] : NULL;
		switch (type) {
		case RB_F_U64: f->v.u = rb_get_u64(&r); break;
		case RB_F_DBL: f->v.d = rb_get_f64(&r); break;
		case RB_F_BOOL: {
			uint8_t b = rb_get_u8(&r);
			if (b > 1)
				return -EPROTO;
			f->v.b = b;
			break;
		}
		case RB_F_STR: rb_get_str(&r, f->s, sizeof(f->s)); break;
		default: return -EPROTO;
		}
		f->type = (enum rb_ftype)type;
	}
	out->row.n = n;
	return rb_rbuf_done(&r) ? 0 : -EPROTO;
}

void rb_fab_end_encode(struct rb_wbuf *w, const struct rb_fab_end *e)
{
	rb_put_u32(w, e->round);
	rb_put_u32(w, e->partner);
	rb_put_u32(w, e->code);
	rb_put_str(w, e->error);
	rb_put_str(w, e->dev);
}

int rb_fab_end_decode(const uint8_t *p, size_t len, struct rb_fab_end *e)
{
	struct rb_rbuf r = {p, len, 0, false};

	memset(e, 0, sizeof(*e));
	e->round = rb_get_u32(&r);
	e->partner = rb_get_u32(&r);
	e->code = rb_get_u32(&r);
	rb_get_str(&r, e->error, sizeof(e->error));
	rb_get_str(&r, e->dev, sizeof(e->dev));
	return rb_rbuf_done(&r) && e->code < 256 ? 0 : -EPROTO;
}

void rb_fab_go_encode(struct rb_wbuf *w, const struct rb_fab_go *g)
{
	rb_put_u32(w, g->round);
	rb_put_u32(w, g->partner);
	rb_put_u8(w, g->role);
	rb_put_u8(w, g->phase);
	if (g->role != RB_GO_FLOWS)
		return;
	rb_put_u16(w, g->nflows);
	for (unsigned i = 0; i < g->nflows && i < RB_FAB_GO_FLOWS; i++) {
		rb_put_u32(w, g->flows[i].partner);
		rb_put_u8(w, g->flows[i].role);
	}
}

int rb_fab_go_decode(const uint8_t *p, size_t len, struct rb_fab_go *g)
{
	struct rb_rbuf r = {p, len, 0, false};

	g->round = rb_get_u32(&r);
	g->partner = rb_get_u32(&r);
	g->role = rb_get_u8(&r);
	g->phase = rb_get_u8(&r);
	g->nflows = 0;
	if (g->role == RB_GO_FLOWS) {
		g->nflows = rb_get_u16(&r);
		if (r.err || g->nflows < 1 || g->nflows > RB_FAB_GO_FLOWS || g->phase > RB_GO_RETEST)
			return -EPROTO;
		for (unsigned i = 0; i < g->nflows; i++) {
			g->flows[i].partner = rb_get_u32(&r);
			g->flows[i].role = rb_get_u8(&r);
			if (r.err || g->flows[i].partner == UINT32_MAX ||
			    g->flows[i].role > RB_FLOW_VICTIM_CLIENT)
				return -EPROTO;
			for (unsigned j = 0; j < i; j++)
				if (g->flows[j].partner == g->flows[i].partner &&
				    g->flows[j].role == g->flows[i].role)
					return -EPROTO;
		}
		return rb_rbuf_done(&r) && g->partner == UINT32_MAX ? 0 : -EPROTO;
	}
	if (!rb_rbuf_done(&r) || g->role > RB_GO_OVER || g->phase > RB_GO_RETEST)
		return -EPROTO;
	/* Only a pair has a partner. */
	return (g->role <= RB_GO_CLIENT) == (g->partner != UINT32_MAX) ? 0 : -EPROTO;
}

int rb_fab_register_msgs(void)
{
	static const struct rb_msg_def defs[] = {
	    {RB_MSG_JOIN, "JOIN", RB_FAB_JOIN_MAX, false},
	    {RB_MSG_ROW, "ROW", RB_FAB_ROW_MAX, false},
	    {RB_MSG_END, "END", RB_FAB_END_MAX, false},
	    {RB_MSG_GO, "GO", RB_FAB_GO_MAX, false},
	};

	return rb_msg_register(defs, sizeof(defs) / sizeof(defs[0]));
}

/* SPDX-License-Identifier: BSD-2-Clause */
#include "row.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct rb_field *add(struct rb_row *r, const char *key, const char *label, enum rb_ftype t)
{
	struct rb_field *f;

	if (r->n >= RB_ROW_MAX) {
		/* Rows are built by our code: a full row is a bug, said where every test sees it. */
		fprintf(stderr, "internal error: a row holds at most %d fields: %s left out\n", RB_ROW_MAX,
		        key);
		return NULL;
	}
	f = &r->f[r->n++];
	memset(f, 0, sizeof(*f));
	f->key = key;
	f->label = label;
	f->type = t;
	return f;
}

void rb_row_u64(struct rb_row *r, const char *key, const char *label, uint64_t v)
{
	struct rb_field *f = add(r, key, label, RB_F_U64);
	if (f)
		f->v.u = v;
}

void rb_row_dbl(struct rb_row *r, const char *key, const char *label, int prec, double v)
{
	struct rb_field *f = add(r, key, label, RB_F_DBL);
	if (f) {
		f->v.d = v;
		f->prec = prec;
	}
}

void rb_row_str(struct rb_row *r, const char *key, const char *label, const char *v)
{
	struct rb_field *f = add(r, key, label, RB_F_STR);
	if (f)
		snprintf(f->s, sizeof(f->s), "%s", v ? v : "");
}

void rb_row_str_ref(struct rb_row *r, const char *key, const char *label, const char *v)
{
	struct rb_field *f = add(r, key, label, RB_F_STR);
	if (f)
		f->ref = v ? v : "";
}

static struct rb_field *put(struct rb_row *r, const struct rb_col *c, enum rb_ftype t)
{
	struct rb_field *f = add(r, c->key, c->label, t);

	if (f) {
		f->unit = c->unit;
		f->prec = c->prec;
	}
	return f;
}

void rb_row_put_u64(struct rb_row *r, const struct rb_col *c, uint64_t v)
{
	struct rb_field *f = put(r, c, RB_F_U64);
	if (f)
		f->v.u = v;
}

void rb_row_put_dbl(struct rb_row *r, const struct rb_col *c, double v)
{
	struct rb_field *f = put(r, c, RB_F_DBL);
	if (f)
		f->v.d = v;
}

void rb_row_put_str(struct rb_row *r, const struct rb_col *c, const char *v)
{
	struct rb_field *f = put(r, c, RB_F_STR);
	if (f)
		snprintf(f->s, sizeof(f->s), "%s", v ? v : "");
}

void rb_row_put_bool(struct rb_row *r, const struct rb_col *c, bool v)
{
	struct rb_field *f = put(r, c, RB_F_BOOL);
	if (f)
		f->v.b = v;
}

void rb_row_untable(struct rb_row *r, const struct rb_col *c)
{
	if (r->n && r->f[r->n - 1].key == c->key)
		r->f[r->n - 1].label = NULL;
}

const char *rb_field_label(const struct rb_field *f, char *buf, size_t len)
{
	if (!f->label || !f->unit)
		return f->label;
	snprintf(buf, len, "%s[%s]", f->label, f->unit);
	return buf;
}

const char *rb_field_str(const struct rb_field *f)
{
	return f->ref ? f->ref : f->s;
}

const struct rb_field *rb_row_find(const struct rb_row *r, const char *key)
{
	for (unsigned i = 0; i < r->n; i++)
		if (!strcmp(r->f[i].key, key))
			return &r->f[i];
	return NULL;
}

const char *rb_row_get_str(const struct rb_row *r, const char *key)
{
	for (unsigned i = 0; i < r->n; i++)
		if (r->f[i].type == RB_F_STR && !strcmp(r->f[i].key, key))
			return rb_field_str(&r->f[i]);
	return NULL;
}

void rb_row_bool(struct rb_row *r, const char *key, const char *label, bool v)
{
	struct rb_field *f = add(r, key, label, RB_F_BOOL);
	if (f)
		f->v.b = v;
}

/* Documents keep full precision: the shortest decimal that reads back as the same double. */
void rb_dbl_full(FILE *f, double v)
{
	char buf[32];

	for (int digits = 15; digits <= 17; digits++) {
		snprintf(buf, sizeof(buf), "%.*g", digits, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	fputs(buf, f);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* The documents' schema (schema.h): one set of columns per tool, whatever the options. */
#include "schema.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

const char *const rb_schema_tail[] = {"repeat",  "repeats", "unstable", "interval", "t_start_s",
                                      "t_end_s", "partial", "host",     "peer",     "date",
                                      "version", "schema",  "command",  NULL};

static void copy_meta(char *dst, size_t len, const struct rb_row *meta, const char *key)
{
	const char *v = meta ? rb_row_get_str(meta, key) : NULL;

	snprintf(dst, len, "%s", v ? v : "");
}

void rb_schema_doc_begin(struct rb_schema_doc *d, const struct rb_schema *s, const struct rb_row *meta)
{
	memset(d, 0, sizeof(*d));
	d->s = s;
	if (!s)
		return;
	snprintf(d->name, sizeof(d->name), "%s/%d", s->tool, RB_SCHEMA_VERSION);
	copy_meta(d->host, sizeof(d->host), meta, "host");
	copy_meta(d->peer, sizeof(d->peer), meta, "peer");
	copy_meta(d->date, sizeof(d->date), meta, "date");
	copy_meta(d->version, sizeof(d->version), meta, "version");
	d->command = meta ? rb_row_get_str(meta, "command") : NULL;
}

/* The tail's values that come from the meta; NULL for the row's own (repeat ... partial). */
static const char *from_meta(const struct rb_schema_doc *d, const char *key)
{
	if (!strcmp(key, "host"))
		return d->host;
	if (!strcmp(key, "peer"))
		return d->peer;
	if (!strcmp(key, "date"))
		return d->date;
	if (!strcmp(key, "version"))
		return d->version;
	if (!strcmp(key, "schema"))
		return d->name;
	if (!strcmp(key, "command"))
		return d->command ? d->command : "";
	return NULL;
}

static void column(struct rb_schema_doc *d, const struct rb_row *row, const char *key, struct rb_row *out,
                   bool with_meta)
{
	const struct rb_field *f = rb_row_find(row, key);
	const char *m = from_meta(d, key);

	if (m && !with_meta)
		return;
	if (f && out->n < RB_ROW_MAX)
		out->f[out->n++] = *f;
	else if (m)
		rb_row_str_ref(out, key, NULL, m);
	else
		rb_row_dbl(out, key, NULL, 0, NAN);
}

bool rb_schema_has(const struct rb_schema *s, const char *key)
{
	for (const struct rb_cols *g = s->groups; g->n; g++)
		for (unsigned c = 0; c < g->n; c++)
			if (!strcmp(g->v[c].key, key))
				return true;
	for (const char *const *c = rb_schema_tail; *c; c++)
		if (!strcmp(*c, key))
			return true;
	return false;
}

void rb_schema_project(struct rb_schema_doc *d, const struct rb_row *row, struct rb_row *out, bool with_meta)
{
	out->n = 0;
	if (!d->s) {
		*out = *row;
		return;
	}
	for (const struct rb_cols *g = d->s->groups; g->n; g++)
		for (unsigned c = 0; c < g->n; c++)
			column(d, row, g->v[c].key, out, with_meta);
	for (const char *const *c = rb_schema_tail; *c; c++)
		column(d, row, *c, out, with_meta);
	for (unsigned i = 0; i < row->n && d->warned < 4; i++)
		if (!rb_schema_has(d->s, row->f[i].key)) {
			rb_warn("internal: column '%s' is not in the %s schema; the documents leave it out",
			        row->f[i].key, d->name);
			d->warned++;
		}
}

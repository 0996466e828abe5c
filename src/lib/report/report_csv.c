/* SPDX-License-Identifier: BSD-2-Clause */
/* CSV: a header row, one line a row, and a last row holding the error when incomplete. */
#include "reporters.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void csv_str(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\n\r")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (const char *p = s; *p; p++) {
		if (*p == '"')
			fputc('"', f);
		fputc(*p, f);
	}
	fputc('"', f);
}

static void csv_value(FILE *f, const struct rb_field *x)
{
	switch (x->type) {
	case RB_F_U64: fprintf(f, "%llu", (unsigned long long)x->v.u); break;
	case RB_F_DBL:
		if (isfinite(x->v.d))
			rb_dbl_full(f, x->v.d);
		break;
	case RB_F_BOOL: fputs(x->v.b ? "1" : "0", f); break;
	case RB_F_STR: csv_str(f, rb_field_str(x)); break;
	}
}

static void csv_begin(FILE *f, const struct rb_row *meta)
{
	(void)f;
	(void)meta;
}

static void csv_row(FILE *f, const struct rb_row *row, unsigned index)
{
	if (index == 0) {
		for (unsigned i = 0; i < row->n; i++)
			fprintf(f, "%s,", row->f[i].key);
		fputs("error\n", f);
	}
	for (unsigned i = 0; i < row->n; i++) {
		csv_value(f, &row->f[i]);
		fputc(',', f);
	}
	fputc('\n', f); /* the error cell: empty, this row was measured */
}

void rb_csv_error_row(FILE *f, const struct rb_row *shape, unsigned rows, const char *error)
{
	for (unsigned i = 0; !rows && i < shape->n; i++)
		fprintf(f, "%s,", shape->f[i].key);
	if (!rows)
		fputs("error\n", f);
	for (unsigned i = 0; i < shape->n; i++) {
		csv_value(f, &shape->f[i]);
		fputc(',', f);
	}
	csv_str(f, error);
	fputc('\n', f);
}

/* Not complete (a document without a schema): one more row, every cell empty but the error. */
static void csv_end(FILE *f, unsigned rows, unsigned cols, const char *error, const struct rb_section *sec)
{
	if (!error)
		return;
	if (!rows)
		fputs("error\n", f);
	for (unsigned i = 0; rows && i < cols; i++)
		fputc(',', f);
	csv_str(f, error[0] ? error : "failed");
	fputc('\n', f);
}

const struct rb_reporter_ops rb_csv_ops = {"csv", csv_begin, csv_row, csv_end, NULL};

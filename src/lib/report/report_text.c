/* SPDX-License-Identifier: BSD-2-Clause */
/* The text table on stdout, and --output's one number per row. */
#include "reporters.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static int text_width(const struct rb_field *f)
{
	char buf[96];
	int w = (int)strlen(rb_field_label(f, buf, sizeof(buf))) + 3;
	return w < 12 ? 12 : w;
}

/*
 * The field's decimals, or more for a small value: at least 3 significant digits
 * (a 64 B run on SoftRoCE is 0.00812 Gb/s, not 0.008; a 2 B row not 0.000).
 */
static int text_decimals(const struct rb_field *x)
{
	double a = fabs(x->v.d);
	int d;

	if (!(a > 0) || a >= 1 || !isfinite(a))
		return x->prec;
	d = 2 - (int)floor(log10(a));
	d = d > 9 ? 9 : d;
	return d > x->prec ? d : x->prec;
}

static void text_begin(FILE *f, const struct rb_row *meta)
{
	(void)f;
	(void)meta;
}

static void text_row(FILE *f, const struct rb_row *row, unsigned index)
{
	if (index == 0) {
		for (unsigned i = 0; i < row->n; i++)
			if (row->f[i].label) {
				char buf[96];
				fprintf(f, "%*s", text_width(&row->f[i]),
				        rb_field_label(&row->f[i], buf, sizeof(buf)));
			}
		fputc('\n', f);
	}
	for (unsigned i = 0; i < row->n; i++) {
		const struct rb_field *x = &row->f[i];
		int w;
		if (!x->label)
			continue;
		w = text_width(x);
		switch (x->type) {
		case RB_F_U64: fprintf(f, "%*llu", w, (unsigned long long)x->v.u); break;
		case RB_F_DBL:
			if (isnan(x->v.d))
				fprintf(f, "%*s", w, "-");
			else
				fprintf(f, "%*.*f", w, text_decimals(x), x->v.d);
			break;
		case RB_F_STR: fprintf(f, "%*s", w, rb_field_str(x)); break;
		case RB_F_BOOL: fprintf(f, "%*s", w, x->v.b ? "yes" : "no"); break;
		}
	}
	fputc('\n', f);
	fflush(f);
}

static void text_end(FILE *f, unsigned rows, unsigned cols, const char *error, const struct rb_section *sec)
{
	(void)f;
	(void)rows;
	(void)cols;
	(void)error;
}

/* perftest's --output: one number per row on stdout, for scripts; the field is the report's key. */
void rb_value_row(FILE *f, const struct rb_row *row, const char *key)
{
	for (unsigned i = 0; i < row->n; i++) {
		const struct rb_field *x = &row->f[i];
		if (strcmp(x->key, key))
			continue;
		if (x->type == RB_F_DBL && isfinite(x->v.d))
			rb_dbl_full(f, x->v.d);
		else if (x->type == RB_F_U64)
			fprintf(f, "%llu", (unsigned long long)x->v.u);
		else
			fputs("-", f);
		break;
	}
	fputc('\n', f);
	fflush(f);
}

static void no_row(FILE *f, const struct rb_row *row, unsigned index)
{
	(void)f;
	(void)row;
	(void)index;
}

const struct rb_reporter_ops rb_text_ops = {"text", text_begin, text_row, text_end, NULL};
const struct rb_reporter_ops rb_value_ops = {"value", text_begin, no_row, text_end, NULL};

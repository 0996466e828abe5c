/* SPDX-License-Identifier: BSD-2-Clause */
/* JSON: meta, results, an optional section, "complete" and the error. */
#include "reporters.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Bytes in the UTF-8 sequence that starts at p (1..4), or 0 when it is not valid UTF-8. */
static unsigned utf8_len(const unsigned char *p)
{
	unsigned n = p[0] >= 0xf0 && p[0] <= 0xf4  ? 4
	             : p[0] >= 0xe0                ? 3
	             : p[0] >= 0xc2 && p[0] < 0xe0 ? 2
	                                           : 0;

	for (unsigned i = 1; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

void rb_json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		unsigned n;

		if (*p == '"' || *p == '\\')
			fprintf(f, "\\%c", *p);
		else if (*p < 0x20)
			fprintf(f, "\\u%04x", *p);
		else if (*p < 0x80)
			fputc(*p, f);
		else if ((n = utf8_len(p)) != 0) {
			fwrite(p, 1, n, f);
			p += n - 1;
		} else {
			fputs("\\ufffd", f); /* not UTF-8 (or cut in the middle of a character) */
		}
	}
	fputc('"', f);
}

void rb_json_value(FILE *f, const struct rb_field *x)
{
	switch (x->type) {
	case RB_F_U64: fprintf(f, "%llu", (unsigned long long)x->v.u); break;
	case RB_F_DBL:
		if (isfinite(x->v.d))
			rb_dbl_full(f, x->v.d);
		else
			fputs("null", f);
		break;
	case RB_F_BOOL: fputs(x->v.b ? "true" : "false", f); break;
	case RB_F_STR: rb_json_string(f, rb_field_str(x)); break;
	}
}

static void json_object(FILE *f, const struct rb_row *row, const char *indent)
{
	fputs("{", f);
	for (unsigned i = 0; i < row->n; i++) {
		const struct rb_field *x = &row->f[i];
		fprintf(f, "%s\n%s  ", i ? "," : "", indent);
		rb_json_string(f, x->key);
		fputs(": ", f);
		rb_json_value(f, x);
	}
	fprintf(f, "\n%s}", indent);
}

static void json_begin(FILE *f, const struct rb_row *meta)
{
	fputs("{\n  \"meta\": ", f);
	json_object(f, meta, "  ");
	fputs(",\n  \"results\": [", f);
}

static void json_row(FILE *f, const struct rb_row *row, unsigned index)
{
	fputs(index ? ",\n    " : "\n    ", f);
	json_object(f, row, "    ");
}

static void json_end(FILE *f, unsigned rows, unsigned cols, const char *error, const struct rb_section *sec)
{
	(void)cols;
	fputs(rows ? "\n  ],\n" : "],\n", f);
	if (sec) {
		fprintf(f, "  ");
		rb_json_string(f, sec->key);
		fputs(": ", f);
		sec->emit(f, sec->arg);
		fputs(",\n", f);
	}
	fprintf(f, "  \"complete\": %s", error ? "false" : "true");
	if (error) {
		fputs(",\n  \"error\": ", f);
		rb_json_string(f, error);
	}
	fputs("\n}\n", f);
}

const struct rb_reporter_ops rb_json_ops = {"json", json_begin, json_row, json_end, NULL};

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A result row: an ordered list of typed fields (key, text-table label, value), the
 * one currency between what measures and what writes documents. A meta block is a
 * row too. A tool declares its rows' columns once, as a table of struct rb_col: the
 * documents' columns come from it (report/schema.h), its rows are put through it.
 */
#ifndef RB_ROW_H
#define RB_ROW_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define RB_ROW_MAX 192 /* fields; fifo_pingpong's rows, the widest, have 140 */

enum rb_ftype { RB_F_U64, RB_F_DBL, RB_F_STR, RB_F_BOOL };

struct rb_field {
	const char *key;   /* CSV column / JSON key, units in the name */
	const char *label; /* text-table column header; NULL = not in the table */
	const char *unit;  /* shown after the label in brackets ("Gb/s"); NULL: none, or in the label */
	enum rb_ftype type;
	int prec; /* digits after the point in the text table (more for small values); documents keep every
	             digit */
	union {
		uint64_t u;
		double d;
		bool b;
	} v;
	char s[96];
	const char *ref; /* a longer string the row's maker keeps alive (the command line); else s */
};

struct rb_row {
	unsigned n;
	struct rb_field f[RB_ROW_MAX];
};

/*
 * A column, declared once: its documents' key (the unit in the name), its text-table
 * label (NULL: documents only) and unit, and the digits the table shows (documents
 * keep every digit).
 */
struct rb_col {
	const char *key;
	const char *label;
	const char *unit;
	int prec;
};

/* A run of columns: a tool's table, a slice of it, or a library group. */
struct rb_cols {
	const struct rb_col *v;
	unsigned n;
};
/* An initializer of struct rb_cols: a whole array (its size known here), or [from, to) of it. */
#define RB_COLS(a)                                                                                           \
	{                                                                                                    \
		(a), sizeof(a) / sizeof((a)[0])                                                              \
	}
#define RB_COLS_SLICE(a, from, to)                                                                           \
	{                                                                                                    \
		(a) + (from), (to) - (from)                                                                  \
	}

/* A field of column c. */
void rb_row_put_u64(struct rb_row *r, const struct rb_col *c, uint64_t v);
void rb_row_put_dbl(struct rb_row *r, const struct rb_col *c, double v);
void rb_row_put_str(struct rb_row *r, const struct rb_col *c, const char *v);
void rb_row_put_bool(struct rb_row *r, const struct rb_col *c, bool v);
/* Column c's field, put last, leaves the text table (a column shown only with some option). */
void rb_row_untable(struct rb_row *r, const struct rb_col *c);

void rb_row_u64(struct rb_row *r, const char *key, const char *label, uint64_t v);
/* NaN is written as an empty CSV cell and JSON null. */
void rb_row_dbl(struct rb_row *r, const char *key, const char *label, int prec, double v);
void rb_row_str(struct rb_row *r, const char *key, const char *label, const char *v);
void rb_row_bool(struct rb_row *r, const char *key, const char *label, bool v);
/* A string field that points at v (which must outlive the row) instead of copying it. */
void rb_row_str_ref(struct rb_row *r, const char *key, const char *label, const char *v);
/* A field's text-table header: its label, and its unit in brackets (buf holds it); NULL: none. */
const char *rb_field_label(const struct rb_field *f, char *buf, size_t len);
/* A string field's text. */
const char *rb_field_str(const struct rb_field *f);
/* The field key of row, or NULL. */
const struct rb_field *rb_row_find(const struct rb_row *r, const char *key);
/* The string field key of row, or NULL. */
const char *rb_row_get_str(const struct rb_row *r, const char *key);
/* Documents keep full precision: the shortest decimal that reads back as the same double. */
void rb_dbl_full(FILE *f, double v);

#endif

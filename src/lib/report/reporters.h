/* SPDX-License-Identifier: BSD-2-Clause */
/* The reporters, one file each: what report.c (the document) chooses from; not for tools. */
#ifndef RB_REPORTERS_H
#define RB_REPORTERS_H

#include "document.h"

extern const struct rb_reporter_ops rb_text_ops;
/* --output: one number per row on stdout (the text reporter's frame, no table). */
extern const struct rb_reporter_ops rb_value_ops;
/* The value reporter's row: the field key of row alone, in full precision ("-" when absent). */
void rb_value_row(FILE *f, const struct rb_row *row, const char *key);
extern const struct rb_reporter_ops rb_csv_ops;
extern const struct rb_reporter_ops rb_json_ops;
/* A field's value as JSON: a number (null when not finite), true/false, or a string. */
void rb_json_value(FILE *f, const struct rb_field *x);
/* perftest's --out_json layout (report_perftest.c). */
extern const struct rb_reporter_ops rb_perftest_ops;
/* iperf3's -J layout (report_iperf3.c). */
extern const struct rb_reporter_ops rb_iperf3_ops;
/*
 * A CSV document's last row when the run did not complete: shape (a row as the schema has
 * it, what identifies the run filled in) and the error; the header first when no row came.
 */
void rb_csv_error_row(FILE *f, const struct rb_row *shape, unsigned rows, const char *error);

#endif

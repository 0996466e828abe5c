/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The documents' schema: every row of a tool's CSV and JSON has the same columns, in the
 * same order, whatever the options: the tool's own, the library's groups it names
 * (latency, wire, counters, spreads), then the common tail (RB_SCHEMA_TAIL: the repeat,
 * interval and partial marks, then host, peer, date, version, schema and command from
 * the run's meta). A column a row does not have is empty in CSV and null in JSON. The
 * schema's name ("rc_write_bw/2") is in every row and the JSON meta; the version goes up
 * when a column changes meaning or leaves. rdmabench-documents(7) lists the columns.
 */
#ifndef RB_SCHEMA_H
#define RB_SCHEMA_H

#include "base/base.h"

#define RB_SCHEMA_VERSION 2

/* A tool's columns: runs of columns (its own table's, the library's groups), ending with an empty one. */
struct rb_schema {
	const char *tool;
	const struct rb_cols *groups;
};

/* The tail every schema ends with (NULL-terminated). */
extern const char *const rb_schema_tail[];

/* What a document adds to each row from its meta (kept by rb_schema_doc_begin). */
struct rb_schema_doc {
	const struct rb_schema *s; /* NULL: rows are written as they come */
	char name[64];             /* "rc_write_bw/2" */
	char host[96], peer[96], date[40], version[40];
	const char *command; /* the meta's, which its maker keeps alive */
	unsigned warned;     /* columns not in the schema said so far */
};

/* The schema's name and the tail's values from the run's meta. */
void rb_schema_doc_begin(struct rb_schema_doc *d, const struct rb_schema *s, const struct rb_row *meta);
/*
 * row as the schema has it: every column in order (an absent one a NaN number: empty in
 * CSV, null in JSON); with_meta false leaves out the tail's columns that come from the
 * meta (a JSON document has them once, in its meta). A field the schema lacks is a
 * bug, said on stderr ("... is not in the ... schema", a few times a document) and left out.
 */
void rb_schema_project(struct rb_schema_doc *d, const struct rb_row *row, struct rb_row *out, bool with_meta);
/* Whether key is one of the schema's columns. */
bool rb_schema_has(const struct rb_schema *s, const char *key);

#endif

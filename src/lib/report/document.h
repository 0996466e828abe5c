/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The documents a run writes, from its rows (row.h): each reporter (text, csv,
 * json; one file each) is an ops row in a NULL-terminated table chosen by name. Files are written under a
 * temporary name and renamed into place when the document ends, so a reader never sees a truncated file.
 *
 * Every run leaves a valid document. JSON ends with "complete": true|false and the
 * error. CSV rows end with an "error" column, empty in measured rows; a run that did
 * not complete ends with one more row whose only cell is the error ("error" alone
 * when no row was measured), so csv and pandas read it with their defaults.
 */
#ifndef RB_DOCUMENT_H
#define RB_DOCUMENT_H

#include "base/base.h"
#include "schema.h"

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* s as a JSON string literal, quotes and escapes included. */
void rb_json_string(FILE *f, const char *s);

/*
 * A JSON document's block after its results (--all-pairs: the outliers): "key": and
 * whatever emit writes (one JSON value). The other reporters leave it out.
 */
struct rb_section {
	const char *key;
	void (*emit)(FILE *f, void *arg);
	void *arg;
};

struct rb_reporter_ops {
	const char *name;
	void (*begin)(FILE *f, const struct rb_row *meta);
	void (*row)(FILE *f, const struct rb_row *row, unsigned index);
	/* cols: the fields of a row (0 when no row came); error NULL: complete; sec: NULL or a block. */
	void (*end)(FILE *f, unsigned rows, unsigned cols, const char *error, const struct rb_section *sec);
	/*
	 * Optional: a reporter of sizes only (perftest's layout). It is given a size's own
	 * rows, never an interval's, and its last one again before end, when there was one.
	 */
	void (*last)(FILE *f, const struct rb_row *row);
};

extern const struct rb_reporter_ops *const rb_reporters[];
const struct rb_reporter_ops *rb_reporter_find(const char *name);

struct rb_report {
	const struct rb_reporter_ops *ops;
	FILE *f;
	bool is_stdout;
	bool begun;
	unsigned rows, cols;
	struct rb_row last; /* a reporter with ops->last: the last size's row */
	const char *key;    /* the "value" reporter: the field it prints */
	int units;          /* text and value: RB_UNITS_* for the bandwidth columns */
	char unit_label[RB_ROW_MAX][48];
	const struct rb_schema *schema; /* csv and json: the columns of every row (NULL: as they come) */
	struct rb_schema_doc sd;
	char path[PATH_MAX];
	char tmp[PATH_MAX];
};

/* path "-" is stdout. The file is created under a temporary name in its directory. */
int rb_report_open(struct rb_report *r, const char *format, const char *path);
void rb_report_begin(struct rb_report *r, const struct rb_row *meta);
void rb_report_row(struct rb_report *r, const struct rb_row *row);
/*
 * error NULL: complete. Either way the document is closed, synced and renamed; one
 * that never began gets an empty meta block, so it is still a valid document. An
 * incomplete document does not silently replace a complete one: that is kept as
 * PATH.prev, and a warning says so.
 */
int rb_report_finish(struct rb_report *r, const char *error);
/* rb_report_finish with a block after the results (JSON only; sec may be NULL). */
int rb_report_finish_section(struct rb_report *r, const char *error, const struct rb_section *sec);
/* Removes the temporary file; nothing appears at path. */
void rb_report_abort(struct rb_report *r);

/*
 * --units: the bandwidth columns of the text table and of --output (documents keep
 * Gb/s, their keys say so): ours, perftest's --report_gbits labels, perftest's default
 * (MiB/s, labelled MB/sec).
 */
enum { RB_UNITS_GBPS, RB_UNITS_GBSEC, RB_UNITS_MBSEC };

/* --csv / --json, plus the text table on stdout unless a document goes there. */
struct rb_out_opts {
	const char *csv;
	const char *json;
	bool quiet;                /* no text table */
	double interval_s;         /* --interval: rows every interval_s seconds within a size */
	const char *output;        /* --output: the document key whose value alone goes to stdout, per row */
	int units;                 /* --units: RB_UNITS_* */
	const char *perftest_json; /* perftest's --out_json: its layout to this file (report_perftest.c) */
	const char *iperf3_json;   /* iperf3's -J: its layout to this file, "-" stdout (report_iperf3.c) */
};

void rb_out_opts_default(struct rb_out_opts *o);
struct rb_opt_table rb_out_opt_table(struct rb_out_opts *o);

struct rb_reports {
	unsigned n;
	struct rb_report r[5];
};

/*
 * Opens the documents --csv/--json name (and the text or value report on stdout).
 * nth > 0 (a --persist server's nth run) writes FILE-nth.EXT instead of FILE.EXT.
 */
int rb_reports_open(struct rb_reports *rs, const struct rb_out_opts *o, unsigned nth);
/* A persistent server's first free number: the smallest n with no FILE-n.EXT of --csv or --json. */
unsigned rb_reports_first_free(const struct rb_out_opts *o);
/* path with "-nth" before its extension ("res.csv" -> "res-3.csv"); -ENAMETOOLONG past len. */
int rb_path_numbered(char *out, size_t len, const char *path, unsigned nth);
/* Before rb_reports_begin: the documents' columns (schema.h). */
void rb_reports_schema(struct rb_reports *rs, const struct rb_schema *s);
void rb_reports_begin(struct rb_reports *rs, const struct rb_row *meta);
void rb_reports_row(struct rb_reports *rs, const struct rb_row *row);
/* A row for the documents only, not the text table or --output (one repeat's of a size). */
void rb_reports_detail_row(struct rb_reports *rs, const struct rb_row *row);
int rb_reports_finish(struct rb_reports *rs, const char *error);
int rb_reports_finish_section(struct rb_reports *rs, const char *error, const struct rb_section *sec);
/* Nothing was run: every document is dropped (no file is written or replaced). */
void rb_reports_abort(struct rb_reports *rs);
/* Whether the human table goes to stdout (so headers may too). */
bool rb_reports_text(const struct rb_reports *rs);

#endif

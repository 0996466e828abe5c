/* SPDX-License-Identifier: BSD-2-Clause */
/* The set of documents of a run (--csv, --json, the text table) and the options that name them. */
#include "reporters.h"

#include "base/base.h"
#include "measure/measure.h"

#include <errno.h>
#include <stddef.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

void rb_out_opts_default(struct rb_out_opts *o)
{
	memset(o, 0, sizeof(*o));
}

/* --output=WHAT: perftest's names, stored as the document key whose value is printed. */
static int parse_output(const char *arg, void *dst)
{
	static const char *const map[][2] = {
	    {"bandwidth", "bw_avg_gbps"}, {"message_rate", "msg_rate_mpps"}, {"latency", "lat_p50_us"}};

	for (unsigned i = 0; i < 3; i++)
		if (!strcmp(arg, map[i][0])) {
			*(const char **)dst = map[i][1];
			return 0;
		}
	return -EINVAL;
}

static int parse_units(const char *arg, void *dst)
{
	static const char *const names[] = {"Gb/s", "Gb/sec", "MB/sec"};

	for (int i = 0; i < 3; i++)
		if (!strcmp(arg, names[i])) {
			*(int *)dst = i;
			return 0;
		}
	return -EINVAL;
}

struct rb_opt_table rb_out_opt_table(struct rb_out_opts *o)
{
	static const struct rb_opt rows[] = {
	    {.name = "csv",
	     .type = RB_OPT_STR,
	     .off = offsetof(struct rb_out_opts, csv),
	     .arg = "FILE",
	     .help = "write the sweep as CSV to FILE ('-' = stdout)"},
	    {.name = "json",
	     .type = RB_OPT_STR,
	     .off = offsetof(struct rb_out_opts, json),
	     .arg = "FILE",
	     .help = "write the sweep as JSON to FILE ('-' = stdout)"},
	    {.name = "quiet",
	     .type = RB_OPT_FLAG,
	     .off = offsetof(struct rb_out_opts, quiet),
	     .help = "no text table on stdout"},
	    {.name = "interval",
	     .type = RB_OPT_FN,
	     .off = offsetof(struct rb_out_opts, interval_s),
	     .arg = "SEC",
	     .help =
	         "also a row every SEC s within each size (client): its own percentiles, or its bandwidth",
	     .fn = rb_parse_interval,
	     .allowed = RB_INTERVAL_ALLOWED},
	    {.name = "units",
	     .type = RB_OPT_FN,
	     .off = offsetof(struct rb_out_opts, units),
	     .arg = "UNIT",
	     .help =
	         "bandwidth in the table and --output: Gb/s (10^9 bits a second; the default but in "
	         "rc_write_bw), Gb/sec (the same figure under perftest's --report_gbits header) or MB/sec "
	         "(MiB/s: ib_write_bw's default, and rc_write_bw's); documents keep Gb/s",
	     .fn = parse_units,
	     .allowed = "Gb/s, Gb/sec or MB/sec"},
	    {.name = "output",
	     .type = RB_OPT_FN,
	     .off = offsetof(struct rb_out_opts, output),
	     .arg = "WHAT",
	     .help = "only one number per row on stdout, for scripts: bandwidth (in the table's unit), "
	             "message_rate (Mpps) "
	             "or latency (us, p50)",
	     .fn = parse_output,
	     .allowed = "bandwidth, message_rate or latency"},
	    {0},
	};
	return (struct rb_opt_table){"Output", rows, o, false, NULL};
}

static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return !stat(a, &sa) && !stat(b, &sb) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int rb_path_numbered(char *out, size_t len, const char *path, unsigned nth)
{
	const char *base = strrchr(path, '/'), *dot;
	int n;

	base = base ? base + 1 : path;
	dot = strrchr(base, '.');
	/* A leading dot names a hidden file, not an extension. */
	if (!dot || dot == base)
		dot = base + strlen(base);
	n = snprintf(out, len, "%.*s-%u%s", (int)(dot - path), path, nth, dot);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* Whether FILE-n.EXT of path exists ("-", a directory and no path never count). */
static bool numbered_exists(const char *path, unsigned n)
{
	char buf[PATH_MAX];
	size_t len = path ? strlen(path) : 0;

	if (!len || !strcmp(path, "-") || path[len - 1] == '/' || rb_path_numbered(buf, sizeof(buf), path, n))
		return false;
	return access(buf, F_OK) == 0;
}

unsigned rb_reports_first_free(const struct rb_out_opts *o)
{
	unsigned n = 1;

	while (n < 1000000 && (numbered_exists(o->csv, n) || numbered_exists(o->json, n)))
		n++;
	return n;
}

/* --csv/--json FILE, numbered for a persistent server's nth run; "-" stays stdout. */
static int open_doc(struct rb_report *r, const char *format, const char *path, unsigned nth)
{
	char buf[sizeof(r->path)];
	size_t len = strlen(path);
	struct stat st;

	/* A directory (or "-") is refused or used as it is, never numbered into a name. */
	if (!nth || !strcmp(path, "-") || !len || path[len - 1] == '/' ||
	    (!stat(path, &st) && S_ISDIR(st.st_mode)))
		return rb_report_open(r, format, path);
	if (rb_path_numbered(buf, sizeof(buf), path, nth)) {
		rb_usage_err("the %s document path %s is too long", format, path);
		return -ENAMETOOLONG;
	}
	return rb_report_open(r, format, buf);
}

int rb_reports_open(struct rb_reports *rs, const struct rb_out_opts *o, unsigned nth)
{
	const char *docs[] = {o->csv, o->json, o->perftest_json, o->iperf3_json};
	const char *names[] = {"--csv", "--json", "--out_json_file", "-J"}, *first = NULL;
	bool doc_on_stdout = false;
	int ret = 0;

	rs->n = 0;
	for (unsigned i = 0; i < 4; i++) {
		if (!docs[i] || strcmp(docs[i], "-"))
			continue;
		if (first) {
			rb_usage_err("%s and %s cannot both write to stdout", first, names[i]);
			return -EINVAL;
		}
		first = names[i];
		doc_on_stdout = true;
	}
	/* Two documents renamed onto one path: the second would silently replace the first. */
	if (o->csv && o->json && (!strcmp(o->csv, o->json) || same_file(o->csv, o->json))) {
		rb_usage_err("--csv %s and --json %s name the same file (give each document its own)", o->csv,
		             o->json);
		return -EINVAL;
	}
	for (unsigned i = 0; o->perftest_json && i < 2; i++) {
		const char *other = i ? o->json : o->csv;

		if (other && (!strcmp(other, o->perftest_json) || same_file(other, o->perftest_json))) {
			rb_usage_err("--out_json's file %s is also --%s's (give each document its own)",
			             o->perftest_json, i ? "json" : "csv");
			return -EINVAL;
		}
	}
	if (o->output && doc_on_stdout) {
		rb_usage_err("--output and a document on stdout ('-') cannot share it");
		return -EINVAL;
	}
	if (o->output) {
		ret = rb_report_open(&rs->r[rs->n++], "value", "-");
		rs->r[rs->n - 1].key = o->output;
		rs->r[rs->n - 1].units = o->units;
	} else if (!o->quiet && !doc_on_stdout) {
		ret = rb_report_open(&rs->r[rs->n++], "text", "-");
		rs->r[rs->n - 1].units = o->units;
	}
	if (!ret && o->csv)
		ret = open_doc(&rs->r[rs->n++], "csv", o->csv, nth);
	if (!ret && o->json)
		ret = open_doc(&rs->r[rs->n++], "json", o->json, nth);
	if (!ret && o->perftest_json) {
		ret = open_doc(&rs->r[rs->n++], "perftest", o->perftest_json, nth);
		rs->r[rs->n - 1].units = o->units;
	}
	if (!ret && o->iperf3_json)
		ret = open_doc(&rs->r[rs->n++], "iperf3", o->iperf3_json, nth);
	if (ret) {
		rs->n--;
		rb_reports_abort(rs);
	}
	return ret;
}

void rb_reports_schema(struct rb_reports *rs, const struct rb_schema *s)
{
	for (unsigned i = 0; i < rs->n; i++)
		rs->r[i].schema = s;
}

void rb_reports_begin(struct rb_reports *rs, const struct rb_row *meta)
{
	for (unsigned i = 0; i < rs->n; i++)
		rb_report_begin(&rs->r[i], meta);
}

void rb_reports_row(struct rb_reports *rs, const struct rb_row *row)
{
	for (unsigned i = 0; i < rs->n; i++)
		rb_report_row(&rs->r[i], row);
}

void rb_reports_detail_row(struct rb_reports *rs, const struct rb_row *row)
{
	/* Our documents only: a repeat's row is no test of perftest's or iperf3's. */
	for (unsigned i = 0; i < rs->n; i++)
		if (rs->r[i].ops == &rb_csv_ops || rs->r[i].ops == &rb_json_ops)
			rb_report_row(&rs->r[i], row);
}

void rb_reports_abort(struct rb_reports *rs)
{
	for (unsigned i = 0; i < rs->n; i++)
		rb_report_abort(&rs->r[i]);
	rs->n = 0;
}

int rb_reports_finish(struct rb_reports *rs, const char *error)
{
	return rb_reports_finish_section(rs, error, NULL);
}

int rb_reports_finish_section(struct rb_reports *rs, const char *error, const struct rb_section *sec)
{
	int ret = 0;

	for (unsigned i = 0; i < rs->n; i++) {
		int r = rb_report_finish_section(&rs->r[i], error, sec);
		if (r && !ret)
			ret = r;
	}
	rs->n = 0;
	return ret;
}

bool rb_reports_text(const struct rb_reports *rs)
{
	return rs->n > 0 && rs->r[0].ops == &rb_text_ops;
}

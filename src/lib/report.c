#include "report.h"

#include "log.h"
#include "sizes.h"

#include <errno.h>
#include <stddef.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static struct rb_field *add(struct rb_row *r, const char *key, const char *label, enum rb_ftype t)
{
	struct rb_field *f;

	if (r->n >= RB_ROW_MAX)
		return NULL; /* rows are built by our code; a full row is a bug caught by tests */
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

const char *rb_row_get_str(const struct rb_row *r, const char *key)
{
	for (unsigned i = 0; i < r->n; i++)
		if (r->f[i].type == RB_F_STR && !strcmp(r->f[i].key, key))
			return r->f[i].s;
	return NULL;
}

void rb_row_bool(struct rb_row *r, const char *key, const char *label, bool v)
{
	struct rb_field *f = add(r, key, label, RB_F_BOOL);
	if (f)
		f->v.b = v;
}

/* ---------------------------------------------------------------- text */

static int text_width(const struct rb_field *f)
{
	int w = (int)strlen(f->label) + 3;
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

/* Documents keep full precision: the shortest decimal that reads back as the same double. */
static void dbl_full(FILE *f, double v)
{
	char buf[32];

	for (int digits = 15; digits <= 17; digits++) {
		snprintf(buf, sizeof(buf), "%.*g", digits, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	fputs(buf, f);
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
			if (row->f[i].label)
				fprintf(f, "%*s", text_width(&row->f[i]), row->f[i].label);
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
		case RB_F_STR: fprintf(f, "%*s", w, x->s); break;
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

/* ---------------------------------------------------------------- csv */

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
			dbl_full(f, x->v.d);
		break;
	case RB_F_BOOL: fputs(x->v.b ? "1" : "0", f); break;
	case RB_F_STR: csv_str(f, x->s); break;
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

/* Not complete: one more row, every cell empty but the error. */
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

/* ---------------------------------------------------------------- json */

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

static void json_object(FILE *f, const struct rb_row *row, const char *indent)
{
	fputs("{", f);
	for (unsigned i = 0; i < row->n; i++) {
		const struct rb_field *x = &row->f[i];
		fprintf(f, "%s\n%s  ", i ? "," : "", indent);
		rb_json_string(f, x->key);
		fputs(": ", f);
		switch (x->type) {
		case RB_F_U64: fprintf(f, "%llu", (unsigned long long)x->v.u); break;
		case RB_F_DBL:
			if (isfinite(x->v.d))
				dbl_full(f, x->v.d);
			else
				fputs("null", f);
			break;
		case RB_F_BOOL: fputs(x->v.b ? "true" : "false", f); break;
		case RB_F_STR: rb_json_string(f, x->s); break;
		}
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

/* ---------------------------------------------------------------- value (--output) */

/* perftest's --output: one number per row on stdout, for scripts; the field is the report's key. */
static void value_row(FILE *f, const struct rb_row *row, const char *key)
{
	for (unsigned i = 0; i < row->n; i++) {
		const struct rb_field *x = &row->f[i];
		if (strcmp(x->key, key))
			continue;
		if (x->type == RB_F_DBL && isfinite(x->v.d))
			dbl_full(f, x->v.d);
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

static const struct rb_reporter_ops text_ops = {"text", text_begin, text_row, text_end};
static const struct rb_reporter_ops value_ops = {"value", text_begin, no_row, text_end};
static const struct rb_reporter_ops csv_ops = {"csv", csv_begin, csv_row, csv_end};
static const struct rb_reporter_ops json_ops = {"json", json_begin, json_row, json_end};

const struct rb_reporter_ops *const rb_reporters[] = {&text_ops, &csv_ops, &json_ops, NULL};

const struct rb_reporter_ops *rb_reporter_find(const char *name)
{
	for (unsigned i = 0; rb_reporters[i]; i++)
		if (!strcmp(rb_reporters[i]->name, name))
			return rb_reporters[i];
	return strcmp(name, "value") ? NULL : &value_ops;
}

/* ---------------------------------------------------------------- sinks */

int rb_report_open(struct rb_report *r, const char *format, const char *path)
{
	struct stat st;
	int fd;

	memset(r, 0, sizeof(*r));
	r->ops = rb_reporter_find(format);
	if (!r->ops) {
		rb_usage_err("unknown report format '%s' (allowed: text, csv, json)", format);
		return -EINVAL;
	}
	if (!strcmp(path, "-")) {
		r->f = stdout;
		r->is_stdout = true;
		return 0;
	}
	if (!path[0]) {
		rb_usage_err("the %s document needs a file name ('-' for stdout)", format);
		return -EINVAL;
	}
	if (!stat(path, &st) && S_ISDIR(st.st_mode)) {
		rb_usage_err("cannot write the %s document to %s: it is a directory", format, path);
		return -EISDIR;
	}
	/* The document is renamed into place: a FIFO or a device there would be replaced, not written. */
	if (!stat(path, &st) && !S_ISREG(st.st_mode)) {
		rb_usage_err("cannot write the %s document to %s: not a regular file (use '-' for stdout)",
		             format, path);
		return -EINVAL;
	}
	if (snprintf(r->path, sizeof(r->path), "%s", path) >= (int)sizeof(r->path) ||
	    snprintf(r->tmp, sizeof(r->tmp), "%s.tmp.XXXXXX", path) >= (int)sizeof(r->tmp)) {
		rb_usage_err("output path too long: %s", path);
		return -ENAMETOOLONG;
	}
	fd = mkstemp(r->tmp);
	if (fd < 0) {
		int err = errno;
		rb_usage_err("cannot create %s: %s", path, strerror(err));
		return -err;
	}
	fchmod(fd, 0644);
	r->f = fdopen(fd, "w");
	if (!r->f) {
		int err = errno;
		close(fd);
		unlink(r->tmp);
		rb_err("cannot open %s: %s", r->tmp, strerror(err));
		return -err;
	}
	return 0;
}

void rb_report_begin(struct rb_report *r, const struct rb_row *meta)
{
	r->ops->begin(r->f, meta);
	r->begun = true;
}

void rb_report_row(struct rb_report *r, const struct rb_row *row)
{
	if (!r->rows)
		r->cols = row->n;
	if (r->ops == &value_ops)
		value_row(r->f, row, r->key);
	r->ops->row(r->f, row, r->rows++);
}

/*
 * Whether the file at path may hold a result worth keeping: anything but nothing
 * and an incomplete document of ours (the last 4 KiB tell). A CSV from before the
 * error column, or one another program wrote, is kept too.
 */
static bool holds_complete(const struct rb_report *r)
{
	char tail[4097], *last;
	FILE *f = fopen(r->path, "r");
	size_t n = 0;
	long size = 0;

	if (!f)
		return false;
	if (!fseek(f, 0, SEEK_END) && (size = ftell(f)) > 0 &&
	    !fseek(f, size > 4096 ? size - 4096 : 0, SEEK_SET))
		n = fread(tail, 1, sizeof(tail) - 1, f);
	fclose(f);
	tail[n] = 0;
	if (!n)
		return false;
	if (r->ops == &json_ops)
		return strstr(tail, "\"complete\": false") == NULL;
	/*
	 * CSV: ours, when incomplete, ends with a row whose cells are empty up to its
	 * error, or is only "error" and the cause (no row was measured).
	 */
	if (size <= 4096 && !strncmp(tail, "error\n", 6))
		return false;
	while (n && tail[n - 1] == '\n')
		tail[--n] = 0;
	last = strrchr(tail, '\n');
	return (last ? last[1] : tail[0]) != ',';
}

/* An incomplete document is about to take path: a complete one there is kept aside. */
static void keep_complete(const struct rb_report *r)
{
	char prev[PATH_MAX + 8];

	if (!holds_complete(r))
		return;
	snprintf(prev, sizeof(prev), "%s.prev", r->path);
	if (rename(r->path, prev))
		rb_warn("%s held a complete result, which this incomplete run replaces (cannot keep it as "
		        "%s: %s)",
		        r->path, prev, strerror(errno));
	else
		rb_warn("%s held a complete result: kept as %s; %s now holds this incomplete run", r->path,
		        prev, r->path);
}

int rb_report_finish(struct rb_report *r, const char *error)
{
	return rb_report_finish_section(r, error, NULL);
}

int rb_report_finish_section(struct rb_report *r, const char *error, const struct rb_section *sec)
{
	static const struct rb_row no_meta;
	int ret = 0;

	if (!r->begun)
		rb_report_begin(r, &no_meta);
	r->ops->end(r->f, r->rows, r->cols, error, sec);
	if (r->is_stdout) {
		fflush(stdout);
		return 0;
	}
	if (fflush(r->f) || fsync(fileno(r->f)))
		ret = -errno;
	if (fclose(r->f) && !ret)
		ret = -errno;
	r->f = NULL;
	if (!ret && error)
		keep_complete(r);
	if (!ret && rename(r->tmp, r->path))
		ret = -errno;
	if (ret) {
		rb_err("cannot write %s: %s", r->path, strerror(-ret));
		unlink(r->tmp);
	}
	return ret;
}

void rb_report_abort(struct rb_report *r)
{
	if (r->is_stdout || !r->f)
		return;
	fclose(r->f);
	r->f = NULL;
	unlink(r->tmp);
}

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

struct rb_opt_table rb_out_opt_table(struct rb_out_opts *o)
{
	static const struct rb_opt rows[] = {
	    {"csv", 0, RB_OPT_STR, offsetof(struct rb_out_opts, csv), "FILE",
	     "write the sweep as CSV to FILE ('-' = stdout)", 0, 0, NULL, NULL, 0},
	    {"json", 0, RB_OPT_STR, offsetof(struct rb_out_opts, json), "FILE",
	     "write the sweep as JSON to FILE ('-' = stdout)", 0, 0, NULL, NULL, 0},
	    {"quiet", 0, RB_OPT_FLAG, offsetof(struct rb_out_opts, quiet), NULL, "no text table on stdout", 0,
	     0, NULL, NULL, 0},
	    {"interval", 0, RB_OPT_FN, offsetof(struct rb_out_opts, interval_s), "SEC",
	     "also a row every SEC s within each size (client): its own percentiles, or its bandwidth", 0, 0,
	     rb_parse_interval, RB_INTERVAL_ALLOWED, 0},
	    {"output", 0, RB_OPT_FN, offsetof(struct rb_out_opts, output), "WHAT",
	     "only one number per row on stdout, for scripts: bandwidth (Gb/s), message_rate (Mpps) or "
	     "latency "
	     "(us, p50)",
	     0, 0, parse_output, "bandwidth, message_rate or latency", 0},
	    {0},
	};
	return (struct rb_opt_table){"Output", rows, o, false};
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
	bool doc_on_stdout = (o->csv && !strcmp(o->csv, "-")) || (o->json && !strcmp(o->json, "-"));
	int ret = 0;

	rs->n = 0;
	if (o->csv && o->json && !strcmp(o->csv, "-") && !strcmp(o->json, "-")) {
		rb_usage_err("--csv and --json cannot both write to stdout");
		return -EINVAL;
	}
	/* Two documents renamed onto one path: the second would silently replace the first. */
	if (o->csv && o->json && (!strcmp(o->csv, o->json) || same_file(o->csv, o->json))) {
		rb_usage_err("--csv %s and --json %s name the same file (give each document its own)", o->csv,
		             o->json);
		return -EINVAL;
	}
	if (o->output && doc_on_stdout) {
		rb_usage_err("--output and a document on stdout ('-') cannot share it");
		return -EINVAL;
	}
	if (o->output) {
		ret = rb_report_open(&rs->r[rs->n++], "value", "-");
		rs->r[rs->n - 1].key = o->output;
	} else if (!o->quiet && !doc_on_stdout) {
		ret = rb_report_open(&rs->r[rs->n++], "text", "-");
	}
	if (!ret && o->csv)
		ret = open_doc(&rs->r[rs->n++], "csv", o->csv, nth);
	if (!ret && o->json)
		ret = open_doc(&rs->r[rs->n++], "json", o->json, nth);
	if (ret) {
		rs->n--;
		rb_reports_abort(rs);
	}
	return ret;
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
	return rs->n > 0 && rs->r[0].ops == &text_ops;
}

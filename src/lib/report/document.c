/* SPDX-License-Identifier: BSD-2-Clause */
#include "reporters.h"

#include "base/base.h"

#include <errno.h>
#include <stddef.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const struct rb_reporter_ops *const rb_reporters[] = {&rb_text_ops,     &rb_csv_ops,    &rb_json_ops,
                                                      &rb_perftest_ops, &rb_iperf3_ops, NULL};

const struct rb_reporter_ops *rb_reporter_find(const char *name)
{
	for (unsigned i = 0; rb_reporters[i]; i++)
		if (!strcmp(rb_reporters[i]->name, name))
			return rb_reporters[i];
	return strcmp(name, "value") ? NULL : &rb_value_ops;
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

/* Documents (csv, json) keep one shape; the text table and --output show the row as it is. */
static bool projected(const struct rb_report *r)
{
	return r->ops == &rb_csv_ops || r->ops == &rb_json_ops;
}

void rb_report_begin(struct rb_report *r, const struct rb_row *meta)
{
	rb_schema_doc_begin(&r->sd, projected(r) ? r->schema : NULL, meta);
	r->ops->begin(r->f, meta);
	r->begun = true;
}

/* --units: the row's bandwidth fields (*_gbps) in r's unit, their labels saying so. */
static void in_units(struct rb_report *r, const struct rb_row *row, struct rb_row *out)
{
	static const char *const unit[] = {"Gb/s", "Gb/sec", "MB/sec"};
	/* perftest's MB/sec is MiB/s: 2^20 bytes a second. */
	double scale = r->units == RB_UNITS_MBSEC ? 1e9 / 8 / 1048576 : 1;

	*out = *row;
	for (unsigned i = 0; i < out->n; i++) {
		struct rb_field *f = &out->f[i];
		size_t k = strlen(f->key);
		const char *at = f->label ? strstr(f->label, "[Gb/s]") : NULL;

		/* A bandwidth, or a --repeat spread of one (K_p5, K_p95, K_min, K_max; not K_cv_pct). */
		bool bw = k >= 5 && !strcmp(f->key + k - 5, "_gbps");
		const char *in = strstr(f->key, "_gbps_");

		if (in && strcmp(in, "_gbps_cv_pct"))
			bw = true;
		if (f->type != RB_F_DBL || !bw)
			continue;
		f->v.d *= scale;
		if (f->unit)
			f->unit = unit[r->units];
		else if (at) {
			snprintf(r->unit_label[i], sizeof(r->unit_label[i]), "%.*s[%s]%s",
			         (int)(at - f->label), f->label, unit[r->units], at + 6);
			f->label = r->unit_label[i];
		}
	}
}

/* A size's own row (its total, with --interval), not an interval's. */
static bool size_row(const struct rb_row *row)
{
	const struct rb_field *iv = rb_row_find(row, "interval");

	return rb_row_find(row, "size_bytes") &&
	       (!iv || (iv->type == RB_F_STR && !strcmp(rb_field_str(iv), "total")));
}

void rb_report_row(struct rb_report *r, const struct rb_row *row)
{
	struct rb_row shaped;

	if (r->ops->last && !size_row(row))
		return;

	if (r->sd.s) {
		rb_schema_project(&r->sd, row, &shaped, r->ops == &rb_csv_ops);
		row = &shaped;
	} else if (r->units != RB_UNITS_GBPS) {
		in_units(r, row, &shaped);
		row = &shaped;
	}
	if (!r->rows)
		r->cols = row->n;
	if (r->ops == &rb_value_ops)
		rb_value_row(r->f, row, r->key);
	if (r->ops->last)
		r->last = *row;
	r->ops->row(r->f, row, r->rows++);
}

/*
 * Whether the file at path may hold a result worth keeping: anything but nothing
 * and an incomplete document of ours (the last 4 KiB tell). A CSV from before the
 * error column, or one another program wrote, is kept too.
 */
static bool holds_complete(const struct rb_report *r)
{
	char tail[4097], head[8192] = "", *last;
	FILE *f = fopen(r->path, "r");
	size_t n = 0;
	long size = 0;

	if (!f)
		return false;
	if (!fgets(head, sizeof(head), f))
		head[0] = 0;
	if (!fseek(f, 0, SEEK_END) && (size = ftell(f)) > 0 &&
	    !fseek(f, size > 4096 ? size - 4096 : 0, SEEK_SET))
		n = fread(tail, 1, sizeof(tail) - 1, f);
	fclose(f);
	tail[n] = 0;
	if (!n)
		return false;
	if (r->ops == &rb_json_ops || r->ops == &rb_perftest_ops || r->ops == &rb_iperf3_ops)
		return strstr(tail, "\"complete\": false") == NULL;
	/*
	 * CSV: ours, when incomplete, ends with the error's row (a schema's: what ran, then
	 * the error in its last cell; else every cell empty but the error), or is only
	 * "error" and the cause. A measured row ends with its empty error cell: ','.
	 */
	if (size <= 4096 && !strncmp(tail, "error\n", 6))
		return false;
	while (n && tail[n - 1] == '\n')
		tail[--n] = 0;
	last = strrchr(tail, '\n');
	if ((last ? last[1] : tail[0]) == ',')
		return false;
	/* Ours (a header ending in its error column) whose last row has an error: incomplete. */
	n = strlen(head);
	return tail[strlen(tail) - 1] == ',' || n < 7 || strcmp(head + n - 7, ",error\n");
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

	struct rb_row tool, shape;

	if (!r->begun)
		rb_report_begin(r, &no_meta);
	if (error && r->sd.s && r->ops == &rb_csv_ops) {
		/* The error's row has the schema's shape too: what ran, where and when, then the error. */
		tool.n = 0;
		rb_row_str(&tool, "tool", NULL, r->sd.s->tool);
		rb_row_bool(&tool, "partial", NULL, false);
		rb_schema_project(&r->sd, &tool, &shape, true);
		rb_csv_error_row(r->f, &shape, r->rows, error[0] ? error : "failed");
	} else {
		if (r->ops->last && r->rows)
			r->ops->last(r->f, &r->last);
		r->ops->end(r->f, r->rows, r->cols, error, sec);
	}
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

/* SPDX-License-Identifier: BSD-2-Clause */
#include "repeat.h"

#include "measure/measure.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void rb_repeat_opts_default(struct rb_repeat_opts *o)
{
	o->n = 1;
}

struct rb_opt_table rb_repeat_opt_table(struct rb_repeat_opts *o)
{
	static const struct rb_opt rows[] = {
	    {.name = "repeat",
	     .type = RB_OPT_U32,
	     .off = offsetof(struct rb_repeat_opts, n),
	     .arg = "N",
	     .help = "measure each size N times, as independent runs: its row is their median, with P5, "
	             "P95, min, max and CV (each repeat's own row kept in the documents)",
	     .min = 1,
	     .max = RB_REPEAT_MAX},
	    {0},
	};
	return (struct rb_opt_table){"Repeats", rows, o, true, NULL};
}

/* The headline metrics and their spread columns (keys must outlive the rows). */
#define SPREAD(k) k "_p5", k "_p95", k "_min", k "_max", k "_cv_pct"
static const struct head {
	const char *key, *p5, *p95, *min, *max, *cv;
} heads[] = {
    {"bw_avg_gbps", SPREAD("bw_avg_gbps")},
    {"msg_rate_mpps", SPREAD("msg_rate_mpps")},
    {"lat_p50_us", SPREAD("lat_p50_us")},
    {"lat_p99_us", SPREAD("lat_p99_us")},
};
/* Their columns: the spread of a headline metric, keys only (the table shows the primary's three). */
#define SPREAD_COLS(k)                                                                                       \
	{k "_p5", NULL, NULL, 0}, {k "_p95", NULL, NULL, 0}, {k "_min", NULL, NULL, 0},                      \
	    {k "_max", NULL, NULL, 0},                                                                       \
	{                                                                                                    \
		k "_cv_pct", NULL, NULL, 0                                                                   \
	}
const struct rb_col rb_repeat_bw_cols[] = {SPREAD_COLS("bw_avg_gbps"), SPREAD_COLS("msg_rate_mpps")};
const struct rb_col rb_repeat_lat_cols[] = {SPREAD_COLS("lat_p50_us"), SPREAD_COLS("lat_p99_us")};
#define NHEADS (sizeof(heads) / sizeof(heads[0]))

/* The spread columns of every headline metric in row (values NaN, or s[i]'s). */
static void spread_fields(struct rb_row *row, const struct rb_spread *s, const char *primary)
{
	for (unsigned i = 0; i < NHEADS; i++) {
		const struct head *h = &heads[i];
		bool label = s && primary && !strcmp(h->key, primary);

		if (!rb_row_find(row, h->key))
			continue;
		rb_row_dbl(row, h->p5, label ? "rep_p5" : NULL, 3, s ? s[i].p5 : NAN);
		rb_row_dbl(row, h->p95, label ? "rep_p95" : NULL, 3, s ? s[i].p95 : NAN);
		rb_row_dbl(row, h->min, NULL, 3, s ? s[i].min : NAN);
		rb_row_dbl(row, h->max, NULL, 3, s ? s[i].max : NAN);
		rb_row_dbl(row, h->cv, label ? "rep_CV[%]" : NULL, 2, s ? s[i].cv_pct : NAN);
	}
}

void rb_repeat_mark(struct rb_row *row, unsigned k, unsigned n)
{
	char num[16];

	snprintf(num, sizeof(num), "%u", k);
	rb_row_str(row, "repeat", NULL, num);
	rb_row_u64(row, "repeats", NULL, n);
	spread_fields(row, NULL, NULL);
	rb_row_bool(row, "unstable", NULL, false);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/*
 * Field i over the rows whose field i has the same key: the median (the lower one of
 * two for integers), but the sum for a port counter's delta (ctr_*): a retry in one
 * repeat of three is evidence, which a median would drop.
 */
static void median_field(const struct rb_row *rows, unsigned n, unsigned i, struct rb_field *out)
{
	double d[RB_REPEAT_MAX];
	uint64_t u[RB_REPEAT_MAX];
	unsigned k = 0;
	struct rb_spread s;

	for (unsigned r = 0; r < n && r < RB_REPEAT_MAX; r++) {
		const struct rb_field *f;

		if (i >= rows[r].n)
			continue;
		f = &rows[r].f[i];
		if (strcmp(f->key, out->key) || f->type != out->type)
			continue;
		if (f->type == RB_F_DBL)
			d[k++] = f->v.d;
		else
			u[k++] = f->v.u;
	}
	if (out->type == RB_F_DBL) {
		rb_spread_of(d, k, &s);
		out->v.d = s.median;
	} else if (k && !strncmp(out->key, "ctr_", 4)) {
		out->v.u = 0;
		for (unsigned j = 0; j < k; j++)
			out->v.u += u[j];
	} else if (k) {
		qsort(u, k, sizeof(*u), cmp_u64);
		out->v.u = u[(k - 1) / 2];
	}
}

void rb_repeat_summary(const struct rb_row *rows, unsigned n, double max_cv_pct, struct rb_row *out)
{
	struct rb_spread s[NHEADS];
	const char *primary;
	unsigned keep = 0;
	bool unstable = false;

	memset(out, 0, sizeof(*out));
	if (!n)
		return;
	/* The repeat's own columns come last (rb_repeat_mark): everything before them is the tool's. */
	for (; keep < rows[0].n && strcmp(rows[0].f[keep].key, "repeat"); keep++) {
		out->f[out->n] = rows[0].f[keep];
		if (out->f[keep].type == RB_F_U64 || out->f[keep].type == RB_F_DBL)
			median_field(rows, n, keep, &out->f[keep]);
		out->n++;
	}
	primary = rb_primary_metric(out);
	for (unsigned h = 0; h < NHEADS; h++) {
		double v[RB_REPEAT_MAX];
		unsigned k = 0;

		for (unsigned r = 0; r < n && r < RB_REPEAT_MAX; r++) {
			const struct rb_field *f = rb_row_find(&rows[r], heads[h].key);
			if (f && f->type == RB_F_DBL)
				v[k++] = f->v.d;
		}
		rb_spread_of(v, k, &s[h]);
		if (primary && !strcmp(heads[h].key, primary))
			unstable = s[h].cv_pct > max_cv_pct;
	}
	rb_row_str(out, "repeat", NULL, "all");
	rb_row_u64(out, "repeats", NULL, n);
	spread_fields(out, s, primary);
	rb_row_bool(out, "unstable", "unstable", unstable);
}

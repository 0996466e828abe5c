/* SPDX-License-Identifier: BSD-2-Clause */
#include "gate.h"

#include "base/base.h"
#include "spread.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

void rb_gate_opts_default(struct rb_gate_opts *o)
{
	o->min_bw_gbps = 0;
	o->max_lat_p99_us = 0;
	o->max_cv_pct = 0;
	o->min_eff_pct = 0;
	o->limit_bw = 0;
	o->limit_bw_scale = 1;
	o->limit_bw_unit = "Gb/s";
	o->min_rate_mpps = 0;
}

struct rb_opt_table rb_gate_opt_table(struct rb_gate_opts *o)
{
	static const struct rb_opt rows[] = {
	    {.name = "min-bw",
	     .type = RB_OPT_DOUBLE,
	     .off = offsetof(struct rb_gate_opts, min_bw_gbps),
	     .arg = "GBPS",
	     .help = "exit 1 when a size's average bandwidth is below GBPS (bandwidth rows)",
	     .max = 100000,
	     .flags = RB_OPT_LOCAL},
	    {.name = "max-lat-p99",
	     .type = RB_OPT_DOUBLE,
	     .off = offsetof(struct rb_gate_opts, max_lat_p99_us),
	     .arg = "US",
	     .help = "exit 1 when a size's p99 latency is above US microseconds (latency rows)",
	     .max = 1e9,
	     .flags = RB_OPT_LOCAL},
	    {.name = "max-cv",
	     .type = RB_OPT_DOUBLE,
	     .off = offsetof(struct rb_gate_opts, max_cv_pct),
	     .arg = "PCT",
	     .help = "exit 1 when a size's repeats spread more: the CV of its bandwidth (else median "
	             "latency) above PCT percent (needs --repeat; when --max-cv is not given, a CV above 5 % "
	             "only marks a size unstable)",
	     .max = 1000,
	     .flags = RB_OPT_LOCAL},
	    {.name = "min-efficiency",
	     .type = RB_OPT_DOUBLE,
	     .off = offsetof(struct rb_gate_opts, min_eff_pct),
	     .arg = "PCT",
	     .help = "exit 1 when a size's bandwidth is below PCT percent of what the wire can carry at "
	             "its MTU and message size (wire_eff_pct; rc_write_bw, fifo_pingpong)",
	     .max = 100,
	     .flags = RB_OPT_LOCAL},
	    {0},
	};
	return (struct rb_opt_table){"Gates", rows, o, false, NULL};
}

/* A gate: the option, what it judges (the row's key), which side of the limit fails. */
struct rb_gate_kind {
	unsigned bit; /* in rb_gate.judged */
	const char *opt, *noun, *unit, *key;
	bool below; /* a value below the limit fails */
};

static const struct rb_gate_kind k_bw = {1, "--min-bw", "bandwidth", "Gb/s", "bw_avg_gbps", true};
static const struct rb_gate_kind k_lat = {2, "--max-lat-p99", "p99 latency", "us", "lat_p99_us", false};
static const struct rb_gate_kind k_cv = {4, "--max-cv", "CV over the repeats", "%", "..._cv_pct", false};
static const struct rb_gate_kind k_eff = {8,   "--min-efficiency", "share of the wire's most",
                                          "%", "wire_eff_pct",     true};

static const struct rb_gate_kind k_limit_bw = {16, "-w/--limit_bw", "bandwidth", NULL, "bw_avg_gbps", true};
static const struct rb_gate_kind k_rate = {32,     "-y/--limit_msgrate", "message rate",
                                           "Mpps", "msg_rate_mpps",      true};

/* limit and the row's figure in the kind's unit: the key's value / scale. */
static void judge_in(struct rb_gate *g, const struct rb_row *row, const char *key, double limit, double scale,
                     const struct rb_gate_kind *kind)
{
	const struct rb_field *f = rb_row_find(row, key), *size = rb_row_find(row, "size_bytes");
	double v;

	if (!(limit > 0) || !f || f->type != RB_F_DBL)
		return;
	v = f->v.d / scale;
	/* A row that has the figure but no value (NaN) cannot pass: it fails, said as "no figure". */
	g->judged |= kind->bit;
	if (!isnan(v) && (kind->below ? v >= limit : v <= limit))
		return;
	if (g->failed++ == 0) {
		g->size = size ? size->v.u : 0;
		g->value = v;
		g->limit = limit;
		g->kind = kind;
	}
}

static void judge(struct rb_gate *g, const struct rb_row *row, const char *key, double limit,
                  const struct rb_gate_kind *kind)
{
	judge_in(g, row, key, limit, 1, kind);
}

void rb_gate_row(struct rb_gate *g, const struct rb_gate_opts *o, const struct rb_row *row)
{
	const char *primary = rb_primary_metric(row);

	judge(g, row, "bw_avg_gbps", o->min_bw_gbps, &k_bw);
	judge(g, row, "lat_p99_us", o->max_lat_p99_us, &k_lat);
	if (primary)
		judge(g, row, !strcmp(primary, "bw_avg_gbps") ? "bw_avg_gbps_cv_pct" : "lat_p50_us_cv_pct",
		      o->max_cv_pct, &k_cv);
	judge(g, row, "wire_eff_pct", o->min_eff_pct, &k_eff);
	judge_in(g, row, "bw_avg_gbps", o->limit_bw, o->limit_bw_scale, &k_limit_bw);
	judge(g, row, "msg_rate_mpps", o->min_rate_mpps, &k_rate);
}

/* A gate given whose figure no row had: it judged nothing, which is no pass. */
static int unjudged(const struct rb_gate *g, const struct rb_gate_kind *k, double limit, char *buf,
                    size_t cap)
{
	if (!(limit > 0) || (g->judged & k->bit))
		return 0;
	snprintf(buf, cap, "gate %s %g judged nothing: no row of this run has its figure (%s)", k->opt, limit,
	         k->key);
	return -EIO;
}

int rb_gate_text(const struct rb_gate *g, const struct rb_gate_opts *o, char *buf, size_t cap)
{
	if (!g->failed) {
		if (unjudged(g, &k_bw, o->min_bw_gbps, buf, cap) ||
		    unjudged(g, &k_lat, o->max_lat_p99_us, buf, cap) ||
		    unjudged(g, &k_cv, o->max_cv_pct, buf, cap) ||
		    unjudged(g, &k_eff, o->min_eff_pct, buf, cap) ||
		    unjudged(g, &k_limit_bw, o->limit_bw, buf, cap) ||
		    unjudged(g, &k_rate, o->min_rate_mpps, buf, cap))
			return -EIO;
		return 0;
	}
	if (isnan(g->value))
		snprintf(buf, cap, "gate %s %g failed at %llu bytes: its %s is unknown (%u size%s failed)",
		         g->kind->opt, g->limit, (unsigned long long)g->size, g->kind->noun, g->failed,
		         g->failed == 1 ? "" : "s");
	else
		snprintf(buf, cap, "gate %s %g failed at %llu bytes: %s %g %s (%u size%s failed)",
		         g->kind->opt, g->limit, (unsigned long long)g->size, g->kind->noun, g->value,
		         g->kind->unit ? g->kind->unit : o->limit_bw_unit, g->failed,
		         g->failed == 1 ? "" : "s");
	return -EIO;
}

int rb_gate_verdict(const struct rb_gate *g, const struct rb_gate_opts *o)
{
	char why[256];

	if (!rb_gate_text(g, o, why, sizeof(why)))
		return 0;
	rb_err("%s", why);
	return -EIO;
}

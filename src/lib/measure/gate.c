#include "gate.h"

#include "base/base.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

void rb_gate_opts_default(struct rb_gate_opts *o)
{
	o->min_bw_gbps = 0;
	o->max_lat_p99_us = 0;
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
	    {0},
	};
	return (struct rb_opt_table){"Gates", rows, o, false};
}

/* The field named key, or NULL. */
static const struct rb_field *field(const struct rb_row *row, const char *key)
{
	for (unsigned i = 0; i < row->n; i++)
		if (!strcmp(row->f[i].key, key))
			return &row->f[i];
	return NULL;
}

static void judge(struct rb_gate *g, const struct rb_row *row, const char *key, double limit, bool below,
                  const char *what)
{
	const struct rb_field *f = field(row, key), *size = field(row, "size_bytes");
	double v;

	if (!(limit > 0) || !f || f->type != RB_F_DBL)
		return;
	v = f->v.d;
	if (isnan(v) || (below ? v >= limit : v <= limit))
		return;
	if (g->failed++ == 0) {
		g->size = size ? size->v.u : 0;
		g->value = v;
		g->what = what;
	}
}

void rb_gate_row(struct rb_gate *g, const struct rb_gate_opts *o, const struct rb_row *row)
{
	judge(g, row, "bw_avg_gbps", o->min_bw_gbps, true, "--min-bw");
	judge(g, row, "lat_p99_us", o->max_lat_p99_us, false, "--max-lat-p99");
}

int rb_gate_text(const struct rb_gate *g, const struct rb_gate_opts *o, char *buf, size_t cap)
{
	bool bw;

	if (!g->failed)
		return 0;
	bw = !strcmp(g->what, "--min-bw");
	snprintf(buf, cap, "gate %s %g failed at %llu bytes: %s %g %s (%u size%s failed)", g->what,
	         bw ? o->min_bw_gbps : o->max_lat_p99_us, (unsigned long long)g->size,
	         bw ? "bandwidth" : "p99 latency", g->value, bw ? "Gb/s" : "us", g->failed,
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

/* SPDX-License-Identifier: BSD-2-Clause */
#include "runlen.h"

#include "base/base.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

struct rb_opt_table rb_runlen_opt_table(struct rb_runlen_opts *o, const struct rb_runlen_help *h)
{
	static const struct rb_opt rows[] = {
	    {.name = "iters",
	     .key = 'n',
	     .type = RB_OPT_U32,
	     .off = offsetof(struct rb_runlen_opts, iters),
	     .arg = "N",
	     .min = 1,
	     .max = RB_RUNLEN_ITERS_MAX,
	     .flags = RB_OPT_GROUP(1)},
	    {.name = "duration",
	     .key = 'D',
	     .type = RB_OPT_FN,
	     .off = offsetof(struct rb_runlen_opts, duration_s),
	     .arg = "SEC",
	     .help = "run each size for SEC seconds instead of -n",
	     .fn = rb_parse_duration,
	     .allowed = RB_DURATION_ALLOWED,
	     .flags = RB_OPT_GROUP(1)},
	    {.name = "run-infinitely",
	     .type = RB_OPT_FLAG,
	     .off = offsetof(struct rb_runlen_opts, forever),
	     .flags = RB_OPT_GROUP(1)},
	    {0},
	};

	_Static_assert(sizeof(rows) == sizeof(o->rows), "rb_runlen_opts.rows holds the table");
	memcpy(o->rows, rows, sizeof(rows));
	o->rows[0].help = h->iters;
	if (h->iters_max)
		o->rows[0].max = h->iters_max;
	if (h->duration)
		o->rows[1].help = h->duration;
	if (h->forever)
		o->rows[2].help = h->forever;
	else
		o->rows[2] = (struct rb_opt){0};
	return (struct rb_opt_table){"Test", o->rows, o, true, NULL};
}

int rb_runlen_resolve(struct rb_runlen_opts *o, const struct rb_sizes *s, uint32_t dflt)
{
	if (o->forever) {
		if (o->iters || o->duration_s > 0) {
			rb_usage_err(
			    "--run-infinitely with %s: it runs until SIGINT/SIGTERM, without -n or -D",
			    o->iters ? "-n" : "-D");
			return -EINVAL;
		}
		if (s->n != 1) {
			rb_usage_err("--run-infinitely with %u sizes: it runs one size (-s SIZE)", s->n);
			return -EINVAL;
		}
		return 0;
	}
	if (o->iters && o->duration_s > 0) {
		rb_usage_err("choose either -n %u or -D %g, not both", o->iters, o->duration_s);
		return -EINVAL;
	}
	if (o->duration_s > 0)
		o->iters = 0;
	else if (!o->iters)
		o->iters = dflt;
	return 0;
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Pass/fail gates on a run's own rows, for CI: --min-bw GBPS fails a size whose
 * average bandwidth (bw_avg_gbps) is below it, --max-lat-p99 US one whose p99
 * latency (lat_p99_us) is above it, --max-cv PCT one whose repeats spread more than
 * that (the CV of its primary metric, --repeat), --min-efficiency PCT one that
 * reached less of what the wire can carry (wire_eff_pct); perftest's -w and -y one
 * whose bandwidth (in the table's unit) or message rate is below theirs. The sweep runs to its end
 * and every row is kept; the run then exits 1 naming the first offending size and
 * how many there were, or a gate whose figure no row had (it judged nothing).
 */
#ifndef RB_GATE_H
#define RB_GATE_H

#include "base/base.h"

#include <stddef.h>
#include <stdint.h>

struct rb_row;

struct rb_gate_opts {
	double min_bw_gbps;    /* 0: no gate */
	double max_lat_p99_us; /* 0: no gate */
	double max_cv_pct;     /* 0: no gate (a size is still marked unstable above RB_MAX_CV_DEFAULT) */
	double min_eff_pct;    /* 0: no gate */
	/* perftest's -w and -y (run/perftest.c): bandwidth in the table's unit, message rate. */
	double limit_bw;       /* 0: no gate; in limit_bw_unit, limit_bw_scale Gb/s each */
	double limit_bw_scale; /* Gb/s per limit_bw_unit */
	const char *limit_bw_unit;
	double min_rate_mpps; /* 0: no gate */
};

void rb_gate_opts_default(struct rb_gate_opts *o);
struct rb_opt_table rb_gate_opt_table(struct rb_gate_opts *o);

struct rb_gate_kind; /* one of the gates (gate.c) */

struct rb_gate {
	unsigned failed;
	unsigned judged; /* the gates that had a figure to judge in some row */
	uint64_t size;   /* the first offender */
	double value, limit;
	const struct rb_gate_kind *kind;
};

/* One size's row (interval rows and a single repeat's are not judged). */
void rb_gate_row(struct rb_gate *g, const struct rb_gate_opts *o, const struct rb_row *row);
/* The verdict as one line into buf: 0 when every gate passed, else -EIO. */
int rb_gate_text(const struct rb_gate *g, const struct rb_gate_opts *o, char *buf, size_t cap);
/* 0, or -EIO after saying which size failed which gate. */
int rb_gate_verdict(const struct rb_gate *g, const struct rb_gate_opts *o);

#endif

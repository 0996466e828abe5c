/* SPDX-License-Identifier: BSD-2-Clause */
/* The sizes of a run: the barrier, the tool's step, the closing agreement on each, the rows. */
#include "driver_priv.h"
#include "window.h"

#include "base/base.h"
#include "host/host.h"
#include "oob/oob.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Under a size's row: the port counters that moved and should not have. */
static void fabric_line(const struct rb_run *r)
{
	char moved[512];

	if (rb_counters_abnormal(&r->ctr, moved, sizeof(moved)))
		printf("  fabric (this side's port counters): %s\n", moved);
}

const char *rb_drv_peer_role(const struct rb_run *r)
{
	return r->client ? "server" : "client";
}

/* The closing agreement on one step (agree.h); -v says what it cost. */
static int agree_step(struct rb_run *r, uint64_t seq, uint64_t size)
{
	uint64_t t0 = rb_now_ns();
	int ret = rb_agree(r->oob, &(struct rb_agree){.seq = seq, .ok = true}, rb_drv_peer_role(r));

	rb_dbg("closing agreement on the %llu-byte step: %.1f us", (unsigned long long)size,
	       (double)(rb_now_ns() - t0) / 1e3);
	return ret;
}

/*
 * With --interval, every row says which stretch of the size's measured time it covers:
 * "interval[s]" ("12.0-13.0", or "total" for the size's own row), t_start_s and
 * t_end_s from the start of the size's measured time. Nothing without it.
 */
static void stamp_span(struct rb_row *row, double interval_s, bool total, double from_s, double to_s)
{
	char span[48];

	if (!(interval_s > 0) || rb_row_find(row, "interval"))
		return;
	/* Enough decimals that intervals of 0.01 s still read apart. */
	int prec = interval_s >= 1 ? 1 : interval_s >= 0.1 ? 2 : 3;

	if (total)
		snprintf(span, sizeof(span), "total");
	else
		snprintf(span, sizeof(span), "%.*f-%.*f", prec, from_s, prec, to_s);
	rb_row_str(row, "interval", "interval[s]", span);
	rb_row_dbl(row, "t_start_s", NULL, 3, from_s);
	rb_row_dbl(row, "t_end_s", NULL, 3, to_s);
}

/* A size's own row (whole or cut short) covers its measured time: 0 to its elapsed_s. */
static void stamp_total(const struct rb_run *r, struct rb_row *row)
{
	const struct rb_field *el = rb_row_find(row, "elapsed_s");

	stamp_span(row, r->out_opts.interval_s, true, 0, el && el->type == RB_F_DBL ? el->v.d : 0.0);
}

/* Every row says whether it is a size's whole measurement (partial 0) or one cut short (1). */
static void mark_partial(struct rb_row *row, bool partial)
{
	if (!rb_row_find(row, "partial"))
		rb_row_bool(row, "partial", NULL, partial);
}

/* A row besides the sizes' own (an interval's, a partial size's): into every document. */
static void put_row(struct rb_run *r, const struct rb_row *row)
{
	struct rb_row with = *row;

	if (r->d->warming) /* --perform_warm_up's pass reports nothing, its intervals neither */
		return;
	/* An interval's counters are the interval's; a partial size's are the size's (set by its caller). */
	if (!rb_row_find(&with, "partial")) {
		rb_counters_row(&r->ctr, &with, true);
		mark_partial(&with, false);
	}
	rb_progress_pause(&r->d->prog);
	rb_reports_row(&r->reps, &with);
	rb_progress_resume(&r->d->prog);
	if (r->d->sink)
		r->d->sink(r->d->sink_arg, &with);
}

/* A size's row, in every document and the text table: the gates judge it, the model fits it. */
static void size_row(const struct rb_tool *tool, void *t, struct rb_run *r, struct rb_row *row)
{
	mark_partial(row, false);
	rb_reports_row(&r->reps, row);
	if (r->d->sink)
		r->d->sink(r->d->sink_arg, row);
	rb_gate_row(&r->d->gate, &r->gate_opts, row);
	rb_model_add(&r->d->model, row);
	if (tool->out.after_row && rb_reports_text(&r->reps))
		tool->out.after_row(t, r);
	if (rb_reports_text(&r->reps))
		fabric_line(r);
}

/* --repeat: what the table's rows are, above it. */
static void repeat_line(const struct rb_run *r)
{
	double cv = r->gate_opts.max_cv_pct > 0 ? r->gate_opts.max_cv_pct : RB_MAX_CV_DEFAULT;

	printf(" Repeats        : %u runs of each size, each row their median, with the P5, P95 and CV\n"
	       "                  of its bandwidth (or median latency); unstable above a CV of %g %%%s\n",
	       r->d->rep.n, cv, r->gate_opts.max_cv_pct > 0 ? " (--max-cv)" : "");
}

/* The sweep's message-time model (model.h), under the table; kept for the JSON document. */
static void model_line(struct rb_run *r)
{
	int fit = rb_model_fit(&r->d->model, r->d->link_gbps, &r->d->fit);
	char line[256];

	r->d->have_fit = fit == 0;
	if (!rb_reports_text(&r->reps) || fit == -EDOM)
		return;
	if (fit == -ERANGE) {
		printf(
		    " Model T = t_lat + N / B_eff does not fit this sweep: t_lat would be %.3g us (the time "
		    "per byte grows with size)\n",
		    r->d->fit.t_lat_us);
		return;
	}
	rb_model_text(&r->d->fit, line, sizeof(line));
	printf(" Model T = t_lat + N / B_eff (%s): %s\n", r->d->fit.metric, line);
}

/*
 * SIGINT or SIGTERM cut the size short: what this side measured of it, as a row marked
 * partial, into the documents and the table (never the gates or the model: a partial
 * size is no measurement of the size). The run still ends incomplete.
 */
static void partial_row(const struct rb_tool *tool, void *t, struct rb_run *r, const struct rb_step *s)
{
	struct rb_row row;
	const struct rb_field *el;
	int sig = rb_stop_signal();
	uint64_t size = s->size;

	if (!sig || !tool->measure.partial || !tool->measure.partial(t, r, s, &row))
		return;
	stamp_total(r, &row);
	rb_counters_row(&r->ctr, &row, false);
	rb_row_bool(&row, "partial", NULL, true);
	put_row(r, &row);
	if (!rb_reports_text(&r->reps))
		return;
	el = rb_row_find(&row, "elapsed_s");
	printf(" partial row: %s %.1f s into the %llu-byte size; this side's own figures, never agreed with "
	       "the %s\n",
	       sig == SIGTERM ? "SIGTERM" : "SIGINT", el && el->type == RB_F_DBL ? el->v.d : 0.0,
	       (unsigned long long)size, rb_drv_peer_role(r));
	fflush(stdout);
}

/* One measurement of a size: prepare, barrier, step, the closing agreement, the counters. */
static int measure(const struct rb_tool *tool, void *t, struct rb_run *r, uint64_t size, uint64_t seq,
                   struct rb_row *row)
{
	int ret = rb_check_stop();

	if (!ret && tool->measure.prepare)
		ret = tool->measure.prepare(t, r, size);
	if (!ret)
		ret = rb_oob_barrier(r->oob, seq);
	rb_counters_mark(&r->ctr);
	if (!ret) {
		struct rb_step_window w;
		struct rb_step s = {
		    .size = size, .seq = seq, .interval_s = r->out_opts.interval_s, .drv = r->d};

		rb_cpuwait_mark(); /* the -D bounds allow for this host's own CPU waits from here */
		rb_window_begin();
		ret = tool->measure.step(t, r, &s, row);
		rb_window_end(&w);
		rb_dbg("inside the %llu-byte step's %s: %llu minor and %llu major page faults, %llu "
		       "allocations%s",
		       (unsigned long long)size,
		       w.marked ? "timed window" : "whole step (no timed window marked)",
		       (unsigned long long)w.minflt, (unsigned long long)w.majflt,
		       (unsigned long long)w.allocs,
		       w.counted ? "" : " (not counted: no counting allocator loaded)");
		if (!ret)
			stamp_total(r, row);
		if (ret == -EINTR && !r->d->warming)
			partial_row(tool, t, r, &s);
	}
	/* The clock has stopped: the row waits for the peer's verdict on the step. */
	if (!ret)
		ret = agree_step(r, seq, size);
	if (!ret)
		rb_counters_row(&r->ctr, row, false);
	return ret;
}

int rb_drv_steps(const struct rb_tool *tool, void *t, struct rb_run *r)
{
	const struct rb_sizes *sz = rb_tool_sizes(tool, t);
	unsigned reps = r->d->rep.n;
	/* Not a terminal: the client's log gets a line now and then, unless --interval rows show it alive. */
	bool lines = r->client && !(r->out_opts.interval_s > 0 && rb_reports_text(&r->reps));
	double expect_s = rb_drv_runlen(tool, t)->duration_s; /* -D: each size's, for the progress line */
	double max_cv = r->gate_opts.max_cv_pct > 0 ? r->gate_opts.max_cv_pct : RB_MAX_CV_DEFAULT;
	struct rb_row *kept = NULL;
	uint64_t seq = 0;
	int ret = 0;

	rb_model_reset(&r->d->model);
	r->d->have_fit = false;
	if (reps > 1) {
		kept = calloc(reps + 1, sizeof(*kept)); /* the repeats' rows, then their summary */
		if (!kept) {
			rb_err("out of memory for the rows of %u repeats", reps);
			return -ENOMEM;
		}
		if (rb_reports_text(&r->reps))
			repeat_line(r);
	}
	rb_window_ready();
	/* --perform_warm_up: the first size once, untimed and unreported, on both sides (the option is
	 * shared). */
	if (r->d->pt.warm_up && sz->n) {
		struct rb_row row;

		rb_dbg("warm-up: one pass of the %llu-byte size, not reported", (unsigned long long)sz->v[0]);
		r->d->warming = true;
		ret = measure(tool, t, r, sz->v[0], ++seq, &row);
		r->d->warming = false;
	}
	if (!r->out_opts.quiet && !r->d->sink)
		rb_progress_start(&r->d->prog, isatty(STDERR_FILENO), lines, sz->n * reps > 1);
	for (unsigned i = 0; i < sz->n && !ret; i++) {
		struct rb_row row;
		uint64_t ctr[RB_CTR_MAX] = {0};

		for (unsigned k = 1; k <= reps && !ret; k++) {
			rb_progress_size(&r->d->prog, (i * reps) + k - 1, sz->n * reps, sz->v[i], expect_s);
			ret = measure(tool, t, r, sz->v[i], ++seq, &row);
			rb_progress_idle(&r->d->prog);
			for (unsigned c = 0; c < r->ctr.n; c++)
				ctr[c] += r->ctr.delta[c];
			if (!ret && kept) {
				rb_repeat_mark(&row, k, reps);
				mark_partial(&row, false);
				kept[k - 1] = row;
				rb_reports_detail_row(&r->reps, &row);
			}
		}
		if (!ret && kept) {
			rb_repeat_summary(kept, reps, max_cv, &kept[reps]);
			row = kept[reps];
			/* The line under the row names what moved in any repeat of the size. */
			memcpy(r->ctr.delta, ctr, sizeof(ctr));
		}
		if (!ret)
			size_row(tool, t, r, &row);
	}
	rb_progress_stop(&r->d->prog);
	free(kept);
	if (!ret && rb_reports_text(&r->reps))
		printf("-------------------------------------------------------------------------------------"
		       "--\n");
	if (!ret)
		model_line(r);
	return ret;
}

void rb_step_row(struct rb_step *s, struct rb_row *row, double from_s, double to_s)
{
	stamp_span(row, s->interval_s, false, from_s, to_s);
	put_row(s->drv->run, row);
}

unsigned rb_run_repeats(const struct rb_run *r)
{
	return r->d->rep.n > 1 ? r->d->rep.n : 1;
}

const struct rb_sizes *rb_tool_sizes(const struct rb_tool *tool, const void *t)
{
	return (const struct rb_sizes *)((const char *)t + tool->cli.sizes_at);
}

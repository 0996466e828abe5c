/* The sizes of a run: progress, the barrier, the tool's step, the closing agreement on each, the rows. */
#include "driver_priv.h"

#include "base/base.h"
#include "host/host.h"
#include "oob/oob.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/*
 * A sweep's progress on a terminal: "size 4096 B (5/23), ETA 0:42" on stderr,
 * rewritten in place and erased before each row; never in a file or a pipe.
 */
static void progress(struct rb_run *r, bool on, uint64_t t0, const struct rb_sizes *sz, unsigned i)
{
	uint64_t now = rb_now_ns();
	unsigned eta;

	if (!on)
		return;
	r->d->progress_shown = i < sz->n;
	rb_log_progress(r->d->progress_shown);
	if (i >= sz->n) {
		fputs("\r\033[K", stderr);
		return;
	}
	fprintf(stderr, "\r\033[K%s: size %llu B (%u/%u)", rb_prog(), (unsigned long long)sz->v[i], i + 1,
	        sz->n);
	if (i > 0) {
		eta = (unsigned)((double)(now - t0) / 1e9 / i * (sz->n - i) + 0.5);
		fprintf(stderr, ", ETA %u:%02u", eta / 60, eta % 60);
	}
	fflush(stderr);
}

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
	int ret = rb_agree(&r->oob, &(struct rb_agree){.seq = seq, .ok = true}, rb_drv_peer_role(r));

	rb_dbg("closing agreement on the %llu-byte step: %.1f us", (unsigned long long)size,
	       (double)(rb_now_ns() - t0) / 1e3);
	return ret;
}

int rb_drv_steps(const struct rb_tool *tool, void *t, struct rb_run *r)
{
	const struct rb_sizes *sz = rb_tool_sizes(tool, t);
	bool show = sz->n > 1 && isatty(STDERR_FILENO);
	uint64_t t0 = rb_now_ns();
	int ret = 0;

	for (unsigned i = 0; i < sz->n && !ret; i++) {
		struct rb_row row;

		progress(r, show, t0, sz, i);
		ret = rb_check_stop();
		if (!ret && tool->prepare)
			ret = tool->prepare(t, r, sz->v[i]);
		if (!ret)
			ret = rb_oob_barrier(&r->oob, i + 1);
		rb_counters_mark(&r->ctr);
		if (!ret)
			ret = tool->step(t, r, sz->v[i], i + 1, &row);
		/* The clock has stopped: the row waits for the peer's verdict on the step. */
		if (!ret)
			ret = agree_step(r, i + 1, sz->v[i]);
		progress(r, show, t0, sz, sz->n);
		if (!ret) {
			rb_counters_row(&r->ctr, &row, false);
			rb_reports_row(&r->reps, &row);
			if (r->d->sink)
				r->d->sink(r->d->sink_arg, &row);
			rb_gate_row(&r->d->gate, &r->gate_opts, &row);
		}
		if (!ret && tool->after_row && rb_reports_text(&r->reps))
			tool->after_row(t, r);
		if (!ret && rb_reports_text(&r->reps))
			fabric_line(r);
	}
	if (!ret && rb_reports_text(&r->reps))
		printf("-------------------------------------------------------------------------------------"
		       "--\n");
	return ret;
}

void rb_run_row(struct rb_run *r, const struct rb_row *row)
{
	struct rb_row with = *row;

	if (r->d->progress_shown) {
		fputs("\r\033[K", stderr);
		r->d->progress_shown = false;
		rb_log_progress(false);
	}
	rb_counters_row(&r->ctr, &with, true);
	rb_reports_row(&r->reps, &with);
	if (r->d->sink)
		r->d->sink(r->d->sink_arg, &with);
}

const struct rb_sizes *rb_tool_sizes(const struct rb_tool *tool, const void *t)
{
	return (const struct rb_sizes *)((const char *)t + tool->sizes_at);
}

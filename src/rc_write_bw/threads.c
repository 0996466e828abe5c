/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * --threads: worker posters. Worker t owns a block of QPs (rb_conn_scq_of) and their
 * send CQ, and between steps sleeps on a sequence word; in a step it posts and polls
 * its own QPs alone (no lock, nothing another thread writes) and publishes its counts
 * (state.h). The engine's thread looks at them about every millisecond: the peak,
 * -D's stop (a flag each worker turns into a stop at its QPs' next signaled WR),
 * --interval rows, the heartbeat, the peer's frames and the stall bound work on those
 * totals as they do for one thread. The step's first failure, the engine's or a
 * worker's, is kept by the crew (run/crew.h) and stops every worker at its next pass.
 */
#include "threads.h"
#include "clock.h"
#include "recv.h"
#include "send.h"
#include "state.h"

#include "base/base.h"
#include "host/host.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* How long the engine's thread sleeps between looks at the workers' counts, at most. */
#define LOOK_MS 1

/* One step on worker t's QPs: until each is done, or the engine says stop. */
static int worker_step(void *arg, unsigned t)
{
	struct bw_engine *e = arg;
	struct bw_poster *pt = &e->workers->pt[t];
	bool stopped = false;
	int ret = 0;

	for (;;) {
		int stop = rb_crew_stop(e->workers->crew);
		bool active = false;

		if (stop == 2)
			return 0; /* the step failed elsewhere: its cause is the crew's */
		if (stop == 1 && !stopped) {
			for (unsigned qi = pt->first; qi < pt->end; qi++)
				rb_sendq_stop(&e->q[qi].sq);
			stopped = true;
		}
		for (unsigned qi = pt->first; qi < pt->end && !ret; qi++) {
			struct rb_sendq_plan p;

			while (!ret && (p = bw_next_plan(e, qi)).n)
				ret = bw_post_writes(pt, qi, &p);
			active |= !rb_sendq_done(&e->q[qi].sq);
		}
		if (ret || !active)
			return ret;
		if ((ret = bw_poll_sends(pt)) < 0)
			return ret;
		ret = 0;
	}
}

int bw_workers_start(struct bw_engine *e, unsigned n)
{
	struct bw_workers *w = calloc(1, sizeof(*w));
	unsigned nqps = e->c->nqps;

	if (e->c->nscq != n) {
		rb_err("internal error: %u posting threads over %u send CQs", n, e->c->nscq);
		free(w);
		return -EINVAL;
	}
	if (w)
		w->pt = calloc(n, sizeof(*w->pt));
	if (!w || !w->pt) {
		free(w);
		rb_err("out of memory for %u posting threads", n);
		return -ENOMEM;
	}
	w->n = n;
	e->workers = w;
	e->solo.cq = NULL; /* the send CQs are the workers' */
	for (unsigned t = 0; t < n; t++)
		w->pt[t] = (struct bw_poster){.e = e,
		                              .idx = t,
		                              .first = rb_conn_scq_first(t, n, nqps),
		                              .end = rb_conn_scq_first(t + 1, n, nqps),
		                              .cq = e->c->scqs[t],
		                              .worker = true};
	if (!(w->crew = rb_crew_start(n, worker_step, e, "posting thread"))) {
		bw_workers_end(e);
		return -ENOMEM;
	}
	for (unsigned t = 0; t < n; t++) {
		int cpu = rb_crew_cpu(w->crew, t);

		rb_dbg("posting thread %u: QPs %u..%u, send CQ %u, CPU %d%s", t, w->pt[t].first,
		       w->pt[t].end - 1, t, cpu, cpu < 0 ? " (not pinned)" : "");
	}
	return 0;
}

bool bw_workers_abandoned(const struct bw_engine *e)
{
	return e->workers && rb_crew_abandoned(e->workers->crew);
}

void bw_workers_end(struct bw_engine *e)
{
	struct bw_workers *w = e->workers;

	if (!w || rb_crew_abandoned(w->crew))
		return; /* never freed under a live thread: the process is ending */
	rb_crew_end(w->crew);
	free(w->pt);
	free(w);
	e->workers = NULL;
}

/* The engine's look between sleeps: the peer's messages and its clock (peak, -D, stall). */
static int look(void *arg)
{
	struct bw_engine *e = arg;
	int ret;

	if (e->cfg.receiving && e->cfg.imm && (ret = bw_service_recv(e)) < 0)
		return ret;
	return bw_clock_read(e);
}

int bw_workers_send(struct bw_engine *e)
{
	struct bw_workers *w = e->workers;
	int ret;

	for (unsigned t = 0; t < w->n; t++) {
		struct bw_poster *pt = &w->pt[t];

		pt->done = pt->posted = 0;
		atomic_store(&pt->pub_done, 0);
		atomic_store(&pt->pub_posted, 0);
		atomic_store(&pt->pub_last, e->t_first);
	}
	e->last_progress = rb_now_ns();
	e->sending = true;
	/* Every wait bounded: a worker that does not leave within --timeout is abandoned. */
	ret = rb_crew_step(w->crew, look, e, LOOK_MS, e->cfg.timeout_s);
	bw_gather_done(e, rb_now_ns());
	bw_gather_posted(e);
	e->sending = false;
	return ret;
}

void bw_workers_result(const struct bw_engine *e, struct bw_result *res)
{
	struct bw_workers *w = e->workers;

	res->threads = w ? w->n : 1;
	for (unsigned t = 0; w && t < w->n && t < BW_MAX_THREADS; t++) {
		uint64_t last = atomic_load(&w->pt[t].pub_last);

		res->thread_msgs[t] = atomic_load(&w->pt[t].pub_done);
		res->thread_ns[t] = last > e->t_first ? last - e->t_first : 0;
	}
}

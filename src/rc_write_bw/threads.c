/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * --threads: worker posters. Worker t owns a block of QPs (rb_conn_scq_of) and their
 * send CQ, and between steps sleeps on a sequence word; in a step it posts and polls
 * its own QPs alone (no lock, nothing another thread writes) and publishes its counts
 * (state.h). The engine's thread looks at them about every millisecond: the peak,
 * -D's stop (a flag each worker turns into a stop at its QPs' next signaled WR),
 * --interval rows, the heartbeat, the peer's frames and the stall bound work on those
 * totals as they do for one thread. The step's first failure, the engine's or a
 * worker's, is kept (first_err) and stops every worker at its next pass.
 */
#include "threads.h"
#include "clock.h"
#include "recv.h"
#include "send.h"
#include "state.h"

#include "base/base.h"
#include "host/host.h"
#include "run/window.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

/* How long the engine's thread sleeps between looks at the workers' counts, at most. */
#define LOOK_MS 1

/* The step's first failure wins; every worker leaves at its next pass. */
static void fail_step(struct bw_engine *e, int ret)
{
	int none = 0;

	atomic_compare_exchange_strong(&e->workers->first_err, &none, ret);
	atomic_store(&e->stop_workers, 2);
}

/* One step on worker pt's QPs: until each is done, or the engine says stop. */
static int worker_step(struct bw_poster *pt)
{
	struct bw_engine *e = pt->e;
	bool stopped = false;
	int ret = 0;

	for (;;) {
		int stop = atomic_load_explicit(&e->stop_workers, memory_order_relaxed);
		bool active = false;

		if (stop == 2)
			return 0; /* the step failed elsewhere: its cause is first_err */
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

static void *worker_main(void *arg)
{
	struct bw_poster *pt = arg;
	struct bw_workers *w = pt->e->workers;
	uint32_t seen = 0;

	rb_window_thread_ready(&w->ready);
	for (;;) {
		int ret;

		while (atomic_load(&w->gen) == seen && !atomic_load(&w->quit))
			RB_SEQWAIT_ONCE(&w->go, atomic_load(&w->gen) != seen || atomic_load(&w->quit), 1000);
		if (atomic_load(&w->quit))
			return NULL;
		seen = atomic_load(&w->gen);
		if ((ret = worker_step(pt)))
			fail_step(pt->e, ret);
		if (atomic_fetch_sub(&w->busy, 1) == 1 || ret)
			rb_seqwait_bump(&w->idle);
	}
}

/* Until every worker is out of the step, ms at most; false when one is not. */
static bool wait_idle(struct bw_workers *w, uint64_t ms)
{
	uint64_t end = rb_now_ns() + ms * RB_NS_PER_MS;

	while (atomic_load(&w->busy) && rb_now_ns() < end)
		RB_SEQWAIT_ONCE(&w->idle, atomic_load(&w->busy) == 0, 100);
	return atomic_load(&w->busy) == 0;
}

/*
 * The CPUs: the t-th worker on the (t+1)-th CPU of the process's set (the device's
 * node's), the first left to the engine's thread, when there are enough; said when
 * threads must share CPUs.
 */
static unsigned first_cpu(unsigned n)
{
	cpu_set_t set;
	int cpus = sched_getaffinity(0, sizeof(set), &set) ? 0 : CPU_COUNT(&set);

	if (cpus > 0 && (unsigned)cpus < n)
		rb_warn(
		    "--threads %u on %d CPU(s) (this process's, the device's node's): threads share CPUs, "
		    "and the rate does not grow past %d",
		    n, cpus, cpus);
	return cpus > 0 && (unsigned)cpus > n ? 1 : 0;
}

int bw_workers_start(struct bw_engine *e, unsigned n)
{
	struct bw_workers *w = calloc(1, sizeof(*w));
	unsigned nqps = e->c->nqps, skip;
	sigset_t old;
	int ret = 0;

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
	skip = first_cpu(n);
	for (unsigned t = 0; t < n; t++) {
		w->pt[t] = (struct bw_poster){.e = e,
		                              .idx = t,
		                              .first = rb_conn_scq_first(t, n, nqps),
		                              .end = rb_conn_scq_first(t + 1, n, nqps),
		                              .cq = e->c->scqs[t],
		                              .worker = true,
		                              .cpu = -1};
	}
	/* Signals go to the engine's thread: its waits are the ones that must wake up. */
	rb_sig_hold(&old);
	for (unsigned t = 0; t < n && !ret; t++) {
		ret = pthread_create(&w->pt[t].thread, NULL, worker_main, &w->pt[t]);
		if (ret)
			rb_err("cannot start posting thread %u of %u: %s", t, n, strerror(ret));
		else
			w->started++;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret) {
		bw_workers_end(e);
		return -ret;
	}
	/* Pinned from here: each thread's affinity set by its id, before it runs a step. */
	for (unsigned t = 0; t < n; t++) {
		cpu_set_t one;
		int cpu = rb_pin_nth_cpu(skip + t);

		if (cpu >= 0) {
			CPU_ZERO(&one);
			CPU_SET(cpu, &one);
			if (pthread_setaffinity_np(w->pt[t].thread, sizeof(one), &one))
				cpu = -1;
		}
		w->pt[t].cpu = cpu;
		rb_dbg("posting thread %u: QPs %u..%u, send CQ %u, CPU %d%s", t, w->pt[t].first,
		       w->pt[t].end - 1, t, cpu, cpu < 0 ? " (not pinned)" : "");
	}
	rb_window_threads_ready(&w->ready, w->started, 2000);
	return 0;
}

bool bw_workers_abandoned(const struct bw_engine *e)
{
	return e->workers && e->workers->abandoned;
}

void bw_workers_end(struct bw_engine *e)
{
	struct bw_workers *w = e->workers;

	if (!w || w->abandoned)
		return; /* never freed under a live thread: the process is ending */
	atomic_store(&w->quit, true);
	rb_seqwait_bump(&w->go);
	for (unsigned t = 0; t < w->started; t++)
		pthread_join(w->pt[t].thread, NULL);
	free(w->pt);
	free(w);
	e->workers = NULL;
}

int bw_workers_send(struct bw_engine *e)
{
	struct bw_workers *w = e->workers;
	int ret = 0;

	for (unsigned t = 0; t < w->n; t++) {
		struct bw_poster *pt = &w->pt[t];

		pt->done = pt->posted = 0;
		atomic_store(&pt->pub_done, 0);
		atomic_store(&pt->pub_posted, 0);
		atomic_store(&pt->pub_last, e->t_first);
	}
	atomic_store(&w->first_err, 0);
	atomic_store(&e->stop_workers, 0);
	atomic_store(&w->busy, w->n);
	e->last_progress = rb_now_ns();
	e->sending = true;
	atomic_fetch_add(&w->gen, 1);
	rb_seqwait_bump(&w->go);
	while (atomic_load(&w->busy) && !atomic_load(&w->first_err)) {
		RB_SEQWAIT_ONCE(&w->idle, atomic_load(&w->busy) == 0 || atomic_load(&w->first_err), LOOK_MS);
		if ((e->cfg.receiving && e->cfg.imm && (ret = bw_service_recv(e)) < 0) ||
		    (ret = bw_clock_read(e)) != 0) {
			fail_step(e, ret);
			break;
		}
	}
	/* Every wait bounded: a worker that does not leave within --timeout is abandoned. */
	if (!wait_idle(w, (uint64_t)e->cfg.timeout_s * 1000)) {
		rb_err("a posting thread did not stop within %u s (--timeout); leaving it", e->cfg.timeout_s);
		w->abandoned = true;
		fail_step(e, -ETIMEDOUT);
	}
	ret = atomic_load(&w->first_err);
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

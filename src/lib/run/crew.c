/* SPDX-License-Identifier: BSD-2-Clause */
/* A crew of pinned worker threads running the steps of a measurement (crew.h). */
#include "crew.h"
#include "window.h"

#include "base/base.h"
#include "host/host.h"
#include "oob/oob.h" /* rb_step_credit */

#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct worker {
	struct rb_crew *w;
	unsigned t;
	pthread_t thread;
	int cpu;
	_Atomic uint64_t beat; /* the worker's last rb_crew_beat in this step (rb_now_ns) */
	_Atomic uint32_t left; /* the last step it left (gen) */
};

struct rb_crew {
	unsigned n, started;
	const char *what;
	rb_crew_work_fn work;
	void *arg;
	struct worker *wk;     /* n */
	bool abandoned;        /* a worker did not leave a step in time */
	bool watched;          /* the workers beat while in a step (rb_crew_watch) */
	_Atomic uint32_t gen;  /* bumped for each step to run */
	_Atomic bool quit;     /* the crew ends */
	_Atomic unsigned busy; /* workers still in the step */
	_Atomic int first_err; /* the step's first failure (-errno) */
	_Atomic int stop;      /* 1: wind down (the caller's meaning); 2: the step failed */
	atomic_uint ready;     /* workers running, their stacks in place (window.h) */
	struct rb_seqwait go, idle;
};

void rb_crew_fail(struct rb_crew *w, int err)
{
	int none = 0;

	atomic_compare_exchange_strong(&w->first_err, &none, err ? err : -EIO);
	atomic_store(&w->stop, 2);
	rb_seqwait_bump(&w->idle);
}

int rb_crew_stop(const struct rb_crew *w)
{
	return atomic_load_explicit(&w->stop, memory_order_relaxed);
}

void rb_crew_set_stop(struct rb_crew *w, int v)
{
	int none = 0;

	atomic_compare_exchange_strong(&w->stop, &none, v); /* never over a failure's 2 */
}

static void *worker_main(void *arg)
{
	struct worker *k = arg;
	struct rb_crew *w = k->w;
	uint32_t seen = 0;

	rb_window_thread_ready(&w->ready);
	for (;;) {
		int ret;

		while (atomic_load(&w->gen) == seen && !atomic_load(&w->quit))
			RB_SEQWAIT_ONCE(&w->go, atomic_load(&w->gen) != seen || atomic_load(&w->quit), 1000);
		if (atomic_load(&w->quit))
			return NULL;
		seen = atomic_load(&w->gen);
		if ((ret = w->work(w->arg, k->t)))
			rb_crew_fail(w, ret);
		while (rb_fault_at(RB_FAULT_WORKER_DEAF, k->t, seen)) /* test-only: never leaves the step */
			sleep(1);
		atomic_store(&k->left, seen);
		if (atomic_fetch_sub(&w->busy, 1) == 1)
			rb_seqwait_bump(&w->idle);
	}
}

/* Until every worker is out of the step, ms at most; false when one is not. */
static bool wait_idle(struct rb_crew *w, uint64_t ms)
{
	uint64_t end = rb_now_ns() + ms * RB_NS_PER_MS;

	while (atomic_load(&w->busy) && rb_now_ns() < end)
		RB_SEQWAIT_ONCE(&w->idle, atomic_load(&w->busy) == 0, 100);
	return atomic_load(&w->busy) == 0;
}

/*
 * The CPUs: worker t on the (t+1)-th CPU of the process's set, the first left to the
 * calling thread, when there are enough; said when threads must share CPUs.
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

static void pin(struct worker *k, unsigned nth)
{
	cpu_set_t one;
	int cpu = rb_pin_nth_cpu(nth);

	if (cpu >= 0) {
		CPU_ZERO(&one);
		CPU_SET(cpu, &one);
		if (pthread_setaffinity_np(k->thread, sizeof(one), &one))
			cpu = -1;
	}
	k->cpu = cpu;
}

struct rb_crew *rb_crew_start(unsigned n, rb_crew_work_fn work, void *arg, const char *what)
{
	(void)rb_fault_kind(); /* RB_TEST_FAULT parsed here, before workers read it at once */
	struct rb_crew *w = calloc(1, sizeof(*w));
	unsigned skip;
	sigset_t old;
	int ret = 0;

	if (w)
		w->wk = calloc(n, sizeof(*w->wk));
	if (!w || !w->wk) {
		free(w);
		rb_err("out of memory for %u %ss", n, what);
		return NULL;
	}
	*w = (struct rb_crew){.n = n, .what = what, .work = work, .arg = arg, .wk = w->wk};
	skip = first_cpu(n);
	/* Signals go to the calling thread: its waits are the ones that must wake up. */
	rb_sig_hold(&old);
	for (unsigned t = 0; t < n && !ret; t++) {
		w->wk[t] = (struct worker){.w = w, .t = t, .cpu = -1};
		ret = pthread_create(&w->wk[t].thread, NULL, worker_main, &w->wk[t]);
		if (ret)
			rb_err("cannot start %s %u of %u: %s", what, t, n, strerror(ret));
		else
			w->started++;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret) {
		rb_crew_end(w);
		return NULL;
	}
	for (unsigned t = 0; t < n; t++)
		pin(&w->wk[t], skip + t);
	rb_window_threads_ready(&w->ready, w->started, 2000);
	return w;
}

void rb_crew_watch(struct rb_crew *w)
{
	w->watched = true;
}

void rb_crew_beat(struct rb_crew *w, unsigned t, uint64_t now)
{
	atomic_store_explicit(&w->wk[t].beat, now, memory_order_relaxed);
}

/*
 * Watched: the first worker still in the step that has not beaten for twice timeout_s,
 * or -1. Twice: a worker's own waits end at timeout_s with their own cause; this is
 * for one that never returns.
 */
static int silent_worker(struct rb_crew *w, uint32_t gen, uint64_t now, unsigned timeout_s, uint64_t away)
{
	for (unsigned t = 0; w->watched && t < w->n; t++) {
		/* A beat may be newer than now, read before it. */
		uint64_t beat = atomic_load_explicit(&w->wk[t].beat, memory_order_relaxed);

		if (atomic_load(&w->wk[t].left) != gen && now > beat &&
		    now - beat > 2ull * timeout_s * RB_NS_PER_S + away)
			return (int)t;
	}
	return -1;
}

int rb_crew_step(struct rb_crew *w, rb_crew_look_fn look, void *arg, unsigned look_ms, unsigned timeout_s)
{
	uint64_t t0 = rb_now_ns(), away = 0;
	uint32_t gen = atomic_load(&w->gen) + 1;
	/* This thread's turns: it waits look_ms between them, so wall time alone tells an absence. */
	struct rb_turn turn = {t0, RB_TURN_WALL, 0};
	int ret, silent;

	atomic_store(&w->first_err, 0);
	atomic_store(&w->stop, 0);
	atomic_store(&w->busy, w->n);
	for (unsigned t = 0; t < w->n; t++)
		atomic_store(&w->wk[t].beat, t0);
	atomic_store(&w->gen, gen);
	rb_seqwait_bump(&w->go);
	while (atomic_load(&w->busy) && !atomic_load(&w->first_err)) {
		RB_SEQWAIT_ONCE(&w->idle, atomic_load(&w->busy) == 0 || atomic_load(&w->first_err), look_ms);
		/*
		 * The time this side did not run (a starved or frozen host) is no worker's silence:
		 * the bound moves on by it, at most max(--timeout, 30 s) a step (rb_step_credit).
		 */
		rb_step_credit(&away, rb_cpuwait_gap(&turn, rb_now_ns(), (uint64_t)look_ms * RB_NS_PER_MS),
		               timeout_s);
		if (look && (ret = look(arg)) != 0)
			rb_crew_fail(w, ret);
		if (!atomic_load(&w->first_err) &&
		    (silent = silent_worker(w, gen, rb_now_ns(), timeout_s, away)) >= 0) {
			uint64_t beat = atomic_load_explicit(&w->wk[silent].beat, memory_order_relaxed),
			         now = rb_now_ns();

			rb_err("%s %d of %u is still in the step and has not made progress for %.1f s (twice "
			       "--timeout, and %.1f s in which this side did not run)",
			       w->what, silent, w->n, now > beat ? (double)(now - beat) / 1e9 : 0.0,
			       (double)away / 1e9);
			rb_crew_fail(w, -ETIMEDOUT);
		}
	}
	/* Every wait bounded: a worker that does not leave within the bound is abandoned. */
	if (!wait_idle(w, (uint64_t)timeout_s * 1000)) {
		rb_err("a %s did not stop within %u s (--timeout); leaving it", w->what, timeout_s);
		w->abandoned = true;
		rb_crew_fail(w, -ETIMEDOUT);
	}
	return atomic_load(&w->first_err);
}

unsigned rb_crew_size(const struct rb_crew *w)
{
	return w->n;
}

int rb_crew_cpu(const struct rb_crew *w, unsigned t)
{
	return t < w->n ? w->wk[t].cpu : -1;
}

bool rb_crew_abandoned(const struct rb_crew *w)
{
	return w && w->abandoned;
}

void rb_crew_end(struct rb_crew *w)
{
	if (!w || w->abandoned)
		return; /* never freed under a live thread: the process is ending */
	atomic_store(&w->quit, true);
	rb_seqwait_bump(&w->go);
	for (unsigned t = 0; t < w->started; t++)
		pthread_join(w->wk[t].thread, NULL);
	free(w->wk);
	free(w);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A crew: N worker threads that run the steps of a measurement together (--threads).
 * Worker t is pinned to a CPU of this process's set (the device's node's), the first
 * left to the calling thread when there are more CPUs than workers, and between steps
 * it sleeps on a sequence word. In a step every worker runs work(arg, t) once, on what
 * it owns alone; the calling thread sleeps and wakes about every look_ms to run look()
 * (signals, the peer, clocks). The step's first failure, a worker's or a look's, is
 * kept, and every worker is told to stop (rb_crew_stop). A worker that does not leave
 * within the step's bound is abandoned: the crew is then never freed under it.
 */
#ifndef RB_CREW_H
#define RB_CREW_H

#include <stdbool.h>
#include <stdint.h>

struct rb_crew;

/* One step of worker t: 0, or -errno (the step fails; the crew stops the others). */
typedef int (*rb_crew_work_fn)(void *arg, unsigned t);
/* The calling thread's look during a step: 0 to go on, nonzero fails the step. */
typedef int (*rb_crew_look_fn)(void *arg);

/*
 * n workers started (signals held: they stay with the calling thread), pinned and
 * ready to run a step before this returns; what names them in messages ("posting
 * thread"). NULL on failure (said).
 */
struct rb_crew *rb_crew_start(unsigned n, rb_crew_work_fn work, void *arg, const char *what);

/*
 * A step: every worker runs work once. look(arg) runs about every look_ms until all
 * are done or one failed; in a watched crew, a worker still in the step that has not
 * beaten for twice timeout_s fails it (-ETIMEDOUT). After a failure the wait for the rest
 * is bounded by timeout_s (past it, the crew is abandoned). The step's first
 * failure, or 0.
 */
int rb_crew_step(struct rb_crew *w, rb_crew_look_fn look, void *arg, unsigned look_ms, unsigned timeout_s);

/*
 * The workers promise to call rb_crew_beat whenever they make progress, and to end any
 * wait of theirs within timeout_s (progress or a failure), so that
 * one silent for twice that is known stuck: without it, only look() can end a step
 * whose worker never returns.
 */
void rb_crew_watch(struct rb_crew *w);
/* Worker t is alive at now (rb_now_ns); cheap: one relaxed store. */
void rb_crew_beat(struct rb_crew *w, unsigned t, uint64_t now);

/* The step fails with err (the first failure wins); the workers see rb_crew_stop() == 2. */
void rb_crew_fail(struct rb_crew *w, int err);
/* 1: the caller asked the workers to wind down (rb_crew_set_stop, not over a failure); 2: the step failed. */
int rb_crew_stop(const struct rb_crew *w);
void rb_crew_set_stop(struct rb_crew *w, int v);

unsigned rb_crew_size(const struct rb_crew *w);
/* The CPU worker t is pinned to, or -1. */
int rb_crew_cpu(const struct rb_crew *w, unsigned t);
bool rb_crew_abandoned(const struct rb_crew *w);

/* The workers stopped and joined, the crew freed; nothing when abandoned (the process is ending). */
void rb_crew_end(struct rb_crew *w);

#endif

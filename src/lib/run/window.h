/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What happened inside a step's timed window besides the transfer: the process's minor
 * and major page faults (getrusage, every thread) and, when a counting allocator is
 * loaded (the test suite's LD_PRELOAD shim, which exports rb_alloc_count), its
 * allocations. A tool's engine marks the window's edges where it reads its first and
 * last timestamps (rb_window_start just before the first, rb_window_stop just after
 * the last); the driver frames each step (rb_window_begin, rb_window_end) and, with -v,
 * says what the window saw, or what the whole step saw when the engine marked nothing.
 * A tool prepares buffers, threads and pages before the window (rb_tool.prepare).
 */
#ifndef RB_WINDOW_H
#define RB_WINDOW_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

struct rb_step_window {
	uint64_t minflt, majflt, allocs;
	bool counted; /* allocations were counted (the shim is loaded) */
	bool marked;  /* the engine marked its timed window; else these are the whole step's */
};

/*
 * The driver, before the sweep: every executable mapping's page table entries filled in
 * (MADV_POPULATE_READ), so code that first runs inside a window does not fault there.
 */
void rb_window_ready(void);
/*
 * A thread of the data path, when it starts: its stack's first 64 KiB in place, then
 * *ready counted up; whoever started it waits (rb_window_threads_ready) until all have,
 * so no new stack page faults inside a window.
 */
void rb_window_thread_ready(atomic_uint *ready);
/* Until *ready reaches n, at most ms milliseconds (past that the window may see faults). */
void rb_window_threads_ready(atomic_uint *ready, unsigned n, unsigned ms);
/* The driver, before the step: forgets the last step's marks. */
void rb_window_begin(void);
/* The engine: its first timestamp follows. */
void rb_window_start(void);
/* The engine: its last timestamp was read. */
void rb_window_stop(void);
/* The driver, after the step: what the window (or the whole step) saw. */
void rb_window_end(struct rb_step_window *w);

#endif

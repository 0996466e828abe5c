/* SPDX-License-Identifier: BSD-2-Clause */
/* The step's timed window (window.h): page faults and, with the test suite's shim, allocations. */
#include "window.h"

#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ  22 /* Linux 5.14 */
#define MADV_POPULATE_WRITE 23
#endif

/* One step at a time per process: the driver's frame and the engine's marks. */
static struct rb_step_window step0, start, stop;
static bool started, stopped;

static uint64_t (*alloc_count(void))(void)
{
	static bool looked;
	static uint64_t (*fn)(void);

	if (!looked) {
		/* A data pointer's bits into a function pointer: what dlsym(3) documents for this. */
		void *p = dlsym(RTLD_DEFAULT, "rb_alloc_count");

		*(void **)&fn = p;
		looked = true;
	}
	return fn;
}

static void now(struct rb_step_window *w)
{
	struct rusage u;
	uint64_t (*count)(void) = alloc_count();

	getrusage(RUSAGE_SELF, &u);
	w->minflt = (uint64_t)u.ru_minflt;
	w->majflt = (uint64_t)u.ru_majflt;
	w->counted = count != NULL;
	w->allocs = count ? count() : 0;
}

/*
 * The stack this deep is in place before any window (a step's frames are shallower): the
 * control thread's 256 KiB, a data-path thread's 64 KiB (its frame no deeper than that,
 * so a small thread stack is never overrun). Each page is written from the array's top.
 */
static void __attribute__((noinline)) control_stack_ready(void)
{
	volatile char deep[256u << 10];

	for (size_t i = 0; i < sizeof(deep); i += 4096)
		deep[sizeof(deep) - 1 - i] = 0;
}

static void __attribute__((noinline)) thread_stack_ready(void)
{
	volatile char deep[64u << 10];

	for (size_t i = 0; i < sizeof(deep); i += 4096)
		deep[sizeof(deep) - 1 - i] = 0;
}

void rb_window_thread_ready(atomic_uint *ready)
{
	thread_stack_ready();
	atomic_fetch_add(ready, 1);
}

void rb_window_threads_ready(atomic_uint *ready, unsigned n, unsigned ms)
{
	struct timespec nap = {0, 50000};

	for (unsigned waited = 0; atomic_load(ready) < n && waited < ms * 20; waited++)
		nanosleep(&nap, NULL);
}

void rb_window_ready(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512], path[256];
	unsigned long lo, hi;
	char perms[8];

	control_stack_ready();
	if (!f)
		return;
	/*
	 * Code that first runs inside a window, and the small allocations' heap and the
	 * programs' data first written there, fault only if their page table entries are
	 * missing: fill them in now.
	 */
	while (fgets(line, sizeof(line), f)) {
		path[0] = '\0';
		if (sscanf(line, "%lx-%lx %7s %*s %*s %*s %255s", &lo, &hi, perms, path) < 3)
			continue;
		if (perms[0] == 'r' && perms[2] == 'x')
			madvise((void *)lo, hi - lo,
			        MADV_POPULATE_READ); /* older kernels: EINVAL, faults stay */
		else if (perms[1] == 'w' && perms[3] == 'p' && (!strcmp(path, "[heap]") || path[0] == '/'))
			madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE); /* the heap; programs' data */
	}
	fclose(f);
}

void rb_window_begin(void)
{
	started = stopped = false;
	now(&step0);
}

void rb_window_start(void)
{
	now(&start);
	started = true;
}

void rb_window_stop(void)
{
	now(&stop);
	stopped = true;
}

void rb_window_end(struct rb_step_window *w)
{
	struct rb_step_window a = step0, b;

	now(&b);
	if (started && stopped) {
		a = start;
		b = stop;
	}
	w->minflt = b.minflt - a.minflt;
	w->majflt = b.majflt - a.majflt;
	w->allocs = b.allocs - a.allocs;
	w->counted = b.counted;
	w->marked = started && stopped;
}

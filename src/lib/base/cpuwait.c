/* SPDX-License-Identifier: BSD-2-Clause */
/* The run-queue delay of this process's threads since a mark (cpuwait.h). */
#include "cpuwait.h"

#include "timeutil.h"

#include <dirent.h>
#include <inttypes.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define MAX_THREADS 256 /* more are counted from their first sight */
#define REREAD_NS   (50 * RB_NS_PER_MS)

struct seen {
	long tid;
	uint64_t wait_ns;
};

static struct seen base[MAX_THREADS];
static unsigned nbase;
static uint64_t last_read_ns, last_ns;
static _Atomic uint64_t away_ns; /* the longest absence a loop saw since the mark (any thread's) */
static uint64_t psi_base_ns;
static bool psi_have;

bool rb_psi_parse(const char *line, uint64_t *total_ns)
{
	double a10, a60, a300;
	uint64_t total_us;
	char end;

	/* "some avg10=0.00 avg60=0.00 avg300=0.00 total=12345\n" */
	if (sscanf(line, "some avg10=%lf avg60=%lf avg300=%lf total=%" SCNu64 "%c", &a10, &a60, &a300,
	           &total_us, &end) != 5 ||
	    end != '\n' || total_us > UINT64_MAX / 1000)
		return false;
	*total_ns = total_us * 1000;
	return true;
}

/* The host's "some" CPU pressure total now; false where the kernel keeps none. */
static bool psi_now(uint64_t *total_ns)
{
	char line[160];
	FILE *f = fopen("/proc/pressure/cpu", "r");
	bool ok;

	if (!f)
		return false;
	ok = fgets(line, sizeof(line), f) && rb_psi_parse(line, total_ns);
	fclose(f);
	return ok;
}

uint64_t rb_cpupressure_ns(void)
{
	uint64_t now;

	if (!psi_have || !psi_now(&now))
		return 0;
	return now >= psi_base_ns ? now - psi_base_ns : 0;
}

bool rb_cpuwait_parse(const char *line, uint64_t *wait_ns)
{
	uint64_t on_cpu, waited, slices;
	char end;

	/* "ON_CPU_NS WAIT_NS TIMESLICES\n" */
	if (sscanf(line, "%" SCNu64 " %" SCNu64 " %" SCNu64 "%c", &on_cpu, &waited, &slices, &end) != 4 ||
	    end != '\n')
		return false;
	*wait_ns = waited;
	return true;
}

/* Calls fn for every thread of this process with its wait; false when none could be read. */
static bool each_thread(void (*fn)(long tid, uint64_t wait_ns, void *arg), void *arg)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	bool any = false;

	if (!d)
		return false;
	while ((e = readdir(d))) {
		char path[64], line[128];
		long tid = strtol(e->d_name, NULL, 10);
		uint64_t w;
		FILE *f;

		if (tid <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%ld/schedstat", tid);
		f = fopen(path, "r");
		if (!f)
			continue; /* the thread ended, or no such count in this kernel */
		if (fgets(line, sizeof(line), f) && rb_cpuwait_parse(line, &w)) {
			fn(tid, w, arg);
			any = true;
		}
		fclose(f);
	}
	closedir(d);
	return any;
}

static void keep(long tid, uint64_t wait_ns, void *arg)
{
	(void)arg;
	if (nbase < MAX_THREADS)
		base[nbase++] = (struct seen){tid, wait_ns};
}

void rb_cpuwait_mark(void)
{
	nbase = 0;
	last_read_ns = 0;
	last_ns = 0;
	atomic_store(&away_ns, 0);
	each_thread(keep, NULL);
	psi_have = psi_now(&psi_base_ns);
}

static void longest(long tid, uint64_t wait_ns, void *arg)
{
	uint64_t *most = arg, since = wait_ns;

	for (unsigned i = 0; i < nbase; i++)
		if (base[i].tid == tid) {
			since = wait_ns >= base[i].wait_ns ? wait_ns - base[i].wait_ns : 0;
			break;
		}
	if (since > *most)
		*most = since;
}

uint64_t rb_turn_gap(uint64_t wall_ns, uint64_t cpu_ns, uint64_t expect_ns)
{
	uint64_t off = wall_ns > cpu_ns ? wall_ns - cpu_ns : 0;

	return off > expect_ns + RB_AWAY_NS ? off - expect_ns : 0;
}

/* This thread's CPU time. */
static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * RB_NS_PER_S + (uint64_t)ts.tv_nsec;
}

void rb_turn_start(struct rb_turn *t, uint64_t now)
{
	t->wall_ns = t->cpu_at_ns = now;
	t->cpu_ns = thread_cpu_ns();
}

uint64_t rb_cpuwait_gap(struct rb_turn *t, uint64_t now, uint64_t expect_ns)
{
	bool wall = t->cpu_ns == RB_TURN_WALL;
	uint64_t gap = 0;

	if (t->wall_ns && now > t->wall_ns && now - t->wall_ns > expect_ns + RB_AWAY_NS) {
		/*
		 * A late turn. Its thread's CPU time since it was last read decides; the turns
		 * between that reading and the last one came on time, so their span is expected too.
		 */
		uint64_t cpu = wall ? 0 : thread_cpu_ns(), from = wall ? t->wall_ns : t->cpu_at_ns;
		uint64_t most = atomic_load(&away_ns);

		gap = rb_turn_gap(now - from, !wall && cpu > t->cpu_ns ? cpu - t->cpu_ns : 0,
		                  expect_ns + (t->wall_ns - from));
		while (gap > most && !atomic_compare_exchange_weak(&away_ns, &most, gap))
			;
		if (!wall) {
			t->cpu_ns = cpu;
			t->cpu_at_ns = now;
		}
	} else if (!wall && now - t->cpu_at_ns >= RB_TURN_CPU_NS) {
		t->cpu_ns = thread_cpu_ns();
		t->cpu_at_ns = now;
	}
	t->wall_ns = now;
	return gap;
}

uint64_t rb_cpuwait_silence(uint64_t *since, struct rb_turn *t, uint64_t now, uint64_t expect_ns)
{
	uint64_t gap = rb_cpuwait_gap(t, now, expect_ns);

	*since = *since + gap < now ? *since + gap : now;
	return now > *since ? now - *since : 0;
}

uint64_t rb_cpuwait_ns(void)
{
	uint64_t now = rb_now_ns(), most = 0, away;

	if (!last_read_ns || now - last_read_ns >= REREAD_NS) {
		if (each_thread(longest, &most))
			last_ns = most;
		last_read_ns = now;
	}
	away = atomic_load(&away_ns);
	return last_ns > away ? last_ns : away;
}

/* SPDX-License-Identifier: BSD-2-Clause */
#include "pin.h"

#include "base/base.h"
#include "rb_config.h"

#include <dirent.h>
#include <stdbool.h>
#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if RB_HAVE_NUMA
#include <numa.h>
#endif

/* A CPU set as a list of ranges, cut short (with "...") when it does not fit. */
static void cpus_fmt(const cpu_set_t *set, char *out, size_t cap)
{
	size_t n = 0;

	out[0] = '\0';
	for (int c = 0; c < CPU_SETSIZE; c++) {
		int e = c;
		if (!CPU_ISSET(c, set))
			continue;
		while (e + 1 < CPU_SETSIZE && CPU_ISSET(e + 1, set))
			e++;
		int w = e > c ? snprintf(out + n, cap - n, "%s%d-%d", n ? "," : "", c, e)
		              : snprintf(out + n, cap - n, "%s%d", n ? "," : "", c);
		if (w < 0 || (size_t)w >= cap - n) {
			/* Whole entries only: back off until ",..." fits after the last one. */
			while (n > 0 && n + 5 > cap)
				while (n > 0 && out[--n] != ',')
					;
			snprintf(out + n, cap - n, "%s...", n ? "," : "");
			return;
		}
		n += (size_t)w;
		c = e;
	}
}

/* Applies set to every thread of the process (affinity is per thread). */
static int set_all_threads(const cpu_set_t *set)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int ret = 0;

	if (!d)
		return sched_setaffinity(0, sizeof(*set), set) ? -errno : 0;
	while ((e = readdir(d))) {
		pid_t tid = (pid_t)atoi(e->d_name);
		/* ESRCH: the thread ended since the directory was read. */
		if (tid > 0 && sched_setaffinity(tid, sizeof(*set), set) && errno != ESRCH && !ret)
			ret = -errno;
	}
	closedir(d);
	return ret;
}

void rb_pin_to_node(struct rb_pin *p, int node)
{
	/* The affinity the process started with: a server that serves run after run pins anew. */
	static cpu_set_t start;
	static bool have_start;
	cpu_set_t now, want;
	long online = sysconf(_SC_NPROCESSORS_ONLN);

	memset(p, 0, sizeof(*p));
	p->node = node;
	if (!have_start) {
		CPU_ZERO(&start);
		if (sched_getaffinity(0, sizeof(start), &start)) {
			p->state = RB_PIN_FAILED;
			rb_warn("cannot read this process's CPU affinity: %s; not pinned", strerror(errno));
			return;
		}
		have_start = true;
	}
	now = start;
	cpus_fmt(&now, p->cpus, sizeof(p->cpus));
	if (online > 0 && CPU_COUNT(&now) < online) {
		p->state = RB_PIN_CALLER;
		return;
	}
	/* Unpinned again (a previous run of this process may have pinned elsewhere). */
	set_all_threads(&now);
	p->state = RB_PIN_UNKNOWN;
#if RB_HAVE_NUMA
	if (node < 0 || numa_available() < 0)
		return;
	struct bitmask *m = numa_allocate_cpumask();
	CPU_ZERO(&want);
	if (m && !numa_node_to_cpus(node, m))
		for (unsigned c = 0; c < m->size && c < CPU_SETSIZE; c++)
			if (numa_bitmask_isbitset(m, c) && CPU_ISSET(c, &now))
				CPU_SET(c, &want);
	if (m)
		numa_free_cpumask(m);
	p->state = RB_PIN_FAILED;
	if (!CPU_COUNT(&want)) {
		rb_warn("NUMA node %d has no CPUs this process may use; not pinned", node);
		return;
	}
	int ret = set_all_threads(&want);
	if (ret) {
		set_all_threads(&now); /* no thread left half pinned */
		rb_warn("cannot pin to NUMA node %d's CPUs: %s; not pinned", node, strerror(-ret));
		return;
	}
	p->state = RB_PIN_NODE;
	cpus_fmt(&want, p->cpus, sizeof(p->cpus));
#else
	(void)want;
#endif
}

int rb_pin_nth_cpu(unsigned nth)
{
	cpu_set_t set;
	int n, k = 0;

	if (sched_getaffinity(0, sizeof(set), &set))
		return -errno;
	n = CPU_COUNT(&set);
	if (n <= 0)
		return -EINVAL;
	nth %= (unsigned)n;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set) && (unsigned)k++ == nth)
			return c;
	return -EINVAL;
}

void rb_pin_describe(const struct rb_pin *p, FILE *f)
{
	switch (p->state) {
	case RB_PIN_NODE: fprintf(f, " CPU affinity   : CPUs %s (NUMA node %d)\n", p->cpus, p->node); break;
	case RB_PIN_CALLER:
		fprintf(f,
		        " CPU affinity   : CPUs %s, kept (narrower than the machine: taskset, numactl or a "
		        "cpuset)\n",
		        p->cpus);
		break;
	case RB_PIN_UNKNOWN:
		fprintf(f, " CPU affinity   : CPUs %s (not pinned: no NUMA node known)\n", p->cpus);
		break;
	case RB_PIN_FAILED:
		fprintf(f, " CPU affinity   : CPUs %s (not pinned: see the warning)\n", p->cpus);
		break;
	}
}

/* SPDX-License-Identifier: BSD-2-Clause */
#include "serve_limits.h"

#include "base/base.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void rb_limits_default(struct rb_limits *l)
{
	l->max_mem = 0;
	l->max_time_s = RB_LIMITS_DEFAULT_TIME_S;
	l->allow_infinite = false;
}

struct rb_opt_table rb_limits_opt_table(struct rb_limits *l)
{
	static const struct rb_opt rows[] = {
	    {.name = "max-run-mem",
	     .type = RB_OPT_U64,
	     .off = offsetof(struct rb_limits, max_mem),
	     .arg = "BYTES",
	     .help = "server: refuse a client's run whose buffers need more than BYTES (K/M/G; default a "
	             "quarter of this host's memory)",
	     .min = 1 << 20,
	     .max = UINT64_MAX,
	     .flags = RB_OPT_LOCAL},
	    {.name = "max-run-time",
	     .type = RB_OPT_U32,
	     .off = offsetof(struct rb_limits, max_time_s),
	     .arg = "SEC",
	     .help = "server: refuse a client's run planned longer than SEC s (-D x sizes) and end any run "
	             "at SEC s (default 3600)",
	     .min = 1,
	     .max = 7 * 86400,
	     .flags = RB_OPT_LOCAL},
	    {.name = "allow-infinite",
	     .type = RB_OPT_FLAG,
	     .off = offsetof(struct rb_limits, allow_infinite),
	     .help = "server: let a client ask for --run-infinitely (then --max-run-time does not end it)",
	     .flags = RB_OPT_LOCAL},
	    {0},
	};
	return (struct rb_opt_table){"Server limits", rows, l, false, NULL};
}

uint64_t rb_limits_mem(const struct rb_limits *l)
{
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);

	if (l->max_mem)
		return l->max_mem;
	if (pages <= 0 || page <= 0)
		return 1ull << 30;
	return (uint64_t)pages * (uint64_t)page / 4;
}

/* A byte count for a person: "8.0 GiB", "512 MiB", "4096 B". */
static void human(uint64_t b, char *out, size_t cap)
{
	if (b >= 1ull << 30)
		snprintf(out, cap, "%.1f GiB", (double)b / (double)(1ull << 30));
	else if (b >= 1ull << 20)
		snprintf(out, cap, "%.1f MiB", (double)b / (double)(1ull << 20));
	else
		snprintf(out, cap, "%llu B", (unsigned long long)b);
}

/* A parameter of the run as a number; 0 when absent or not one. */
static double param(const struct rb_hello *run, const char *key)
{
	const char *v = rb_hello_get(run, key);
	double d = 0;

	return v && !rb_parse_double(v, &d) ? d : 0;
}

int rb_limits_check(const struct rb_limits *l, const struct rb_hello *run, uint64_t mem, bool forever_ok,
                    char *why, size_t cap)
{
	uint64_t allow = rb_limits_mem(l);
	double duration = param(run, "duration"), sizes = param(run, "size_count");
	/* Each size is measured --repeat times, twice more with --load (idle, then loaded). */
	double times =
	    (param(run, "repeat") > 1 ? param(run, "repeat") : 1) * (rb_hello_get(run, "load") ? 2 : 1);
	double planned;
	char a[32], b[32], how[48] = "";

	if (param(run, "run_infinitely") != 0 && !l->allow_infinite && !forever_ok) {
		snprintf(why, cap,
		         "the run asks for --run-infinitely; this server does not allow it "
		         "(--allow-infinite, or --run-infinitely on the server too)");
		return -E2BIG;
	}
	if (mem > allow) {
		human(mem, a, sizeof(a));
		human(allow, b, sizeof(b));
		snprintf(why, cap,
		         "the run needs %s of buffers; this server allows %s per run (--max-run-mem)", a, b);
		return -E2BIG;
	}
	if (sizes < 1)
		sizes = 1;
	planned = duration * sizes * times;
	if (times > 1)
		snprintf(how, sizeof(how), " x %g measurements each", times);
	if (param(run, "run_infinitely") == 0 && planned > l->max_time_s) {
		snprintf(why, cap,
		         "the run would last %g s (-D %g x %g size(s)%s); this server allows %u s per run "
		         "(--max-run-time)",
		         planned, duration, sizes, how, l->max_time_s);
		return -E2BIG;
	}
	return 0;
}

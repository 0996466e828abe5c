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
	    {"max-run-mem", 0, RB_OPT_U64, offsetof(struct rb_limits, max_mem), "BYTES",
	     "server: refuse a client's run whose buffers need more than BYTES (K/M/G; default a quarter "
	     "of this host's memory)",
	     1 << 20, UINT64_MAX, NULL, NULL, RB_OPT_LOCAL},
	    {"max-run-time", 0, RB_OPT_U32, offsetof(struct rb_limits, max_time_s), "SEC",
	     "server: refuse a client's run planned longer than SEC s (-D x sizes) and end any run at SEC s "
	     "(default 3600)",
	     1, 7 * 86400, NULL, NULL, RB_OPT_LOCAL},
	    {"allow-infinite", 0, RB_OPT_FLAG, offsetof(struct rb_limits, allow_infinite), NULL,
	     "server: let a client ask for --run-infinitely (then --max-run-time does not end it)", 0, 0,
	     NULL, NULL, RB_OPT_LOCAL},
	    {0},
	};
	return (struct rb_opt_table){"Server limits", rows, l, false};
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

int rb_limits_check(const struct rb_limits *l, const struct rb_hello *run, uint64_t mem, char *why,
                    size_t cap)
{
	uint64_t allow = rb_limits_mem(l);
	double duration = param(run, "duration"), sizes = param(run, "size_count");
	char a[32], b[32];

	if (param(run, "run_infinitely") != 0 && !l->allow_infinite) {
		snprintf(why, cap,
		         "the run asks for --run-infinitely; this server does not allow it "
		         "(--allow-infinite)");
		return -E2BIG;
	}
	if (mem > allow) {
		human(mem, a, sizeof(a));
		human(allow, b, sizeof(b));
		snprintf(why, cap,
		         "the run needs %s of buffers; this server allows %s per run (--max-run-mem)", a, b);
		return -E2BIG;
	}
	if (param(run, "run_infinitely") == 0 && duration * (sizes > 1 ? sizes : 1) > l->max_time_s) {
		snprintf(why, cap,
		         "the run would last %g s (-D %g x %g size(s)); this server allows %u s per run "
		         "(--max-run-time)",
		         duration * (sizes > 1 ? sizes : 1), duration, sizes > 1 ? sizes : 1, l->max_time_s);
		return -E2BIG;
	}
	return 0;
}

/* SPDX-License-Identifier: BSD-2-Clause */
#include "pace.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

double rb_pace_msgs_per_s(const struct rb_pace_opts *o, uint64_t size)
{
	if (!(o->rate > 0) || !size)
		return 0;
	switch (o->unit) {
	case RB_PACE_PPS: return o->rate;
	case RB_PACE_MIBPS: return o->rate * 1048576.0 / (double)size;
	default: return o->rate * 1e9 / 8 / (double)size;
	}
}

void rb_pace_start(struct rb_pace *p, const struct rb_pace_opts *o, uint64_t size, uint64_t t0)
{
	p->per_ns = rb_pace_msgs_per_s(o, size) / 1e9;
	p->burst = o->burst ? o->burst : 1;
	p->tokens = (double)p->burst;
	p->last = t0;
}

unsigned rb_pace_allow(struct rb_pace *p, uint64_t now, unsigned want)
{
	if (!(p->per_ns > 0))
		return want;
	if (now > p->last) {
		p->tokens += (double)(now - p->last) * p->per_ns;
		if (p->tokens > (double)p->burst)
			p->tokens = (double)p->burst;
		p->last = now;
	}
	return p->tokens >= want ? want : (unsigned)p->tokens;
}

static int parse_unit(const char *arg, void *dst)
{
	static const char *const names[] = {"g", "M", "p"};

	for (int i = 0; i < 3; i++)
		if (!strcmp(arg, names[i])) {
			*(int *)dst = i;
			return 0;
		}
	return -EINVAL;
}

static int parse_type(const char *arg, void *dst)
{
	*(int *)dst = 0;
	return strcmp(arg, "SW") ? -EINVAL : 0;
}

struct rb_opt_table rb_pace_opt_table(struct rb_pace_opts *o)
{
	static const struct rb_opt rows[] = {
	    {.name = "rate_limit",
	     .type = RB_OPT_DOUBLE,
	     .off = offsetof(struct rb_pace_opts, rate),
	     .arg = "RATE",
	     .help = "perftest's: send at most RATE, in --rate_units (default Gb/s), paced in software: a "
	             "bucket of --burst_size messages refilled at the rate",
	     .max = 1e9},
	    {.name = "rate_units",
	     .type = RB_OPT_FN,
	     .off = offsetof(struct rb_pace_opts, unit),
	     .arg = "UNIT",
	     .help = "perftest's: --rate_limit's unit: g (Gb/s, the default), M (MiB/s) or p (messages a "
	             "second)",
	     .fn = parse_unit,
	     .allowed = "g, M or p"},
	    {.name = "burst_size",
	     .type = RB_OPT_U32,
	     .off = offsetof(struct rb_pace_opts, burst),
	     .arg = "N",
	     .help = "perftest's: with --rate_limit, messages that may go back to back (default 1)",
	     .min = 1,
	     .max = 1u << 20},
	    {.name = "rate_limit_type",
	     .type = RB_OPT_FN,
	     .off = offsetof(struct rb_pace_opts, type),
	     .arg = "TYPE",
	     .help = "perftest's: SW, the only pacing here (perftest's HW and PP are the NIC's)",
	     .fn = parse_type,
	     .allowed = "SW (perftest's HW and PP rate limits are the NIC's, not measured here)"},
	    {0},
	};
	return (struct rb_opt_table){"Pacing", rows, o, true, NULL};
}

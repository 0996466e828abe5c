/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A software rate limit on a sender's messages (perftest's --rate_limit with
 * --rate_limit_type SW): a token bucket of burst messages, full at the start and
 * refilled at the rate, never above burst (a sender that fell behind does not catch up
 * in a rush). A sender asks how many messages it may post now and says what it posted.
 */
#ifndef RB_PACE_H
#define RB_PACE_H

#include "base/base.h"

#include <stdbool.h>
#include <stdint.h>

/* perftest's --rate_units: MiB/s (M), Gb/s (g, the default) or messages a second (p). */
enum rb_pace_unit { RB_PACE_GBPS, RB_PACE_MIBPS, RB_PACE_PPS };

/* --rate_limit, --rate_units, --burst_size as given (rate 0: no limit). */
struct rb_pace_opts {
	double rate;
	int unit; /* enum rb_pace_unit */
	uint32_t burst;
	int type; /* --rate_limit_type: SW, the only one (0) */
};

struct rb_pace {
	double per_ns; /* messages a nanosecond; 0: no limit */
	double tokens; /* messages the bucket holds, at most burst */
	uint64_t burst, last;
};

/* The messages a second opts allow at size bytes a message (0: no limit). */
double rb_pace_msgs_per_s(const struct rb_pace_opts *o, uint64_t size);
/* Starts the bucket at t0 (ns), full: burst messages may go at once (at least 1). */
void rb_pace_start(struct rb_pace *p, const struct rb_pace_opts *o, uint64_t size, uint64_t t0);
/* How many of want messages may be posted at now (the bucket refilled to now); the rest wait. */
unsigned rb_pace_allow(struct rb_pace *p, uint64_t now, unsigned want);
static inline void rb_pace_posted(struct rb_pace *p, unsigned n)
{
	p->tokens = p->tokens > n ? p->tokens - n : 0;
}
/* The option table (perftest's names); --rate_limit_type takes SW only. */
struct rb_opt_table rb_pace_opt_table(struct rb_pace_opts *o);

#endif

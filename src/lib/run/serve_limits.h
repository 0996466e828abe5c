/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A server's own limits, held whatever its clients ask (an iperf3-style server takes
 * its test parameters from the client): memory per run, time per run, and whether a
 * run may go on until stopped. A request beyond them is refused before anything is
 * allocated, naming both numbers; the client exits 2. The time limit also stops a
 * run that goes on past it, by this side's own clock.
 */
#ifndef RB_SERVE_LIMITS_H
#define RB_SERVE_LIMITS_H

#include "oob/oob.h"
#include "base/base.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RB_LIMITS_DEFAULT_TIME_S 3600

struct rb_limits {
	uint64_t max_mem;    /* bytes per run; 0: a quarter of this host's memory */
	uint32_t max_time_s; /* seconds per run */
	bool allow_infinite; /* a client may ask for --run-infinitely */
};

void rb_limits_default(struct rb_limits *l);
struct rb_opt_table rb_limits_opt_table(struct rb_limits *l);

/* max_mem as it applies on this host (the default resolved from /proc/meminfo). */
uint64_t rb_limits_mem(const struct rb_limits *l);

/*
 * The run a candidate asks for (its parameters adopted: run is this side's HELLO
 * built from them; mem the bytes its buffers take) against the limits: 0, or
 * -E2BIG with why set to one line naming what was asked and what is allowed.
 * forever_ok: the server's own command line asked for --run-infinitely (perftest's
 * way, both sides): its consent, as --allow-infinite is.
 */
int rb_limits_check(const struct rb_limits *l, const struct rb_hello *run, uint64_t mem, bool forever_ok,
                    char *why, size_t cap);

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/* Monotonic time and process CPU time. */
#ifndef RB_TIMEUTIL_H
#define RB_TIMEUTIL_H

#include <stdint.h>
#include <time.h>

#define RB_NS_PER_MS 1000000ull
#define RB_NS_PER_S  1000000000ull

static inline uint64_t rb_now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* user + system CPU time of this process, in ns. */
uint64_t rb_cpu_ns(void);

#endif

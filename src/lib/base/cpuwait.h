/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * How long this process's threads waited for a CPU: the run-queue delay the kernel
 * keeps per thread (/proc/self/task/TID/schedstat, its second field). A host so
 * loaded that this side's threads sat runnable for seconds is this host's delay,
 * not the peer's: the -D bounds allow for it (oob/stepend.h).
 */
#ifndef RB_CPUWAIT_H
#define RB_CPUWAIT_H

#include <stdbool.h>
#include <stdint.h>

/* Every thread's wait now: the start the next rb_cpuwait_ns counts from. */
void rb_cpuwait_mark(void);
/*
 * The longest any one thread of this process waited for a CPU since the mark (a
 * thread begun since: since it began); 0 where the kernel keeps no such count.
 * Read from /proc at most every 50 ms (the last figure in between). For one
 * thread at a time: the step's control thread.
 */
uint64_t rb_cpuwait_ns(void);
/*
 * A loop that should come round every expect_ns (its own wait) at most, at now, *last
 * its previous turn: how much longer than that plus RB_AWAY_NS it took, 0 when not
 * (*last becomes now). Such a gap is this thread not running (starved, or the whole
 * host frozen, which no run-queue count sees when the thread slept through it):
 * rb_cpuwait_ns counts the longest since the mark as a wait, and a silence bound
 * should not count it as the peer's.
 */
#define RB_AWAY_NS 500000000ull /* 0.5 s */
uint64_t rb_cpuwait_gap(uint64_t *last, uint64_t now, uint64_t expect_ns);
/*
 * How long some task of this host waited for a CPU since the mark: the kernel's CPU
 * pressure (/proc/pressure/cpu, its "some" total). It sees what this side's threads
 * cannot: a peer on this host, or work beside us that delays the wake-ups the step
 * waits for. 0 where the kernel keeps no such count.
 */
uint64_t rb_cpupressure_ns(void);
/* The "some" line of /proc/pressure/cpu: its total in ns; false when the line is not one. */
bool rb_psi_parse(const char *line, uint64_t *total_ns);
/* One schedstat line: its run-queue wait in ns; false when the line is not one. */
bool rb_cpuwait_parse(const char *line, uint64_t *wait_ns);

#endif

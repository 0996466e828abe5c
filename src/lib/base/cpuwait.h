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
 * A loop's turn: when it came, and the CPU time its thread had used when last read
 * (rb_turn_start; read again every RB_TURN_CPU_NS at most, and at a late turn, so a
 * loop that spins pays no system call a turn). A loop that only waits between its
 * turns (a socket call with its timeout, a poll) counts wall time alone:
 * {its start, RB_TURN_WALL}.
 */
struct rb_turn {
	uint64_t wall_ns, cpu_ns, cpu_at_ns; /* the last turn; the thread's CPU time, and when it was read */
};
#define RB_TURN_CPU_NS 100000000ull /* 0.1 s */
#define RB_TURN_WALL   UINT64_MAX
/* The first turn of a loop that does work between its turns, at now. */
void rb_turn_start(struct rb_turn *t, uint64_t now);
/*
 * The gap between two turns of a loop that should come round every expect_ns (its
 * own wait) at most, in which its thread did not run: the wall time between them
 * less the CPU time it used and expect_ns, when that is over RB_AWAY_NS; else 0. A
 * thread that was busy in its own code all along was there; one that sat starved,
 * stopped or on a frozen host was not (which no run-queue count sees when it slept
 * through it).
 */
#define RB_AWAY_NS 500000000ull /* 0.5 s */
uint64_t rb_turn_gap(uint64_t wall_ns, uint64_t cpu_ns, uint64_t expect_ns);
/*
 * rb_turn_gap since *t, now (t becomes this turn): rb_cpuwait_ns counts the longest
 * such gap since the mark as a wait, and a silence bound should not count it as the
 * peer's.
 */
uint64_t rb_cpuwait_gap(struct rb_turn *t, uint64_t now, uint64_t expect_ns);
/*
 * A silence bound's clock for a loop that wakes every expect_ns: how long nothing
 * moved since *since, less the gaps (rb_cpuwait_gap) in which this thread did not
 * run; *since moves on by them.
 */
uint64_t rb_cpuwait_silence(uint64_t *since, struct rb_turn *t, uint64_t now, uint64_t expect_ns);
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

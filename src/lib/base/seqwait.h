/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A sequence word that threads sleep on until it moves: the waker bumps it after
 * publishing what the sleepers wait for, and enters the kernel (a futex wake) only
 * when someone sleeps. Lets a thread that waits for another block instead of
 * spinning through sched_yield, which burns a core and shows in the CPU columns.
 *
 * Waiter:  RB_SEQWAIT_ONCE(w, condition, ms) in a loop that looks at the condition
 *          (and its own bounds) after each return.
 * Waker:   make the condition true; rb_seqwait_bump(w);
 */
#ifndef RB_SEQWAIT_H
#define RB_SEQWAIT_H

#include <stdatomic.h>
#include <stdint.h>

struct rb_seqwait {
	_Atomic uint32_t seq;
	_Atomic uint32_t sleepers;
};

/* Registers a sleeper and returns the word to sleep on; check the condition after it. */
uint32_t rb_seqwait_prepare(struct rb_seqwait *w);
/* Sleeps until the word differs from seen, a bump wakes it, or timeout_ms passes. */
void rb_seqwait_sleep(struct rb_seqwait *w, uint32_t seen, int timeout_ms);
/* Unregisters the sleeper (after prepare, whether or not it slept). */
void rb_seqwait_done(struct rb_seqwait *w);
/* Moves the word and wakes every sleeper, if any. */
void rb_seqwait_bump(struct rb_seqwait *w);

/* One wait: returns at once when cond holds, else after a bump or ms milliseconds. */
#define RB_SEQWAIT_ONCE(w, cond, ms)                                                                         \
	do {                                                                                                 \
		uint32_t seen_ = rb_seqwait_prepare(w);                                                      \
		if (!(cond))                                                                                 \
			rb_seqwait_sleep(w, seen_, ms);                                                      \
		rb_seqwait_done(w);                                                                          \
	} while (0)

#endif

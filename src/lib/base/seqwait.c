/* SPDX-License-Identifier: BSD-2-Clause */
#include "seqwait.h"

#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

/*
 * Why no wake-up is lost (all accesses sequentially consistent): a waiter registers,
 * reads the word, then checks its condition; a waker makes the condition true, moves
 * the word, then looks for sleepers. If the waiter's check missed the waker's change,
 * the word moved after the waiter read it: FUTEX_WAIT returns at once, or the waker
 * saw the registration and wakes it.
 */
uint32_t rb_seqwait_prepare(struct rb_seqwait *w)
{
	atomic_fetch_add(&w->sleepers, 1);
	return atomic_load(&w->seq);
}

void rb_seqwait_sleep(struct rb_seqwait *w, uint32_t seen, int timeout_ms)
{
	struct timespec ts = {timeout_ms / 1000, (long)(timeout_ms % 1000) * 1000000L};

	/* EAGAIN (the word moved), EINTR and ETIMEDOUT all mean: look again. */
	syscall(SYS_futex, &w->seq, FUTEX_WAIT_PRIVATE, seen, &ts, NULL, 0);
}

void rb_seqwait_done(struct rb_seqwait *w)
{
	atomic_fetch_sub(&w->sleepers, 1);
}

void rb_seqwait_bump(struct rb_seqwait *w)
{
	atomic_fetch_add(&w->seq, 1);
	if (atomic_load(&w->sleepers))
		syscall(SYS_futex, &w->seq, FUTEX_WAKE_PRIVATE, 0x7fffffff, NULL, NULL, 0);
}

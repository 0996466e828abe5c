/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * SIGINT and SIGTERM end a run cleanly: the handler only records the signal; every
 * long loop asks rb_stop_signal() and returns -EINTR, so the run ends through the
 * normal path (peer told, measured rows kept, documents marked incomplete).
 */
#ifndef RB_SIG_H
#define RB_SIG_H

#include <signal.h>
#include <sys/types.h>

/* Installs the handlers (no SA_RESTART: a blocked poll() returns EINTR). */
void rb_sig_install(void);
/*
 * Blocks the run's signals (SIGINT, SIGTERM, SIGALRM) in the calling thread, the old
 * mask in *old: threads created meanwhile inherit it, so the signals go to the
 * control thread, whose waits are the ones that must wake up. Restore with
 * pthread_sigmask(SIG_SETMASK, old, NULL).
 */
void rb_sig_hold(sigset_t *old);
/*
 * Passes every SIGINT and SIGTERM on to pid as it arrives (0: none): rank 0 of
 * --all-pairs and its coordinator, which has a process group of its own.
 */
void rb_sig_forward(pid_t pid);
/* 0, or the signal that asked the run to stop. */
int rb_stop_signal(void);
/*
 * -EINTR after logging "interrupted by SIGINT" as the cause when a stop was asked
 * for, else 0. Loops call it where they check their deadlines.
 */
int rb_check_stop(void);
/*
 * A server's time limit for the run (--max-run-time): seconds > 0 arms it, 0 disarms
 * and forgets it. Once it has passed, every loop's rb_check_stop() logs it as the
 * cause and returns -ETIMEDOUT (a blocked poll() is woken by SIGALRM).
 */
void rb_sig_run_limit(unsigned seconds);

/*
 * Exit code for a run that ended with err: 0 for none; 2 when the first cause was
 * a usage error; 128 + signal after SIGINT/SIGTERM; 1 for everything else. The
 * class comes from where the error was first seen, never from the errno value: an
 * EINVAL from ibv_post_send mid-run is a run-time failure.
 */
int rb_exit_code(int err);

#endif

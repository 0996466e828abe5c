/* SPDX-License-Identifier: BSD-2-Clause */
#include "sig.h"

#include "log.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <sys/time.h>
#include <sys/types.h>

/* Read by any thread; lock-free atomics are async-signal-safe. */
static _Atomic int stop_sig;
static atomic_bool reported;
static _Atomic pid_t forward_to;
static _Atomic unsigned limit_s; /* the armed run limit; set to 0 when disarmed */
static atomic_bool limit_hit, limit_reported;

static void on_signal(int sig)
{
	int saved = errno, none = 0;
	pid_t to = atomic_load(&forward_to);

	atomic_compare_exchange_strong(&stop_sig, &none, sig);
	if (to > 0)
		kill(to, sig);
	errno = saved;
}

static void on_alarm(int sig)
{
	(void)sig;
	atomic_store(&limit_hit, true);
}

static void handle(int sig, void (*fn)(int), int flags)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = fn;
	sa.sa_flags = flags;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}

void rb_sig_run_limit(unsigned seconds)
{
	struct itimerval it = {{0, 0}, {seconds, 0}};

	/* SA_RESTART: a send or receive goes on (its own bound holds), a poll() still wakes. */
	handle(SIGALRM, on_alarm, SA_RESTART);
	setitimer(ITIMER_REAL, &it, NULL);
	atomic_store(&limit_s, seconds);
	atomic_store(&limit_hit, false);
	atomic_store(&limit_reported, false);
}

void rb_sig_hold(sigset_t *old)
{
	sigset_t block;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGALRM);
	pthread_sigmask(SIG_BLOCK, &block, old);
}

void rb_sig_forward(pid_t pid)
{
	atomic_store(&forward_to, pid);
}

void rb_sig_install(void)
{
	handle(SIGINT, on_signal, 0);
	handle(SIGTERM, on_signal, 0);
}

int rb_stop_signal(void)
{
	return atomic_load(&stop_sig);
}

int rb_check_stop(void)
{
	int sig = atomic_load(&stop_sig);

	if (!sig && atomic_load(&limit_hit)) {
		if (!atomic_exchange(&limit_reported, true))
			rb_err(
			    "the run passed this server's limit of %u s (--max-run-time): ended by this side",
			    atomic_load(&limit_s));
		return -ETIMEDOUT;
	}
	if (!sig)
		return 0;
	if (!atomic_exchange(&reported, true))
		rb_err("interrupted by %s", sig == SIGINT ? "SIGINT" : "SIGTERM");
	return -EINTR;
}

int rb_exit_code(int err)
{
	if (!err)
		return RB_EXIT_OK;
	if (err == -EINTR && rb_stop_signal())
		return 128 + rb_stop_signal();
	return rb_first_error_is_usage() ? RB_EXIT_USAGE : RB_EXIT_RUNTIME;
}

#include "sig.h"

#include "log.h"

#include <errno.h>
#include <signal.h>
#include <string.h>

static volatile sig_atomic_t stop_sig;

static void on_signal(int sig)
{
	if (!stop_sig)
		stop_sig = sig;
}

void rb_sig_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

int rb_stop_signal(void)
{
	return stop_sig;
}

int rb_check_stop(void)
{
	static int reported;

	if (!stop_sig)
		return 0;
	if (!reported) {
		reported = 1;
		rb_err("interrupted by %s", stop_sig == SIGINT ? "SIGINT" : "SIGTERM");
	}
	return -EINTR;
}

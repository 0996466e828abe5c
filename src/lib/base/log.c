/* SPDX-License-Identifier: BSD-2-Clause */
#include "log.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static const char *prog_name = "rdmabench";
static int verbose_level;
static char first_error[512];
static bool first_is_usage;
/* Worker threads can fail at the same moment: one of them is first. */
static pthread_mutex_t first_lock = PTHREAD_MUTEX_INITIALIZER;

static _Atomic bool progress_shown; /* set by the progress thread too */
/* Lines kept from stderr while a server judges a candidate (rb_log_hold), said or dropped after. */
#define HELD_MAX 16
static bool held;
static unsigned nheld;
static char held_line[HELD_MAX][1200];

void rb_log_hold(bool on)
{
	held = on;
	nheld = 0;
}

void rb_log_release(void)
{
	unsigned n = nheld;

	held = false;
	nheld = 0;
	for (unsigned i = 0; i < n; i++)
		fprintf(stderr, "%s", held_line[i]);
}

void rb_log_progress(bool shown)
{
	progress_shown = shown;
}

void rb_log_init(const char *prog)
{
	const char *slash = strrchr(prog, '/');
	prog_name = slash ? slash + 1 : prog;
}

const char *rb_prog(void)
{
	return prog_name;
}
void rb_set_verbose(int level)
{
	verbose_level = level;
}
int rb_verbose(void)
{
	return verbose_level;
}

__attribute__((format(printf, 2, 0))) static void vlog(const char *kind, const char *fmt, va_list ap)
{
	char line[1024];

	vsnprintf(line, sizeof(line), fmt, ap);
	if (held) {
		if (nheld < HELD_MAX)
			snprintf(held_line[nheld++], sizeof(held_line[0]), "%s: %s%s\n", prog_name, kind,
			         line);
		return;
	}
	/* One write so lines from the two ends of a test do not interleave; a progress
	 * line on the terminal is erased first. */
	fprintf(stderr, "%s%s: %s%s\n", progress_shown ? "\r\033[K" : "", prog_name, kind, line);
}

__attribute__((format(printf, 2, 0))) static void verr(bool usage, const char *fmt, va_list ap)
{
	va_list cp;

	va_copy(cp, ap);
	pthread_mutex_lock(&first_lock);
	if (!first_error[0]) {
		vsnprintf(first_error, sizeof(first_error), fmt, cp);
		first_is_usage = usage;
	}
	pthread_mutex_unlock(&first_lock);
	va_end(cp);
	vlog("", fmt, ap);
}

void rb_err(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	verr(false, fmt, ap);
	va_end(ap);
}

void rb_usage_err(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	verr(true, fmt, ap);
	va_end(ap);
}

const char *rb_first_error(void)
{
	const char *r;
	pthread_mutex_lock(&first_lock);
	r = first_error[0] ? first_error : "unknown error";
	pthread_mutex_unlock(&first_lock);
	return r;
}

void rb_forget_first_error(void)
{
	pthread_mutex_lock(&first_lock);
	first_error[0] = '\0';
	first_is_usage = false;
	pthread_mutex_unlock(&first_lock);
}

bool rb_first_error_is_usage(void)
{
	bool usage;

	pthread_mutex_lock(&first_lock);
	usage = first_is_usage;
	pthread_mutex_unlock(&first_lock);
	return usage;
}

void rb_warn(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vlog("warning: ", fmt, ap);
	va_end(ap);
}

void rb_dbg(const char *fmt, ...)
{
	va_list ap;
	if (!verbose_level)
		return;
	va_start(ap, fmt);
	vlog("debug: ", fmt, ap);
	va_end(ap);
}

#include "log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char *prog_name = "rdmabench";
static int verbose_level;
static char first_error[512];

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

static void vlog(const char *kind, const char *fmt, va_list ap)
{
	char line[1024];
	vsnprintf(line, sizeof(line), fmt, ap);
	/* One write so lines from the two ends of a test do not interleave. */
	fprintf(stderr, "%s: %s%s\n", prog_name, kind, line);
}

void rb_err(const char *fmt, ...)
{
	va_list ap;
	if (!first_error[0]) {
		va_start(ap, fmt);
		vsnprintf(first_error, sizeof(first_error), fmt, ap);
		va_end(ap);
	}
	va_start(ap, fmt);
	vlog("", fmt, ap);
	va_end(ap);
}

const char *rb_first_error(void)
{
	return first_error[0] ? first_error : "unknown error";
}

int rb_exit_code(int err)
{
	switch (err) {
	case 0: return RB_EXIT_OK;
	case -EINVAL:
	case -ENODEV:
	case -ERANGE:
	case -ENAMETOOLONG: return RB_EXIT_USAGE;
	default: return RB_EXIT_RUNTIME;
	}
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

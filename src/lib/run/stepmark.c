/* SPDX-License-Identifier: BSD-2-Clause */
/* A size's measured start on the wall clock, for the parent that reads this run's rows (stepmark.h). */
#include "stepmark.h"

#include "base/base.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The descriptor from the environment, looked up once: -1 when there is none. */
static int mark_fd(void)
{
	static int fd = -2;
	const char *s;
	char *end;
	struct stat st;
	long v;

	if (fd != -2)
		return fd;
	fd = -1;
	if (!(s = getenv("RB_STEP_MARK_FD")))
		return fd;
	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < 3 || v > 65535 || fstat((int)v, &st) || !S_ISFIFO(st.st_mode))
		rb_warn("RB_STEP_MARK_FD=%s is not a pipe this process was started with: no marks", s);
	else
		fd = (int)v;
	if (fd >= 0) {
		/* A parent that stopped reading must never hold a step up. */
		(void)fcntl(fd, F_SETFD, FD_CLOEXEC);
		(void)fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	}
	unsetenv("RB_STEP_MARK_FD");
	return fd;
}

void rb_step_mark(uint64_t size)
{
	int fd = mark_fd();
	struct timespec ts;
	char line[64];
	int n;

	if (fd < 0)
		return;
	clock_gettime(CLOCK_REALTIME, &ts);
	n = snprintf(line, sizeof(line), "%" PRIu64 " %lld.%09ld\n", size, (long long)ts.tv_sec, ts.tv_nsec);
	/* One short write into a pipe is atomic. */
	if (write(fd, line, (size_t)n) != n)
		rb_dbg("RB_STEP_MARK_FD: the mark was not written: %s", strerror(errno));
}

bool rb_step_mark_parse(const char *line, uint64_t *size, double *unix_s)
{
	char *end;
	unsigned long long v;
	double t;

	if (!line || line[0] < '0' || line[0] > '9')
		return false;
	errno = 0;
	v = strtoull(line, &end, 10);
	if (errno || v < 1 || *end != ' ')
		return false;
	t = strtod(end + 1, &end);
	if (*end != '\n' && *end != 0)
		return false;
	if (!(t > 978307200.0 && t < 4102444800.0)) /* 2001 .. 2100 */
		return false;
	*size = v;
	*unix_s = t;
	return true;
}

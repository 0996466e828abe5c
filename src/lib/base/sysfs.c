/* SPDX-License-Identifier: BSD-2-Clause */
#include "sysfs.h"

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

bool rb_sysfs_path(char *out, size_t len, const char *root, const char *rel)
{
	int n = snprintf(out, len, "%s/%s", root, rel);
	return n > 0 && (size_t)n < len;
}

bool rb_sysfs_line(const char *root, const char *rel, char *out, size_t len)
{
	char p[PATH_MAX];
	struct stat st;
	ssize_t n;
	int fd;

	out[0] = '\0';
	/* Non-blocking, regular files only: a FIFO in a copied tree must not hang the reader. */
	if (!rb_sysfs_path(p, sizeof(p), root, rel) || (fd = open(p, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0)
		return false;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		close(fd);
		return false;
	}
	n = read(fd, out, len - 1);
	close(fd);
	if (n < 0)
		return false;
	out[n] = '\0';
	out[strcspn(out, "\n")] = '\0';
	return true;
}

long rb_sysfs_long(const char *root, const char *rel, long dflt)
{
	char line[64], *end;
	long v;

	if (!rb_sysfs_line(root, rel, line, sizeof(line)))
		return dflt;
	v = strtol(line, &end, 0);
	return end == line ? dflt : v;
}

bool rb_sysfs_exists(const char *root, const char *rel)
{
	char p[PATH_MAX];
	return rb_sysfs_path(p, sizeof(p), root, rel) && access(p, F_OK) == 0;
}

char *rb_sysfs_real(const char *root, const char *rel)
{
	char p[PATH_MAX];
	return rb_sysfs_path(p, sizeof(p), root, rel) ? realpath(p, NULL) : NULL;
}

bool rb_sysfs_link_name(const char *root, const char *rel, char *out, size_t len)
{
	char p[PATH_MAX], target[PATH_MAX];
	ssize_t n;
	const char *slash;

	if (!rb_sysfs_path(p, sizeof(p), root, rel) || (n = readlink(p, target, sizeof(target) - 1)) < 0)
		return false;
	target[n] = '\0';
	slash = strrchr(target, '/');
	snprintf(out, len, "%s", slash ? slash + 1 : target);
	return true;
}

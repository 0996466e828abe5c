#include "sysfs.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool rb_sysfs_path(char *out, size_t len, const char *root, const char *rel)
{
	int n = snprintf(out, len, "%s/%s", root, rel);
	return n > 0 && (size_t)n < len;
}

bool rb_sysfs_line(const char *root, const char *rel, char *out, size_t len)
{
	char p[PATH_MAX];
	FILE *f;
	bool ok;

	out[0] = '\0';
	if (!rb_sysfs_path(p, sizeof(p), root, rel) || !(f = fopen(p, "r")))
		return false;
	ok = fgets(out, (int)len, f) != NULL;
	fclose(f);
	out[strcspn(out, "\n")] = '\0';
	return ok;
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

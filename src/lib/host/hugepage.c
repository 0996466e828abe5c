/* SPDX-License-Identifier: BSD-2-Clause */
#include "hugepage.h"

#include "base/base.h"

#include <stdio.h>
#include <string.h>

size_t rb_hugepage_parse(const char *meminfo)
{
	const char *line = meminfo;

	while (line && *line) {
		unsigned long long kb;
		char unit[8];

		/* Only the line that starts with the field: not "Hugepages_Total:" and the like. */
		if (!strncmp(line, "Hugepagesize:", 13) && sscanf(line + 13, "%llu %7s", &kb, unit) == 2 &&
		    !strcmp(unit, "kB") && kb && kb <= (size_t)-1 / 1024)
			return (size_t)kb * 1024;
		line = strchr(line, '\n');
		line = line ? line + 1 : NULL;
	}
	return 0;
}

size_t rb_hugepage_size(const char *path)
{
	char text[8192];
	FILE *f = fopen(path, "r");
	size_t n;

	if (!f)
		return 0;
	n = fread(text, 1, sizeof(text) - 1, f);
	fclose(f);
	text[n] = '\0';
	return rb_hugepage_parse(text);
}

const char *rb_hugepage_name(size_t bytes, char *buf, size_t len)
{
	return rb_fmt_bytes((double)bytes, buf, len); /* a page size is a power of two: "2 MiB" */
}

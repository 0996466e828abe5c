/* SPDX-License-Identifier: BSD-2-Clause */
#include "acs.h"

#include "base/base.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned u32_at(const uint8_t *p)
{
	return (unsigned)p[0] | (unsigned)p[1] << 8 | (unsigned)p[2] << 16 | (unsigned)p[3] << 24;
}

int rb_acs_ctl(const uint8_t *cfg, size_t len)
{
	unsigned off = 0x100;

	if (len <= 0x100)
		return -2; /* the header alone: an unprivileged read */
	/* A capability list that loops or points below 0x100 is not followed far: 64 hops at most. */
	for (unsigned hops = 0; hops < 64 && off >= 0x100 && off + 8 <= len; hops++) {
		unsigned h = u32_at(cfg + off);

		if ((h & 0xffff) == 0x000d)
			return (int)(cfg[off + 6] | cfg[off + 7] << 8);
		if (!h || !(h >> 20))
			break;
		off = h >> 20;
	}
	return -1;
}

/* "0000:00:01.0"-shaped: a PCI function's directory. */
static int is_bdf(const char *s)
{
	unsigned a, b, c, d;
	char end;

	return strlen(s) == 12 && sscanf(s, "%4x:%2x:%2x.%1x%c", &a, &b, &c, &d, &end) == 4;
}

int rb_acs_redirecting(const char *sysfs, const char *bdf, char *first, size_t len, unsigned *ctl)
{
	char rel[96], cfgpath[4200];
	char *real, *slash;
	int found = 0, unread = 0;

	first[0] = 0;
	*ctl = 0;
	snprintf(rel, sizeof(rel), "bus/pci/devices/%s", bdf);
	real = rb_sysfs_real(sysfs, rel);
	if (!real)
		return 0;
	/* Up from the function itself: every parent directory shaped like a BDF is a bridge. */
	while ((slash = strrchr(real, '/')) != NULL) {
		*slash = 0;
		slash = strrchr(real, '/');
		if (!slash || !is_bdf(slash + 1))
			break;
		snprintf(cfgpath, sizeof(cfgpath), "%s/config", real);
		{
			uint8_t cfg[4096];
			size_t n = 0;
			FILE *f = fopen(cfgpath, "rb");
			int c;

			if (!f)
				continue;
			n = fread(cfg, 1, sizeof(cfg), f);
			fclose(f);
			c = rb_acs_ctl(cfg, n);
			if (c == -2)
				unread++;
			if (c >= 0 && (c & (RB_ACS_REQ_REDIR | RB_ACS_CMPL_REDIR)) && found++ == 0) {
				snprintf(first, len, "%s", slash + 1);
				*ctl = (unsigned)c;
			}
		}
	}
	free(real);
	return found ? found : unread ? -1 : 0;
}

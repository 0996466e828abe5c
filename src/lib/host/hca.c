/* SPDX-License-Identifier: BSD-2-Clause */
#include "hca.h"

#include "base/base.h"

#include <errno.h>
#include <stdint.h>
#include <string.h>

int rb_hca_filter_parse(const char *spec, struct rb_hca_filter *f)
{
	const char *p = spec;

	memset(f, 0, sizeof(*f));
	if (!spec || !*spec)
		return 0;
	if (*p == '^') {
		f->exclude = true;
		p++;
	}
	if (*p == '=') {
		f->exact = true;
		p++;
	}
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		char item[RB_HCA_NAME + 16];
		char *colon;

		if (len == 0 || len >= sizeof(item) || f->n == RB_HCA_MAX)
			return -EINVAL;
		memcpy(item, p, len);
		item[len] = '\0';
		colon = strchr(item, ':');
		if (colon) {
			uint64_t port;
			*colon = '\0';
			if (rb_parse_u64_range(colon + 1, 1, 255, &port))
				return -EINVAL;
			f->e[f->n].port = (int)port;
		}
		if (!item[0] || strlen(item) >= RB_HCA_NAME)
			return -EINVAL;
		strcpy(f->e[f->n].name, item);
		f->n++;
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

bool rb_hca_filter_match(const struct rb_hca_filter *f, const char *dev, int port)
{
	bool hit = false;

	if (f->n == 0)
		return true;
	for (unsigned i = 0; i < f->n && !hit; i++) {
		bool name_ok =
		    f->exact ? !strcmp(dev, f->e[i].name) : !strncmp(dev, f->e[i].name, strlen(f->e[i].name));
		hit = name_ok && (f->e[i].port == 0 || f->e[i].port == port);
	}
	return f->exclude ? !hit : hit;
}

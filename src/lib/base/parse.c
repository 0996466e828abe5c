/* SPDX-License-Identifier: BSD-2-Clause */
#include "parse.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

int rb_parse_u64(const char *s, uint64_t *out)
{
	const char *p = s;
	char *end;
	unsigned long long v;
	unsigned shift = 0;

	if (!s || !isdigit((unsigned char)*p))
		return -EINVAL; /* rejects "", "-1", " 1", "+1" */
	errno = 0;
	v = strtoull(p, &end, 10);
	if (errno == ERANGE)
		return -ERANGE;
	switch (*end) {
	case 'k':
	case 'K':
		shift = 10;
		end++;
		break;
	case 'm':
	case 'M':
		shift = 20;
		end++;
		break;
	case 'g':
	case 'G':
		shift = 30;
		end++;
		break;
	case 't':
	case 'T':
		shift = 40;
		end++;
		break;
	default: break;
	}
	if (*end != '\0')
		return -EINVAL;
	if (shift && v > (UINT64_MAX >> shift))
		return -ERANGE;
	*out = (uint64_t)v << shift;
	return 0;
}

int rb_parse_u64_range(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	uint64_t v;
	int ret = rb_parse_u64(s, &v);

	if (ret)
		return ret;
	if (v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int rb_parse_double(const char *s, double *out)
{
	char *end;
	double v;

	if (!s || !(isdigit((unsigned char)*s) || *s == '.'))
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno == ERANGE || !isfinite(v))
		return -ERANGE;
	if (*end != '\0' || end == s)
		return -EINVAL;
	*out = v;
	return 0;
}

const char *rb_fmt_size(uint64_t v, char *buf, unsigned len)
{
	static const char suffix[] = "KMGT";
	int i = -1;

	while (v >= 1024 && (v & 1023) == 0 && i < 3) {
		v >>= 10;
		i++;
	}
	if (i < 0)
		snprintf(buf, len, "%llu", (unsigned long long)v);
	else
		snprintf(buf, len, "%llu%c", (unsigned long long)v, suffix[i]);
	return buf;
}

const char *rb_fmt_bytes(double b, char *buf, size_t len)
{
	static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
	unsigned u = 0;

	while (b >= 1024 && u < 6) {
		b /= 1024;
		u++;
	}
	snprintf(buf, len, b == floor(b) && b < 1000 && u < 4 ? "%.0f %s" : "%.1f %s", b, unit[u]);
	return buf;
}

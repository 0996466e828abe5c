#include "sizes.h"

#include "parse.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int rb_sizes_parse_list(const char *s, struct rb_sizes *out)
{
	char item[32];
	const char *p = s;

	out->n = 0;
	if (!s || !*s)
		return -EINVAL;
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		int ret;

		if (len == 0 || len >= sizeof(item))
			return -EINVAL;
		if (out->n == RB_SIZES_MAX)
			return -E2BIG;
		memcpy(item, p, len);
		item[len] = '\0';
		ret = rb_parse_u64_range(item, RB_SIZE_MIN, RB_SIZE_MAX, &out->v[out->n]);
		if (ret)
			return ret;
		out->n++;
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

static int is_pow2(uint64_t v) { return v && !(v & (v - 1)); }

int rb_sizes_parse_range(const char *s, struct rb_sizes *out)
{
	char lo_s[32];
	const char *colon = s ? strchr(s, ':') : NULL;
	uint64_t lo, hi;
	int ret;

	out->n = 0;
	if (!colon || (size_t)(colon - s) >= sizeof(lo_s))
		return -EINVAL;
	memcpy(lo_s, s, (size_t)(colon - s));
	lo_s[colon - s] = '\0';
	ret = rb_parse_u64_range(lo_s, RB_SIZE_MIN, RB_SIZE_MAX, &lo);
	if (!ret)
		ret = rb_parse_u64_range(colon + 1, RB_SIZE_MIN, RB_SIZE_MAX, &hi);
	if (ret)
		return ret;
	if (!is_pow2(lo) || !is_pow2(hi) || lo > hi)
		return -EINVAL;
	for (uint64_t v = lo; v <= hi; v <<= 1)
		out->v[out->n++] = v;
	return 0;
}

void rb_sizes_all(struct rb_sizes *out)
{
	rb_sizes_parse_range("2:8M", out);
}

uint64_t rb_sizes_max(const struct rb_sizes *s)
{
	uint64_t m = 0;
	for (unsigned i = 0; i < s->n; i++)
		if (s->v[i] > m)
			m = s->v[i];
	return m;
}

const char *rb_sizes_fmt(const struct rb_sizes *s, char *buf, unsigned len)
{
	unsigned off = 0;
	char one[24];

	buf[0] = '\0';
	for (unsigned i = 0; i < s->n && off < len; i++) {
		int w = snprintf(buf + off, len - off, "%s%s", i ? "," : "",
				 rb_fmt_size(s->v[i], one, sizeof(one)));
		if (w < 0)
			break;
		off += (unsigned)w;
	}
	return buf;
}

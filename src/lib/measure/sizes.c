/* SPDX-License-Identifier: BSD-2-Clause */
#include "sizes.h"

#include "base/base.h"
#include "rb_config.h"
#include "oob/oob.h"

#include <errno.h>
#include <stddef.h>
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

static int is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

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

struct rb_opt_table rb_size_opt_table(struct rb_size_opts *o, const char *dflt_help)
{
	static const struct rb_opt rows[] = {
	    {.name = "size",
	     .key = 's',
	     .type = RB_OPT_STR,
	     .off = offsetof(struct rb_size_opts, list),
	     .arg = "SIZES",
	     .flags = RB_OPT_GROUP(1)},
	    {.name = "sizes",
	     .type = RB_OPT_STR,
	     .off = offsetof(struct rb_size_opts, range),
	     .arg = "LO:HI",
	     .help = "every power of two from LO to HI, e.g. 2:8M",
	     .flags = RB_OPT_GROUP(1)},
	    {.name = "all",
	     .key = 'a',
	     .type = RB_OPT_FLAG,
	     .off = offsetof(struct rb_size_opts, all),
	     .help = "sweep 2 B .. 8 MiB in powers of two",
	     .flags = RB_OPT_GROUP(1)},
	    {0},
	};

	_Static_assert(sizeof(rows) == sizeof(o->rows), "rb_size_opts.rows holds the table");
	memcpy(o->rows, rows, sizeof(rows));
	snprintf(o->size_help, sizeof(o->size_help), "message size, or a list such as 64,4K,1M (default %s)",
	         dflt_help);
	o->rows[0].help = o->size_help;
	return (struct rb_opt_table){"Message sizes", o->rows, o, true, NULL};
}

int rb_size_opts_resolve(const struct rb_size_opts *o, uint64_t dflt, struct rb_sizes *out)
{
	if (!!o->list + !!o->range + !!o->all > 1) {
		rb_usage_err("choose one of -s, --sizes and -a");
		return -EINVAL;
	}
	if (o->list && rb_sizes_parse_list(o->list, out)) {
		rb_usage_err(
		    "invalid value '%s' for --size (allowed: up to %d sizes from 1 to 1G, K/M/G suffixes, "
		    "comma "
		    "separated)",
		    o->list, RB_SIZES_MAX);
		return -EINVAL;
	}
	if (o->range && rb_sizes_parse_range(o->range, out)) {
		rb_usage_err(
		    "invalid value '%s' for --sizes (allowed: LO:HI, powers of two from 1 to 1G, LO <= HI)",
		    o->range);
		return -EINVAL;
	}
	if (o->all)
		rb_sizes_all(out);
	if (!o->list && !o->range && !o->all) {
		out->n = 1;
		out->v[0] = dflt;
	}
	return 0;
}

void rb_hello_sweep(struct rb_hello *h, const char *tool, const struct rb_sizes *s, uint32_t iters,
                    double duration_s)
{
	char sizes[512];

	memset(h, 0, sizeof(*h));
	snprintf(h->tool, sizeof(h->tool), "%s", tool);
	snprintf(h->version, sizeof(h->version), "%s", RB_VERSION);
	rb_sizes_fmt(s, sizes, sizeof(sizes));
	rb_hello_add(h, "sizes", "%.*s", RB_WIRE_VAL_LEN - 1, sizes);
	rb_hello_add(h, "size_count", "%u", s->n);
	rb_hello_add(h, "iters", "%u", iters);
	rb_hello_add(h, "duration", "%g", duration_s);
}

/* Seconds in (0, 86400], and at least min when min > 0. */
static int parse_seconds(const char *arg, double *dst, double min)
{
	double d;
	int ret = rb_parse_double(arg, &d);

	if (ret)
		return ret;
	if (!(d > 0) || d < min || d > 86400)
		return -ERANGE;
	*dst = d;
	return 0;
}

int rb_parse_duration(const char *arg, void *dst)
{
	return parse_seconds(arg, dst, 0);
}

int rb_parse_interval(const char *arg, void *dst)
{
	return parse_seconds(arg, dst, 0.01);
}

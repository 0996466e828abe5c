#include "opts.h"

#include "log.h"
#include "parse.h"

#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#define LONG_KEY_BASE 256

struct flat {
	const struct rb_opt **rows;
	void **dst; /* each row's field in its table's struct */
	struct option *longs;
	char shorts[256];
	unsigned n;
};

static void optname(const struct rb_opt *o, char *buf, size_t len)
{
	if (o->name)
		snprintf(buf, len, "--%s", o->name);
	else
		snprintf(buf, len, "-%c", o->key);
}

static void *field(const struct rb_opt_table *t, const struct rb_opt *o)
{
	if (!t->base || o->type == RB_OPT_HELP || o->type == RB_OPT_IGNORE)
		return NULL;
	return (char *)t->base + o->off;
}

static int flatten(const struct rb_opt_table *tables, unsigned nt, struct flat *fl)
{
	unsigned n = 0, s = 0;

	for (unsigned t = 0; t < nt; t++)
		for (const struct rb_opt *o = tables[t].rows; o->name; o++)
			n++;
	fl->rows = calloc(n ? n : 1, sizeof(*fl->rows));
	fl->dst = calloc(n ? n : 1, sizeof(*fl->dst));
	fl->longs = calloc(n + 1, sizeof(*fl->longs));
	if (!fl->rows || !fl->dst || !fl->longs)
		return -ENOMEM;
	fl->shorts[s++] = ':'; /* missing argument reported as ':' */
	fl->n = 0;
	for (unsigned t = 0; t < nt; t++) {
		for (const struct rb_opt *o = tables[t].rows; o->name; o++) {
			unsigned i = fl->n++;
			fl->rows[i] = o;
			fl->dst[i] = field(&tables[t], o);
			fl->longs[i].name = o->name;
			fl->longs[i].has_arg = o->arg ? required_argument : no_argument;
			fl->longs[i].val = LONG_KEY_BASE + (int)i;
			if (o->key && s + 3 < sizeof(fl->shorts)) {
				fl->shorts[s++] = (char)o->key;
				if (o->arg)
					fl->shorts[s++] = ':';
			}
		}
	}
	fl->shorts[s] = '\0';
	return 0;
}

static void bad_value(const struct rb_opt *o, const char *arg, int err)
{
	char name[64], allowed[96];

	optname(o, name, sizeof(name));
	if (o->allowed)
		snprintf(allowed, sizeof(allowed), "%s", o->allowed);
	else if (o->type == RB_OPT_DOUBLE)
		snprintf(allowed, sizeof(allowed), "a number from %llu to %llu", (unsigned long long)o->min,
		         (unsigned long long)o->max);
	else
		snprintf(allowed, sizeof(allowed), "an integer from %llu to %llu", (unsigned long long)o->min,
		         (unsigned long long)o->max);
	rb_usage_err("invalid value '%s' for %s%s (allowed: %s)", arg, name, err == -ERANGE ? ": out of range" : "",
	       allowed);
}

static int apply(const struct rb_opt *o, void *dst, const char *arg)
{
	uint64_t v;
	double d;
	int ret = 0;

	switch (o->type) {
	case RB_OPT_FLAG: *(bool *)dst = true; return 0;
	case RB_OPT_IGNORE:
	case RB_OPT_HELP: return 0;
	case RB_OPT_STR: *(const char **)dst = arg; return 0;
	case RB_OPT_U32:
	case RB_OPT_U64:
		ret = rb_parse_u64_range(arg, o->min, o->max, &v);
		if (!ret && o->type == RB_OPT_U32)
			*(uint32_t *)dst = (uint32_t)v;
		else if (!ret)
			*(uint64_t *)dst = v;
		break;
	case RB_OPT_DOUBLE:
		ret = rb_parse_double(arg, &d);
		if (!ret && (d < (double)o->min || d > (double)o->max))
			ret = -ERANGE;
		if (!ret)
			*(double *)dst = d;
		break;
	case RB_OPT_FN: ret = o->fn(arg, dst); break;
	}
	if (ret)
		bad_value(o, arg, ret);
	return ret;
}

bool rb_opts_given(const struct rb_opts_given *g, const void *dst)
{
	for (unsigned i = 0; g && i < g->n; i++)
		if (g->dst[i] == dst)
			return true;
	return false;
}

static void mark_given(struct rb_opts_given *g, const void *dst)
{
	if (g && dst && !rb_opts_given(g, dst) && g->n < RB_OPTS_GIVEN_MAX)
		g->dst[g->n++] = dst;
}

int rb_opts_parse(const struct rb_opt_table *tables, unsigned nt, int argc, char **argv, const char *usage,
                  struct rb_opts_given *given)
{
	struct flat fl = {0};
	int ret = RB_OPTS_ERROR, c;

	if (flatten(tables, nt, &fl)) {
		rb_err("out of memory parsing options");
		goto out;
	}
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, fl.shorts, fl.longs, NULL)) != -1) {
		const struct rb_opt *o = NULL;
		void *dst = NULL;

		if (c >= LONG_KEY_BASE && c < LONG_KEY_BASE + (int)fl.n) {
			o = fl.rows[c - LONG_KEY_BASE];
			dst = fl.dst[c - LONG_KEY_BASE];
		} else if (c != '?' && c != ':') {
			for (unsigned i = 0; i < fl.n && !o; i++)
				if (fl.rows[i]->key == c) {
					o = fl.rows[i];
					dst = fl.dst[i];
				}
		}
		if (c == ':') {
			if (optopt > 0 && optopt < LONG_KEY_BASE)
				rb_usage_err("option -%c needs a value", optopt);
			else
				rb_usage_err("option %s needs a value", argv[optind - 1]);
			goto usage;
		}
		if (!o) {
			if (optopt > 0 && optopt < LONG_KEY_BASE)
				rb_usage_err("unknown option -%c", optopt);
			else
				rb_usage_err("unknown option '%s'", argv[optind - 1]);
			goto usage;
		}
		if (o->type == RB_OPT_HELP) {
			rb_opts_help(stdout, tables, nt, usage);
			ret = RB_OPTS_HELP;
			goto out;
		}
		if (apply(o, dst, optarg))
			goto out;
		mark_given(given, dst);
	}
	ret = optind;
	goto out;
usage:
	fprintf(stderr, "usage: %s\nTry '%s --help' for more.\n", usage, rb_prog());
out:
	free(fl.rows);
	free(fl.dst);
	free(fl.longs);
	return ret;
}

void rb_opts_help(FILE *f, const struct rb_opt_table *tables, unsigned n, const char *usage)
{
	fprintf(f, "usage: %s\n", usage);
	for (unsigned t = 0; t < n; t++) {
		fprintf(f, "\n%s:\n", tables[t].title);
		for (const struct rb_opt *o = tables[t].rows; o->name; o++) {
			char left[64];
			int w;

			if (o->key)
				w = snprintf(left, sizeof(left), "  -%c, --%s%s%s", o->key, o->name,
				             o->arg ? "=" : "", o->arg ? o->arg : "");
			else
				w = snprintf(left, sizeof(left), "      --%s%s%s", o->name, o->arg ? "=" : "",
				             o->arg ? o->arg : "");
			if (w > 30)
				fprintf(f, "%s\n%32s%s\n", left, "", o->help);
			else
				fprintf(f, "%-32s%s\n", left, o->help);
		}
	}
}

static int set_verbose(const char *arg, void *dst)
{
	(void)arg;
	(void)dst;
	rb_set_verbose(rb_verbose() + 1);
	return 0;
}

static const struct rb_opt common_rows[] = {
    {"help", 'h', RB_OPT_HELP, 0, NULL, "show this help and exit", 0, 0, NULL, NULL},
    {"verbose", 'v', RB_OPT_FN, 0, NULL, "more diagnostics on stderr", 0, 0, set_verbose, NULL},
    {NULL, 0, 0, 0, NULL, NULL, 0, 0, NULL, NULL},
};

struct rb_opt_table rb_common_opts(void)
{
	return (struct rb_opt_table){"General", common_rows, NULL};
}

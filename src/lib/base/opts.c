/* SPDX-License-Identifier: BSD-2-Clause */
#include "opts_priv.h"

#include "log.h"
#include "parse.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct flat {
	const struct rb_opt **rows;
	void **dst; /* each row's field in its table's struct */
	unsigned n;
	const struct rb_opt_table *tables; /* their dialects */
	unsigned nt;
};

/*
 * A dialect's meaning of an option we lack, said in its error (the hints of the tables'
 * dialects); false when none has one.
 */
static bool dialect_hint(const struct flat *fl, const char *name, size_t len, bool is_short)
{
	for (unsigned t = 0; t < fl->nt; t++) {
		const struct rb_dialect *d = fl->tables[t].dialect;

		for (const struct rb_opt_hint *h = d ? d->hints : NULL; h && h->name; h++)
			if (strlen(h->name) == len && !strncmp(h->name, name, len) &&
			    (len == 1) == is_short) {
				rb_usage_err("unknown option '%s%.*s' (%s's option; %s)",
				             is_short ? "-" : "--", (int)len, name, d->name, h->instead);
				return true;
			}
	}
	return false;
}

/* A dialect's alias of name[0..len) (a letter: len 0, key); NULL when none. */
static const char *dialect_alias(const struct flat *fl, const char *name, size_t len, int key)
{
	for (unsigned t = 0; t < fl->nt; t++) {
		const struct rb_dialect *d = fl->tables[t].dialect;

		for (const struct rb_opt_alias *a = d ? d->aliases : NULL; a && a->name; a++)
			if (len ? a->alias && strlen(a->alias) == len && !strncmp(a->alias, name, len)
			        : !a->alias && a->key == key)
				return a->name;
	}
	return NULL;
}

static void optname(const struct rb_opt *o, char *buf, size_t len)
{
	if (o->name)
		snprintf(buf, len, "--%s", o->name);
	else
		snprintf(buf, len, "-%c", o->key);
}

void *rb_opt_field(const struct rb_opt_table *t, const struct rb_opt *o)
{
	if (!t->base || o->type == RB_OPT_HELP || o->type == RB_OPT_VERSION || o->type == RB_OPT_IGNORE)
		return NULL;
	return (char *)t->base + o->off;
}

static int flatten(const struct rb_opt_table *tables, unsigned nt, struct flat *fl)
{
	unsigned n = 0;

	for (unsigned t = 0; t < nt; t++)
		for (const struct rb_opt *o = tables[t].rows; o->name; o++)
			n++;
	fl->tables = tables;
	fl->nt = nt;
	fl->rows = calloc(n ? n : 1, sizeof(*fl->rows));
	fl->dst = calloc(n ? n : 1, sizeof(*fl->dst));
	if (!fl->rows || !fl->dst)
		return -ENOMEM;
	fl->n = 0;
	for (unsigned t = 0; t < nt; t++) {
		for (const struct rb_opt *o = tables[t].rows; o->name; o++) {
			fl->rows[fl->n] = o;
			fl->dst[fl->n++] = rb_opt_field(&tables[t], o);
		}
	}
	return 0;
}

/* The row whose long name is exactly name[0..len); -1 when none. */
static int find_name(const struct flat *fl, const char *name, size_t len)
{
	for (unsigned i = 0; i < fl->n; i++)
		if (strlen(fl->rows[i]->name) == len && !strncmp(fl->rows[i]->name, name, len))
			return (int)i;
	return -1;
}

/* The row named name[0..len), or by a dialect's alias of it; -1 when none. */
static int find_long(const struct flat *fl, const char *name, size_t len)
{
	int i = find_name(fl, name, len);
	const char *ours = i < 0 ? dialect_alias(fl, name, len, 0) : NULL;

	return ours ? find_name(fl, ours, strlen(ours)) : i;
}

static int find_short(const struct flat *fl, int key)
{
	const char *ours;

	for (unsigned i = 0; i < fl->n; i++)
		if (fl->rows[i]->key == key)
			return (int)i;
	ours = dialect_alias(fl, NULL, 0, key);
	return ours ? find_name(fl, ours, strlen(ours)) : -1;
}

/* Edits (insert, delete, replace) from a to b, counted up to 3. */
static unsigned distance(const char *a, size_t la, const char *b)
{
	size_t lb = strlen(b);
	unsigned d[64];

	if (la >= 63 || lb >= 63)
		return 3;
	for (size_t j = 0; j <= lb; j++)
		d[j] = (unsigned)j;
	for (size_t i = 1; i <= la; i++) {
		unsigned diag = d[0];
		d[0] = (unsigned)i;
		for (size_t j = 1; j <= lb; j++) {
			unsigned up = d[j], best = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < best)
				best = up + 1;
			if (d[j - 1] + 1 < best)
				best = d[j - 1] + 1;
			diag = up;
			d[j] = best;
		}
	}
	return d[lb] < 3 ? d[lb] : 3;
}

/*
 * An unknown long option, with what it may have meant: the options it abbreviates
 * (never taken silently: --time is not --timeout), else the nearest spelling.
 */
static void unknown_long(const struct flat *fl, const char *name, size_t len)
{
	char hint[160] = "";
	size_t h = 0;
	unsigned best = 3;

	if (dialect_hint(fl, name, len, false))
		return;
	for (unsigned i = 0; i < fl->n && h < sizeof(hint) - 40; i++)
		if (!strncmp(fl->rows[i]->name, name, len))
			h += (size_t)snprintf(hint + h, sizeof(hint) - h, "%s--%s", h ? " or " : "",
			                      fl->rows[i]->name);
	for (unsigned i = 0; i < fl->n && !h; i++) {
		unsigned d = distance(name, len, fl->rows[i]->name);
		if (d < best) {
			best = d;
			snprintf(hint, sizeof(hint), "--%s", fl->rows[i]->name);
		}
	}
	if (hint[0])
		rb_usage_err("unknown option '--%.*s' (did you mean %s?)", (int)len, name, hint);
	else
		rb_usage_err("unknown option '--%.*s'", (int)len, name);
}

/* What the row's error says is allowed (in a buffer of its own: one call per message). */
const char *rb_opt_allowed(const struct rb_opt *o)
{
	static char buf[96];

	if (o->allowed)
		snprintf(buf, sizeof(buf), "%s", o->allowed);
	else if (o->type == RB_OPT_STR)
		snprintf(buf, sizeof(buf), "a non-empty %s", o->arg ? o->arg : "value");
	else if (o->type == RB_OPT_DOUBLE)
		snprintf(buf, sizeof(buf), "a number from %llu to %llu", (unsigned long long)o->min,
		         (unsigned long long)o->max);
	else
		snprintf(buf, sizeof(buf), "an integer from %llu to %llu", (unsigned long long)o->min,
		         (unsigned long long)o->max);
	return buf;
}

static void bad_value(const struct rb_opt *o, const char *arg, int err)
{
	char name[64];

	optname(o, name, sizeof(name));
	rb_usage_err("invalid value '%s' for %s%s (allowed: %s)", arg, name,
	             err == -ERANGE ? ": out of range" : "", rb_opt_allowed(o));
}

/* The value into the row's field, as its parser reads it; 0 or -errno (not said). */
int rb_opt_store(const struct rb_opt *o, void *dst, const char *arg)
{
	uint64_t v;
	double d;
	int ret = 0;

	switch (o->type) {
	case RB_OPT_FLAG: *(bool *)dst = true; return 0;
	case RB_OPT_IGNORE:
	case RB_OPT_HELP:
	case RB_OPT_VERSION: return 0;
	case RB_OPT_STR:
		/* An empty name (--csv=) would only fail at the end of the run, or mean nothing. */
		if (!arg[0])
			ret = -EINVAL;
		else
			*(const char **)dst = arg;
		break;
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
	return ret;
}

static int apply(const struct rb_opt *o, void *dst, const char *arg)
{
	int ret = rb_opt_store(o, dst, arg);

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

void rb_opts_mark_given(struct rb_opts_given *g, const void *dst, const char *val)
{
	if (!g || !dst)
		return;
	/* Given twice: the last value, as it is the one that holds. */
	for (unsigned i = 0; i < g->n; i++)
		if (g->dst[i] == dst) {
			g->val[i] = val ? val : "1";
			return;
		}
	if (g->n < RB_OPTS_GIVEN_MAX) {
		g->val[g->n] = val ? val : "1";
		g->dst[g->n++] = dst;
	}
}

/* Rows a server may take from its client: in a shared table, not local, setting a field. */
static bool exported(const struct rb_opt_table *t, const struct rb_opt *o)
{
	return t->shared && !(o->flags & RB_OPT_LOCAL) && rb_opt_field(t, o);
}

int rb_opts_each_export(const struct rb_opt_table *tables, unsigned n, const struct rb_opts_given *given,
                        int (*add)(void *arg, const char *name, const char *val), void *arg)
{
	for (unsigned t = 0; t < n; t++)
		for (const struct rb_opt *o = tables[t].rows; o->name; o++) {
			void *dst = exported(&tables[t], o) ? rb_opt_field(&tables[t], o) : NULL;
			for (unsigned i = 0; dst && given && i < given->n; i++) {
				int ret = given->dst[i] == dst ? add(arg, o->name, given->val[i]) : 0;
				if (ret)
					return ret;
			}
		}
	return 0;
}

/* Whether this side gave the row, or any row of its group. */
static bool given_here(const struct rb_opt_table *t, const struct rb_opt *o,
                       const struct rb_opts_given *given, unsigned here)
{
	struct rb_opts_given own = *given;
	unsigned group = o->flags >> 8;

	own.n = here;
	if (rb_opts_given(&own, rb_opt_field(t, o)))
		return true;
	for (const struct rb_opt *g = t->rows; group && g->name; g++)
		if (g->flags >> 8 == group && rb_opts_given(&own, rb_opt_field(t, g)))
			return true;
	return false;
}

/* The shared row named name (table in *t), or NULL where this side has none. */
static const struct rb_opt *shared_row(const struct rb_opt_table *tables, unsigned n, const char *name,
                                       const struct rb_opt_table **t)
{
	for (unsigned i = 0; i < n; i++)
		for (const struct rb_opt *r = tables[i].rows; r->name; r++)
			if (!strcmp(r->name, name) && exported(&tables[i], r)) {
				*t = &tables[i];
				return r;
			}
	return NULL;
}

bool rb_opts_takes(const struct rb_opt_table *tables, unsigned n, const struct rb_opts_given *given,
                   unsigned here, const char *name)
{
	const struct rb_opt_table *t = NULL;
	const struct rb_opt *o = shared_row(tables, n, name, &t);

	return !o || !given_here(t, o, given, here);
}

int rb_opts_take(const struct rb_opt_table *tables, unsigned n, struct rb_opts_given *given, unsigned here,
                 const char *name, const char *val)
{
	const struct rb_opt_table *t = NULL;
	const struct rb_opt *o = shared_row(tables, n, name, &t);

	if (!o) {
		rb_usage_err("the client's --%s is not a test option of this side (a different version?)",
		             name);
		return -EINVAL;
	}
	/* Given here too: HELLO's parameters say whether the two agree. */
	if (given_here(t, o, given, here))
		return 0;
	if (apply(o, rb_opt_field(t, o), o->arg ? val : NULL)) {
		rb_usage_err("the client's --%s %s cannot be taken here", name, val);
		return -EINVAL;
	}
	/* Set explicitly, if by the client: a tool's "unless given" default must not undo it. */
	rb_opts_mark_given(given, rb_opt_field(t, o), val);
	return 0;
}

static bool is_number(const char *w)
{
	return *w && strspn(w, "0123456789") == strlen(w);
}

/* Applies row i with its value, or fails with the message printed. */
static int take(const struct flat *fl, int i, const char *arg, struct rb_opts_given *given)
{
	if (apply(fl->rows[i], fl->dst[i], arg))
		return -EINVAL;
	rb_opts_mark_given(given, fl->dst[i], arg);
	return 0;
}

/*
 * One command-line word at argv[*k] that starts with '-': a long option (exact
 * name or perftest alias; "--name=value" or "--name value") or a cluster of short
 * ones ("-bv", "-s64", "-s 64"). Returns 0, 1 + the row of --help or --version when
 * one was given, -EINVAL for a bad value or -ENOENT for an unknown option or a
 * missing value (message printed either way).
 */
static int word(const struct flat *fl, int argc, char **argv, int *k, struct rb_opts_given *given)
{
	const char *w = argv[*k];

	if (w[1] == '-') {
		const char *name = w + 2, *eq = strchr(name, '=');
		size_t len = eq ? (size_t)(eq - name) : strlen(name);
		int i = find_long(fl, name, len);
		const struct rb_opt *o;

		if (i < 0) {
			unknown_long(fl, name, len);
			return -ENOENT;
		}
		o = fl->rows[i];
		if (!o->arg && eq) {
			rb_usage_err("option --%s takes no value (given '%s')", o->name, eq + 1);
			return -EINVAL;
		}
		if (o->type == RB_OPT_HELP || o->type == RB_OPT_VERSION)
			return i + 1;
		if (o->arg && !eq && (o->flags & RB_OPT_OPTARG))
			return take(fl, i, *k + 1 < argc && is_number(argv[*k + 1]) ? argv[++*k] : NULL,
			            given);
		if (o->arg && !eq && *k + 1 >= argc) {
			rb_usage_err("option --%s needs a value", o->name);
			return -ENOENT;
		}
		return take(fl, i, o->arg ? (eq ? eq + 1 : argv[++*k]) : NULL, given);
	}
	for (const char *c = w + 1; *c; c++) {
		int i = find_short(fl, (unsigned char)*c);
		const struct rb_opt *o;

		if (i < 0) {
			if (!dialect_hint(fl, c, 1, true))
				rb_usage_err("unknown option -%c", *c);
			return -ENOENT;
		}
		o = fl->rows[i];
		if (o->type == RB_OPT_HELP || o->type == RB_OPT_VERSION)
			return i + 1;
		if (!o->arg) {
			if (take(fl, i, NULL, given))
				return -EINVAL;
			continue;
		}
		/* The rest of the word is the value ("-s64"), else the next word. */
		if (c[1])
			return take(fl, i, c + 1, given);
		if (*k + 1 >= argc) {
			rb_usage_err("option -%c needs a value", *c);
			return -ENOENT;
		}
		return take(fl, i, argv[++*k], given);
	}
	return 0;
}

int rb_opts_parse(const struct rb_opt_table *tables, unsigned nt, int argc, char **argv, const char *usage,
                  struct rb_opts_given *given)
{
	struct flat fl = {0};
	char **pos = calloc((size_t)argc + 1, sizeof(*pos));
	int ret = RB_OPTS_ERROR, npos = 0, k;

	if (!pos || flatten(tables, nt, &fl)) {
		rb_err("out of memory parsing options");
		goto out;
	}
	/* Options and positional words may come in any order, as with GNU getopt; "--" ends options. */
	for (k = 1; k < argc; k++) {
		int r;

		if (!strcmp(argv[k], "--")) {
			while (++k < argc)
				pos[npos++] = argv[k];
			break;
		}
		if (argv[k][0] != '-' || !argv[k][1]) {
			pos[npos++] = argv[k];
			continue;
		}
		r = word(&fl, argc, argv, &k, given);
		if (r > 0) {
			if (fl.rows[r - 1]->type == RB_OPT_VERSION) {
				ret = RB_OPTS_VERSION;
			} else {
				rb_opts_help(stdout, tables, nt, usage);
				ret = RB_OPTS_HELP;
			}
			goto out;
		}
		if (r == -ENOENT)
			fprintf(stderr, "usage: %s\nTry '%s --help' for more.\n", usage, rb_prog());
		if (r)
			goto out;
	}
	/* Permuted as GNU getopt does: the option words first, then the positional ones in order. */
	{
		int w = 1;
		for (int i = 1; i < argc; i++) {
			bool positional = false;
			for (int j = 0; j < npos && !positional; j++)
				positional = argv[i] == pos[j];
			if (!positional)
				argv[w++] = argv[i];
		}
		memcpy(argv + w, pos, (size_t)npos * sizeof(*pos));
	}
	ret = argc - npos;
out:
	free(pos);
	free(fl.rows);
	free(fl.dst);
	return ret;
}

void rb_opts_help(FILE *f, const struct rb_opt_table *tables, unsigned n, const char *usage)
{
	fprintf(f, "usage: %s\n", usage);
	for (unsigned t = 0; t < n; t++) {
		/* A table of the title before it continues that section (measure's -n, -D). */
		if (!t || strcmp(tables[t].title, tables[t - 1].title))
			fprintf(f, "\n%s:\n", tables[t].title);
		for (const struct rb_opt *o = tables[t].rows; o->name; o++) {
			char left[64];
			int w;

			bool opt = o->flags & RB_OPT_OPTARG;
			const char *eq = o->arg ? opt ? "[=" : "=" : "", *val = o->arg ? o->arg : "";

			if (o->key)
				w = snprintf(left, sizeof(left), "  -%c, --%s%s%s%s", o->key, o->name, eq,
				             val, opt ? "]" : "");
			else
				w = snprintf(left, sizeof(left), "      --%s%s%s%s", o->name, eq, val,
				             opt ? "]" : "");
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
    {.name = "help", .key = 'h', .type = RB_OPT_HELP, .help = "show this help and exit"},
    {.name = "version",
     .key = 'V',
     .type = RB_OPT_VERSION,
     .help = "show the version, source revision and rdma-core, and exit"},
    {.name = "verbose",
     .key = 'v',
     .type = RB_OPT_FN,
     .help = "more diagnostics on stderr",
     .fn = set_verbose},
    {0},
};

struct rb_opt_table rb_common_opts(void)
{
	return (struct rb_opt_table){"General", common_rows, NULL, false, NULL};
}

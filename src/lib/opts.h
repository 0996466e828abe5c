/*
 * Option rows. Each module that owns settings exports a table of rows that write
 * straight into its own small struct; a tool splices the tables it needs and
 * hands them to rb_opts_parse(). The same rows produce --help.
 */
#ifndef RB_OPTS_H
#define RB_OPTS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum rb_opt_type {
	RB_OPT_FLAG,   /* bool *dst = true */
	RB_OPT_U32,    /* uint32_t *dst in [min, max], K/M/G suffixes allowed */
	RB_OPT_U64,    /* uint64_t *dst in [min, max], K/M/G suffixes allowed */
	RB_OPT_DOUBLE, /* double *dst in [min, max] */
	RB_OPT_STR,    /* const char **dst = arg */
	RB_OPT_FN,     /* fn(arg, dst) returns 0 or -errno */
	RB_OPT_IGNORE, /* accepted for perftest compatibility, no effect */
	RB_OPT_HELP,   /* prints help, parse returns RB_OPTS_HELP */
};

struct rb_opt {
	const char *name; /* long name, without "--" */
	int key;          /* short letter, or 0 for long-only */
	enum rb_opt_type type;
	void *dst;
	const char *arg; /* argument name in --help; NULL: takes no argument */
	const char *help;
	uint64_t min, max;
	int (*fn)(const char *arg, void *dst);
	const char *allowed; /* what the error message says is allowed */
};

struct rb_opt_table {
	const char *title;
	const struct rb_opt *rows; /* ends with a row whose name is NULL */
};

#define RB_OPTS_HELP  (-1)
#define RB_OPTS_ERROR (-2)

/* Which options the command line set, by destination: "given" beats "default". */
#define RB_OPTS_GIVEN_MAX 96
struct rb_opts_given {
	unsigned n;
	const void *dst[RB_OPTS_GIVEN_MAX];
};
bool rb_opts_given(const struct rb_opts_given *g, const void *dst);

/*
 * Parses argv against the NULL-terminated list of tables. Returns the index of
 * the first positional argument, RB_OPTS_HELP after printing help to stdout, or
 * RB_OPTS_ERROR after printing one line naming the option, the value and what is
 * allowed. Tables whose dst are shared are fine: the last occurrence wins.
 */
int rb_opts_parse(const struct rb_opt_table *const *tables, int argc, char **argv, const char *usage,
                  struct rb_opts_given *given);
void rb_opts_help(FILE *f, const struct rb_opt_table *const *tables, const char *usage);

/* Options every tool has: --help, -v. */
const struct rb_opt_table *rb_common_opts(void);

#endif

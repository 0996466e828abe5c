/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Option rows. Each module that owns settings describes them once, as constant
 * rows naming a field of its own small struct by offsetof() (the way FFmpeg's
 * AVOption tables do); a table pairs those rows with the struct they fill. A tool
 * lists the tables it needs, its own first, and hands the list to rb_opts_parse():
 * no row is copied, spliced or kept in writable static storage. The same rows
 * produce --help.
 */
#ifndef RB_OPTS_H
#define RB_OPTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum rb_opt_type {
	RB_OPT_FLAG,    /* bool *dst = true */
	RB_OPT_U32,     /* uint32_t *dst in [min, max], K/M/G suffixes allowed */
	RB_OPT_U64,     /* uint64_t *dst in [min, max], K/M/G suffixes allowed */
	RB_OPT_DOUBLE,  /* double *dst in [min, max] */
	RB_OPT_STR,     /* const char **dst = arg */
	RB_OPT_FN,      /* fn(arg, dst) returns 0 or -errno */
	RB_OPT_IGNORE,  /* accepted for perftest compatibility, no effect */
	RB_OPT_HELP,    /* prints help, parse returns RB_OPTS_HELP */
	RB_OPT_VERSION, /* parse returns RB_OPTS_VERSION: the caller prints its version */
};

struct rb_opt {
	const char *name; /* long name, without "--" */
	int key;          /* short letter, or 0 for long-only */
	enum rb_opt_type type;
	size_t off;      /* the field it sets: offsetof(its struct, field); unused by HELP, IGNORE */
	const char *arg; /* argument name in --help; NULL: takes no argument */
	const char *help;
	uint64_t min, max;
	int (*fn)(const char *arg, void *dst); /* dst: the field */
	const char *allowed;                   /* what the error message says is allowed */
	unsigned flags;                        /* RB_OPT_LOCAL, RB_OPT_GROUP(n), RB_OPT_ENV_NCCL */
	/* NCCL's variable that sets the option's default, read as the option's value (rb_opts_env). */
	const char *env;
};

/*
 * In a shared table (a test parameter the server takes from its client, as an iperf3
 * server does): RB_OPT_LOCAL marks a row that stays this side's own (an output file,
 * a local socket option). Rows of one RB_OPT_GROUP(n) are one choice (-s, --sizes,
 * -a; -n or -D): when the server gave any of them, it takes none from the client.
 */
#define RB_OPT_LOCAL 1u
/*
 * RB_OPT_OPTARG: the value may be left out ("--use-cuda" or "--use-cuda=1"); the
 * function then gets NULL. A separate next word is the value only when it is a
 * number ("--use_cuda 1", as perftest users type it).
 */
#define RB_OPT_OPTARG   2u
#define RB_OPT_GROUP(n) ((unsigned)(n) << 8)
/*
 * RB_OPT_ENV_NCCL: the row's variable is NCCL's setting of NCCL's protocol (a QP's
 * service level): only a tool that runs that protocol takes it (rb_opts_env's nccl).
 * A variable without it (which devices to use) applies wherever the row is.
 */
#define RB_OPT_ENV_NCCL 4u

/*
 * An option of a dialect that no row takes, and what to use instead: a script written
 * for that tool learns the equivalent from the error, not from the source. A short
 * option is its character as a string.
 */
struct rb_opt_hint {
	const char *name, *instead;
};

/* A dialect's spelling of one of our options: a long alias, or (alias NULL) a letter. */
struct rb_opt_alias {
	const char *alias;
	int key;
	const char *name; /* our option's long name: the alias is known only where a row has it */
};

/*
 * Another tool's command-line language, as data (perftest's for the verbs tools,
 * iperf3's for socket_bw): its spellings of our options, its options we lack and what
 * to use instead, and a rewrite of its words that are no option of ours. A table names
 * the dialect its rows speak; every table's dialect applies to the whole command line.
 */
struct rb_dialect {
	const char *name;                   /* in its hints' errors: "perftest's option" */
	const struct rb_opt_alias *aliases; /* ends with a NULL name (or NULL) */
	const struct rb_opt_hint *hints;    /* ends with a NULL name (or NULL) */
	/* Rewrites argv in place before parsing: -1 to go on, else the exit code (said). Optional. */
	int (*rewrite)(int *argc, char **argv);
};

struct rb_opt_table {
	const char *title;         /* --help's section; tables of one title in a row are one section */
	const struct rb_opt *rows; /* ends with a row whose name is NULL */
	void *base;                /* the struct the rows' offsets point into */
	bool shared; /* test parameters: a server takes those it was not given from the client */
	const struct rb_dialect *dialect; /* the dialect its rows speak, or NULL */
};

#define RB_OPTS_HELP    (-1)
#define RB_OPTS_ERROR   (-2)
#define RB_OPTS_VERSION (-3)

/* Which options the command line set, by the field they set: "given" beats "default". */
#define RB_OPTS_GIVEN_MAX 96
struct rb_opts_given {
	unsigned n;
	const void *dst[RB_OPTS_GIVEN_MAX];
	const char *val[RB_OPTS_GIVEN_MAX]; /* as typed; "1" for a flag */
};
bool rb_opts_given(const struct rb_opts_given *g, const void *dst);

/*
 * Client: add(arg, long name, value) for each shared option the user gave (what a
 * server may take from it); the first nonzero return of add ends it and is returned.
 */
int rb_opts_each_export(const struct rb_opt_table *tables, unsigned n, const struct rb_opts_given *given,
                        int (*add)(void *arg, const char *name, const char *val), void *arg);
/*
 * Server: the client's value for the shared option name, applied unless this side
 * gave it or any row of its group (the first `here` entries of given are this
 * side's own). A name that is no shared option here, or a value this side refuses,
 * is a usage error naming the client's option. What it takes counts as given from
 * then on. Returns 0 or -EINVAL.
 */
int rb_opts_take(const struct rb_opt_table *tables, unsigned n, struct rb_opts_given *given, unsigned here,
                 const char *name, const char *val);
/* Whether rb_opts_take would act on name: a shared option this side did not give, or no option of this side.
 */
bool rb_opts_takes(const struct rb_opt_table *tables, unsigned n, const struct rb_opts_given *given,
                   unsigned here, const char *name);

/*
 * Parses argv against n tables. Returns the index of the first positional
 * argument, RB_OPTS_HELP after printing help to stdout, RB_OPTS_VERSION (--version:
 * the caller prints it, which the options know nothing of), or RB_OPTS_ERROR after
 * printing one line naming the option, the value and what is allowed. An option
 * given twice: the last occurrence wins.
 */
int rb_opts_parse(const struct rb_opt_table *tables, unsigned n, int argc, char **argv, const char *usage,
                  struct rb_opts_given *given);
void rb_opts_help(FILE *f, const struct rb_opt_table *tables, unsigned n, const char *usage);

/*
 * NCCL's environment as option defaults: for each row naming a variable (its env),
 * set and not empty, the value goes through the row's own parser, the way the option's
 * argument would (a flag takes an integer: 0 off, else on). Call it after the
 * defaults and before rb_opts_parse, which then overrides what the command line
 * gives. nccl: also the variables of rows marked RB_OPT_ENV_NCCL. A value the parser
 * refuses is kept as the error (bad), said by rb_opts_env_settle only if the command
 * line did not give the option (--help and --version never reach it).
 */
#define RB_OPTS_ENV_MAX 32
struct rb_opts_env {
	unsigned n;
	const void *dst[RB_OPTS_ENV_MAX]; /* the field each set */
	const char *val[RB_OPTS_ENV_MAX]; /* the option's value as given: "1" for a flag set on, NULL off */
	char set[RB_OPTS_ENV_MAX][80];    /* "NCCL_IB_SL=3", as found */
	const void *bad_dst;              /* the first refused value's field (NULL: none) */
	char bad[200];                    /* and its message */
};
void rb_opts_env(const struct rb_opt_table *tables, unsigned n, bool nccl, struct rb_opts_env *env);
/*
 * After the command line: forgets the variables whose option it gave (the flag won).
 * Returns 0, or -EINVAL after saying the refused value of a variable the command line
 * did not override (naming the variable, its value, the option it is the default of
 * and what is allowed).
 */
int rb_opts_env_settle(struct rb_opts_env *env, const struct rb_opts_given *given);
/*
 * The variables left count as given from now on: where NCCL's settings are the run's
 * (a tool that runs its protocol), a client sends a shared one to its server like a
 * flag, and a server's own meets a client's. A flag the environment turns off is not
 * given (a client's may turn it on).
 */
void rb_opts_env_give(const struct rb_opts_env *env, struct rb_opts_given *given);

/* Options every tool has: --help, --version, -v. */
struct rb_opt_table rb_common_opts(void);

#endif

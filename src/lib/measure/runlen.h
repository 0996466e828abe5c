/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * How long a sweep runs each size: -n, -D or --run-infinitely, one choice. Each
 * tool's --help says what an iteration is there and its default; the rows are one.
 * --warmup is not among them: it is the round trips a ping-pong runs unmeasured,
 * which rc_write_bw has none of and socket_bw takes only with --ping-pong, and each
 * tool lists it where its --help always had it (fifo_pingpong after --window,
 * socket_bw after --ping-pong).
 */
#ifndef RB_RUNLEN_H
#define RB_RUNLEN_H

#include "base/base.h"
#include "sizes.h"

#include <stdbool.h>
#include <stdint.h>

#define RB_RUNLEN_ITERS_MAX (1u << 30) /* -n's bound unless the tool names another */

/* A tool's words for its rows, and -n's bound. */
struct rb_runlen_help {
	const char *iters;    /* -n: what one iteration is here, and the default */
	uint32_t iters_max;   /* 0: RB_RUNLEN_ITERS_MAX */
	const char *duration; /* -D; NULL: "run each size for SEC seconds instead of -n" */
	const char *forever;  /* --run-infinitely; NULL: the tool has none */
};

struct rb_runlen_opts {
	uint32_t iters;        /* -n; once resolved, 0 with -D or --run-infinitely */
	double duration_s;     /* -D; 0 without */
	bool forever;          /* --run-infinitely: one size until a stop signal */
	struct rb_opt rows[4]; /* the table, with the tool's help */
};

/*
 * -n, -D and, where the tool has it, --run-infinitely: rows of one RB_OPT_GROUP (a
 * server given any of them takes none from its client). The table is titled "Test"
 * and goes just before the tool's own "Test" table, which continues its section.
 */
struct rb_opt_table rb_runlen_opt_table(struct rb_runlen_opts *o, const struct rb_runlen_help *h);

/*
 * -n and -D exclude each other; with neither, iters = dflt; with -D, iters = 0.
 * --run-infinitely takes neither and one size (s); iters stays 0. Returns 0 or
 * -EINVAL (message printed).
 */
int rb_runlen_resolve(struct rb_runlen_opts *o, const struct rb_sizes *s, uint32_t dflt);

#endif

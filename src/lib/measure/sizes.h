/* SPDX-License-Identifier: BSD-2-Clause */
/* Message-size sweeps: lists (64,4K,1M), power-of-two ranges (2:8M), -a. */
#ifndef RB_SIZES_H
#define RB_SIZES_H

#include "base/base.h"

#include <stdbool.h>
#include <stdint.h>

#define RB_SIZES_MAX 64
#define RB_SIZE_MIN  1
#define RB_SIZE_MAX  (1ULL << 30) /* largest message a sweep may ask for */

struct rb_sizes {
	unsigned n;
	uint64_t v[RB_SIZES_MAX];
};

/* "64,4K,1M": each in [RB_SIZE_MIN, RB_SIZE_MAX]; duplicates kept in order. */
int rb_sizes_parse_list(const char *s, struct rb_sizes *out);
/* "LO:HI": every power of two from LO to HI, both powers of two, LO <= HI. */
int rb_sizes_parse_range(const char *s, struct rb_sizes *out);
/* perftest's -a: 2 B .. 8 MiB. */
void rb_sizes_all(struct rb_sizes *out);
uint64_t rb_sizes_max(const struct rb_sizes *s);
/* "64,4K,1M" back again; buf always NUL-terminated. */
const char *rb_sizes_fmt(const struct rb_sizes *s, char *buf, unsigned len);

/* -s / --sizes / -a, shared by every sweeping tool. */
struct rb_size_opts {
	const char *list, *range;
	bool all;
	struct rb_opt rows[4]; /* the table, its -s line naming the tool's default: */
	char size_help[96];
};

/*
 * -s, --sizes, -a: the first table of every sweeping tool. dflt_help says in
 * --help what -s is without any of them ("64K"; "1M, 8 with --ping-pong").
 */
struct rb_opt_table rb_size_opt_table(struct rb_size_opts *o, const char *dflt_help);
/* Resolves the options (one of them at most) into sizes; dflt when none given. */
int rb_size_opts_resolve(const struct rb_size_opts *o, uint64_t dflt, struct rb_sizes *out);

/* -D's parser (RB_OPT_FN, double *dst): seconds above 0, up to a day; "-D 0" is refused. */
int rb_parse_duration(const char *arg, void *dst);
#define RB_DURATION_ALLOWED "a number of seconds above 0, up to 86400"
/* --interval's parser: 0.01 s to a day (each interval costs a row and a histogram reset). */
int rb_parse_interval(const char *arg, void *dst);
#define RB_INTERVAL_ALLOWED "a number of seconds from 0.01 to 86400"

struct rb_hello;
/*
 * Starts a HELLO for a sweep: tool, version, sizes (and their count: a long list is
 * truncated in the text), iterations and duration, the parameters every tool shares.
 */
void rb_hello_sweep(struct rb_hello *h, const char *tool, const struct rb_sizes *s, uint32_t iters,
                    double duration_s);

#endif

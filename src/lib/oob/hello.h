/* SPDX-License-Identifier: BSD-2-Clause */
/* HELLO: the tool, its version and the parameters both sides must agree on. */
#ifndef RB_HELLO_H
#define RB_HELLO_H

#include "base/base.h"
#include "wire.h"

struct rb_param {
	char key[RB_WIRE_KEY_LEN];
	char val[RB_WIRE_VAL_LEN];
};

struct rb_hello {
	char tool[RB_WIRE_KEY_LEN];
	char version[RB_WIRE_KEY_LEN];
	char host[RB_WIRE_HOST_LEN]; /* the sender's hostname, for the documents; never compared */
	unsigned nparams;
	struct rb_param params[RB_WIRE_MAX_PARAMS];
	/* The client's test options as given (long name, value): a server takes those it was not given. */
	unsigned nargs;
	struct rb_param args[RB_WIRE_MAX_ARGS];
};

/* The payload; the decoder returns 0 or -EPROTO. */
void rb_hello_encode(struct rb_wbuf *w, const struct rb_hello *h);
int rb_hello_decode(const uint8_t *p, size_t len, struct rb_hello *h);
/* Parameters: add, find, compare. */
int rb_hello_add(struct rb_hello *h, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
const char *rb_hello_get(const struct rb_hello *h, const char *key);
/* One of the client's given options; -E2BIG when there is no room or it is too long. */
int rb_hello_arg_add(struct rb_hello *h, const char *name, const char *val);
/*
 * Compares every parameter of local against remote (keys missing on one side
 * count). For each mismatch calls report(ctx, key, local, remote). Returns the number
 * of mismatches.
 */
unsigned rb_hello_compare(const struct rb_hello *local, const struct rb_hello *remote,
                          void (*report)(void *ctx, const char *key, const char *l, const char *r),
                          void *ctx);

/* Client: the shared options the user gave, as (long name, value) arguments of its HELLO. */
int rb_opts_export(const struct rb_opt_table *tables, unsigned n, const struct rb_opts_given *given,
                   struct rb_hello *h);
/*
 * Server: the client's HELLO arguments applied with rb_opts_take (see opts.h) to
 * every shared option this side was not given. Returns 0 or -EINVAL.
 */
int rb_opts_adopt(const struct rb_opt_table *tables, unsigned n, struct rb_opts_given *given,
                  const struct rb_hello *peer);
/* Whether rb_opts_adopt would change anything: some argument of peer's is one rb_opts_takes. */
bool rb_opts_adopt_takes(const struct rb_opt_table *tables, unsigned n, const struct rb_opts_given *given,
                         const struct rb_hello *peer);

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/* What the option files share (not for other rooms): opts.c parses, optenv.c reads NCCL's environment. */
#ifndef RB_OPTS_PRIV_H
#define RB_OPTS_PRIV_H

#include "opts.h"

/* The field a row sets, in its table's struct. */
void *rb_opt_field(const struct rb_opt_table *t, const struct rb_opt *o);
/* The value into the row's field, as its parser reads it: 0 or -errno (not said). */
int rb_opt_store(const struct rb_opt *o, void *dst, const char *arg);
/* What the row's error says is allowed (a static buffer: one call per message). */
const char *rb_opt_allowed(const struct rb_opt *o);
/* The field counts as given from now on, with val as typed. */
void rb_opts_mark_given(struct rb_opts_given *g, const void *dst, const char *val);

#endif

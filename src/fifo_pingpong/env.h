/* SPDX-License-Identifier: BSD-2-Clause */
/* fifo_pingpong's NCCL_IB_* defaults (env.c): applied at defaults, checked against the flags. */
#ifndef RB_FIFO_PINGPONG_ENV_H
#define RB_FIFO_PINGPONG_ENV_H

#include "fp.h"

/* Defaults from the environment, as NCCL takes them; what was applied is listed in f->env. */
void fp_env_defaults(struct fp *f);
/*
 * After parsing: a bad variable is exit 2; one whose option was given is not applied
 * after all, and one that is counts as given (a client sends it to its server).
 */
int fp_env_check(struct fp *f, struct rb_run *r);

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/* --reg-per-iter's kind of step (reg.c). */
#ifndef RB_RC_WRITE_BW_REG_H
#define RB_RC_WRITE_BW_REG_H

#include "types.h"

struct bw_engine;

/* A --reg-per-iter step, the source MR made anew for every iteration. */
int bw_run_reg_per_iter(struct bw_engine *e, struct bw_result *res);

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/* --verify's kind of step (verify.c). */
#ifndef RB_RC_WRITE_BW_VERIFY_H
#define RB_RC_WRITE_BW_VERIFY_H

#include "types.h"

struct bw_engine;

/* A --verify step, windows in lockstep. */
int bw_run_verified(struct bw_engine *e, struct bw_result *res);

#endif

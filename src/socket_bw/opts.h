/* SPDX-License-Identifier: BSD-2-Clause */
/* socket_bw's options (opts.c): defaults, tables, the checks once parsed, a run too long. */
#ifndef RB_SOCKET_BW_OPTS_H
#define RB_SOCKET_BW_OPTS_H

#include "socket_bw.h"

#include "base/base.h"
#include "measure/measure.h"

#include <stdbool.h>

/* -n, -D and --run-infinitely's help in socket_bw's words (the run length's table). */
extern const struct rb_runlen_help sock_runlen_help;

void sock_opts_default(struct sock_opts *o);
/* socket_bw's own options, and iperf3's spellings of them (-s, -b, -n, -D, -V and -v excepted). */
struct rb_opt_table sock_opt_table(struct sock_opts *o);
struct rb_opt_table sock_iperf3_opt_table(struct sock_opts *o);
/* After parsing: what the options imply, or a usage error (said); 0 or -EINVAL. */
int sock_opts_finish(struct sock_opts *o, bool warmup_given);
/* -n or -a with a size whose run would take hours: warned, true (the run goes on). */
bool sock_huge_run_warning(const struct sock_opts *o, const struct rb_opts_given *g);

#endif

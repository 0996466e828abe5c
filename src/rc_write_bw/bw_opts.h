/* SPDX-License-Identifier: BSD-2-Clause */
/* rc_write_bw's options: the struct they fill, their rows, defaults and cross-option checks. */
#ifndef RB_RC_WRITE_BW_BW_OPTS_H
#define RB_RC_WRITE_BW_BW_OPTS_H

#include "types.h"

#include "base/base.h"
#include "measure/measure.h"
#include "verbs/verbs.h"

#include <stdbool.h>
#include <stdint.h>

#define DEFAULT_ITERS       5000
#define VERIFY_WINDOW_BYTES (64u << 20) /* target memory per QP in --verify */

struct bw_opts {
	struct rb_size_opts size;
	struct rb_runlen_opts len;
	uint32_t tx_depth, rx_depth, qps, post_list, cq_mod, inline_bytes;
	bool bidir, imm, verify, cpu_util;
	bool reversed; /* perftest's --reversed: the server sends, the client receives */
	bool no_peak, report_both, reg_per_iter, old_post;
	bool mr_per_qp; /* --mr_per_qp: a buffer and MR of its own per QP, as perftest's */
	uint32_t timeout_s;
	uint32_t threads;         /* --threads: posting threads, QPs spread over them */
	struct rb_pace_opts pace; /* --rate_limit, --rate_units, --burst_size */
	struct rb_sizes sizes;
};

void bw_opts_default(struct bw_opts *o);
/* -n, -D and --run-infinitely (measure/runlen.h), in this tool's words. */
extern const struct rb_runlen_help bw_runlen_help;
/* The "Test" rows (a shared table: a server takes those it was not given from its client). */
struct rb_opt_table bw_opt_table(struct bw_opts *o);
/* Cross-option checks; one line naming the values, -EINVAL (exit 2). */
int bw_opts_finish(struct bw_opts *o, bool client);

#endif

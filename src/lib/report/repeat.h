/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * --repeat N: each size measured N times, as independent runs. Every row of such a
 * run carries `repeat` ("1".."N" for a repeat's own row, "all" for the size's
 * summary) and `repeats` (N). The summary row holds, in every numeric field, the
 * median of the repeats (each column its own: the row is not one repeat's), the sum
 * for a port counter's delta (ctr_*), and for each headline metric K in it (bw_avg_gbps,
 * msg_rate_mpps, lat_p50_us, lat_p99_us) K_p5, K_p95, K_min, K_max and K_cv_pct
 * (spread.h; empty in the repeats' own rows), and `unstable`: the CV of the primary
 * metric (bw_avg_gbps, else lat_p50_us) is above --max-cv.
 */
#ifndef RB_REPEAT_H
#define RB_REPEAT_H

#include "base/base.h"

#include <stdbool.h>
#include <stdint.h>

#define RB_REPEAT_MAX     100
#define RB_MAX_CV_DEFAULT 5.0 /* percent: unstable above it when --max-cv is not given */

struct rb_repeat_opts {
	uint32_t n; /* --repeat: 1 = one measurement per size, no repeat columns */
};

/* The spread columns of a bandwidth and of a latency row, for the documents' schema (NULL-terminated). */
extern const struct rb_col rb_repeat_bw_cols[10];
extern const struct rb_col rb_repeat_lat_cols[10];

void rb_repeat_opts_default(struct rb_repeat_opts *o);
/* --repeat: a test parameter the server takes from its client (--max-cv is a gate, gate.h). */
struct rb_opt_table rb_repeat_opt_table(struct rb_repeat_opts *o);

/* Appends the repeat columns to repeat k (1-based) of n's own row. */
void rb_repeat_mark(struct rb_row *row, unsigned k, unsigned n);
/*
 * The summary of rows[0..n), each marked: the first row's strings and flags, every
 * number the median, the spread columns of the headline metrics, `unstable`. The
 * primary metric's P5, P95 and CV get text-table labels.
 */
void rb_repeat_summary(const struct rb_row *rows, unsigned n, double max_cv_pct, struct rb_row *out);

#endif

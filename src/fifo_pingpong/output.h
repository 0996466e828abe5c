/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fifo_pingpong's output (output.c): the header and the rows. main.c writes a size's
 * row; an interval's comes from the ping-pong step through f->interval_row.
 */
#ifndef RB_FIFO_PINGPONG_OUTPUT_H
#define RB_FIFO_PINGPONG_OUTPUT_H

#include "fp.h"

/* The documents' columns: runs of the rows' own and the library's, ending with an empty run. */
extern const struct rb_cols fp_columns[];

void fp_print_header(const struct fp *f, const struct rb_run *r);
/* A ping-pong size's row, or one interval's. */
void fp_lat_row(struct rb_row *r, const struct fp *f, uint64_t size, const struct rb_pp_result *res);
/* A bandwidth size's row; the sender's own figures are empty on the receiver. */
void fp_bw_row(struct rb_row *r, const struct fp *f, uint64_t size, const struct fp_bw *b, bool client);
/* --interval: the row of one interval of the size in progress, into the documents (arg: the fp). */
int fp_interval_row(void *arg, const struct rb_pp_result *res, double from_s, double to_s);

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * socket_bw's rows (rows.c): the documents' columns (rdmabench-documents(7)), a
 * bandwidth size's row, its streams' rows (--streams), a ping-pong size's, and the
 * interval rows the steps write through struct sock_run's callbacks.
 */
#ifndef RB_SOCKET_BW_ROWS_H
#define RB_SOCKET_BW_ROWS_H

#include "bw.h"
#include "socket_bw.h"

/* The columns, ending with an empty run (struct rb_tool_out's). */
extern const struct rb_cols sock_columns[];

/* A bandwidth size's row: both sides' agreed figures, on this side's clock. */
void sock_bw_row(struct rb_row *r, const struct sock_run *run, uint64_t size, const struct bw_step *s);
/* --streams: each stream's row, written into the step before the size's own. */
void sock_stream_rows(const struct sock_run *run, uint64_t size, const struct bw_step *s);
/* A ping-pong size's row; tcp NULL: none (an interval's). */
void sock_pp_row(struct rb_row *r, const struct sock_run *run, uint64_t size, const struct rb_pp_result *res,
                 const struct sock_tcp *tcp);
/* struct sock_run's bw_interval_row and pp_interval_row (arg: the sock_run). */
void sock_bw_interval_row(void *arg, uint64_t size, uint64_t msgs, uint64_t bytes, uint64_t from_ns,
                          uint64_t to_ns);
int sock_pp_interval_row(void *arg, uint64_t size, const struct rb_pp_result *res, double from_s,
                         double to_s);

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/* rc_write_lat's rows (rows.c): the documents' columns, and a size's or an interval's row. */
#ifndef RB_RC_WRITE_LAT_ROWS_H
#define RB_RC_WRITE_LAT_ROWS_H

#include "lat.h"

/* The documents' columns: runs of the rows' own and the library's, ending with an empty run. */
extern const struct rb_cols lat_columns[];

/*
 * A size's row (total) or the interval's in progress; idle: --load's idle measurement
 * of the size (NULL: none), fig the load's figures.
 */
void lat_row(struct rb_row *r, const struct lat *l, uint64_t size, const struct rb_pp_result *res,
             const struct rb_pp_result *idle, const struct rb_stepend *fig, bool total);

#endif

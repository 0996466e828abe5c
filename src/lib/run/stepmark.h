/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Where a size's measured time began on the wall clock, for a parent that started this
 * process and reads its document (--victim's rank, fabric/victim.c): the rows' t_start_s
 * and t_end_s count from that start, and the parent puts them on its own time line.
 *
 * RB_STEP_MARK_FD=N (a pipe's write end this process was started with): the ping-pong
 * engine writes one line "SIZE SEC.NSEC" (CLOCK_REALTIME) to it as each size's first
 * measured iteration begins. Nothing without it; a descriptor that is not a pipe is
 * ignored with a warning. The variable is consumed (not passed on to children).
 */
#ifndef RB_STEPMARK_H
#define RB_STEPMARK_H

#include <stdbool.h>
#include <stdint.h>

void rb_step_mark(uint64_t size);

/*
 * The parent's side: one mark line parsed. False for anything but "SIZE SEC.NSEC"
 * with SIZE >= 1 and a time after 2001 and before 2100.
 */
bool rb_step_mark_parse(const char *line, uint64_t *size, double *unix_s);

#endif

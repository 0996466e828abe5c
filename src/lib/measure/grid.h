/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * --interval's grid: an interval row ends at the first look at or after its mark,
 * and the next mark is the next multiple of the interval after that end, counted
 * from the step's start. Never the end plus the interval: a row a host made late
 * would push every later row as late, and the rows would drift off iperf3's grid.
 * Pure.
 */
#ifndef RB_GRID_H
#define RB_GRID_H

#include <stdint.h>

/* The first multiple of every (> 0) after `to`, both in ns from the step's start. */
uint64_t rb_grid_next(uint64_t every, uint64_t to);

#endif

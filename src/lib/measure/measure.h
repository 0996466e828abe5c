/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The measure room's face: the one header other rooms and the tools include.
 * Owns: The measurement arithmetic: sizes and sweeps, how long each size runs (runlen),
 * bandwidth and rates (stats), latency statistics and the histogram, the spread of repeats, the message-time
 * model of a sweep, the link share (wirerate), the send-queue planner, socket chunking, verify patterns, the
 * pass/fail gates, the all-pairs schedule, the traffic patterns (traffic), --interval's grid, two hosts'
 * clocks on one time line (clockfit).
 *
 * Uses: base, oob (a sweep travels in HELLO).
 */
#ifndef RB_MEASURE_FACE_H
#define RB_MEASURE_FACE_H

#include "chunks.h"
#include "clockfit.h"
#include "gate.h"
#include "grid.h"
#include "hist.h"
#include "latency.h"
#include "model.h"
#include "pattern.h"
#include "runlen.h"
#include "schedule.h"
#include "traffic.h"
#include "pace.h"
#include "sendq.h"
#include "sizes.h"
#include "spread.h"
#include "stats.h"
#include "wirerate.h"

#endif

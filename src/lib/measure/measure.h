/*
 * The measure room's face: the one header other rooms and the tools include.
 * Owns: The measurement arithmetic: sizes and sweeps, how long each size runs (runlen),
 * bandwidth and rates (stats), latency statistics and the histogram, the send-queue
 * planner, socket chunking, verify patterns, the pass/fail gates, the all-pairs schedule.
 *
 * Uses: base, oob (a sweep travels in HELLO).
 */
#ifndef RB_MEASURE_FACE_H
#define RB_MEASURE_FACE_H

#include "chunks.h"
#include "gate.h"
#include "hist.h"
#include "latency.h"
#include "pattern.h"
#include "runlen.h"
#include "schedule.h"
#include "sendq.h"
#include "sizes.h"
#include "stats.h"

#endif

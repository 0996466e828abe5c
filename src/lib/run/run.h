/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The run room's face: the one header other rooms and the tools include.
 * Owns: The run driver: the life of one two-sided run for every tool (driver), a server's
 * own limits, the verbs half of a tool (verbs_tool), the ping-pong engine, the bandwidth engine (bwstep),
 * the sweep's progress line, perftest's options and dialect, the step's timed window, both sides'
 * event stamps on one clock (stamps); a layer above
 * (struct rb_run_layer) brings options of its own.
 *
 * Uses: every room below it: base, host, gpu, oob, measure, verbs, report.
 */
#ifndef RB_RUN_FACE_H
#define RB_RUN_FACE_H

#include "bwstep.h"
#include "clocksync.h"
#include "crew.h"
#include "driver.h"
#include "perftest.h"
#include "pingpong.h"
#include "serve_limits.h"
#include "stamps.h"
#include "stepmark.h"
#include "verbs_tool.h"
#include "window.h"

#endif

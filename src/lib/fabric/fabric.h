/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The fabric room's face: the one header other rooms and the tools include.
 * Owns: The top: a tool's main (rb_main: the driver, or with --all-pairs the job), the
 * --all-pairs job (job) and its options (allpairs: the driver's layer), its coordinator, rails, launcher
 * binding (PMIx), control messages and the slow-pair verdict (outliers).
 *
 * Uses: run and every room below it; nothing uses it but the tools.
 */
#ifndef RB_FABRIC_FACE_H
#define RB_FABRIC_FACE_H

#include "allpairs.h"
#include "coord.h"
#include "fabmsg.h"
#include "job.h"
#include "launch.h"
#include "outliers.h"
#include "legs.h"

#endif

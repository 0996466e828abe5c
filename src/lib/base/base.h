/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The base room's face: the one header other rooms and the tools include.
 * Owns: The base: diagnostics and exit codes (log), the stop signals (sig), clocks, strict
 * number parsing, sysfs reads, option rows (opts), result rows (row), CPU waits (cpuwait), test-only fault
 * injection.
 *
 * Uses: nothing of the project: libc alone.
 */
#ifndef RB_BASE_FACE_H
#define RB_BASE_FACE_H

#include "cpuwait.h"
#include "fault.h"
#include "log.h"
#include "opts.h"
#include "parse.h"
#include "row.h"
#include "seqwait.h"
#include "sig.h"
#include "sysfs.h"
#include "timeutil.h"

#endif

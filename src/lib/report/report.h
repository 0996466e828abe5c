/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The report room's face: the one header other rooms and the tools include.
 * Owns: The documents a run writes: the reporters (text, csv, json, one file each), a
 * document written atomically (document), the set of them and their options (reports),
 * the rows of --repeat (repeat).
 *
 * Uses: base, measure.
 */
#ifndef RB_REPORT_FACE_H
#define RB_REPORT_FACE_H

#include "document.h"
#include "repeat.h"

#endif

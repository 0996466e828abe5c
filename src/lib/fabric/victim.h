/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * --victim's legs (victim.c): the suite's latency tool run between the victim's two
 * ranks, alone (the idle round) or beside a pattern's round; its figures come back as
 * a ROW marked "victim".
 */
#ifndef RB_VICTIM_H
#define RB_VICTIM_H

#include "legs.h"

/*
 * V (secret, -D, device and --oob-timeout set) completed from the tool's own: -D for
 * each of its sizes, and a verbs tool's path options (its --tclass, --sl, ...).
 */
void rb_victim_setup(const struct rb_tool *tool, const void *t, struct rb_legs_victim *V);

/*
 * In a leg's child: the victim's run at leg's end of it (its listener, or the partner's
 * host and port), bounded by -D and a margin; its row, or its error as a row, to ch.
 */
void rb_victim_leg(const struct rb_tool *tool, const struct rb_legs *L, const struct rb_leg *leg,
                   struct rb_oob *ch);

#endif

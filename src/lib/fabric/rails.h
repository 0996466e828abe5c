/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * --all-pairs through several rails at once (-d a,b, an --hca filter): one child
 * process per rail runs the pair on its own device (the command line plus
 * --ib-dev NAME, so its buffers land on that device's NUMA node) against the
 * partner's listener for that rail; all rails of a pair measure at the same time.
 * Each child sends its rows (ROW, rail set) and its end (END) to the parent over a
 * socketpair; the parent forwards the rows to the coordinator.
 */
#ifndef RB_RAILS_H
#define RB_RAILS_H

#include "verbs/verbs.h"
#include "oob/oob.h"
#include "measure/measure.h"

#include <stddef.h>
#include <stdint.h>

struct rb_tool;
struct rb_run;

struct rb_rail_pair {
	unsigned n;                      /* rails */
	const char (*dev)[RB_RAIL_NAME]; /* n device names */
	struct rb_oob_server *srv;       /* n listeners, one per rail */
	const char *host;                /* the partner; NULL when this side serves */
	uint32_t ports[RB_MAX_RAILS];    /* the partner's listener per rail */
	struct rb_oob *ctl;              /* the coordinator */
	uint32_t round;
	struct rb_pair pair;
};

/*
 * Runs the pair through every rail and waits for each child. Returns 0, or the first
 * rail's error (in err, "rail 1 (mlx5_1): ..."); devs gets the devices the rails
 * opened, comma-separated. A control channel error (the coordinator gone) is
 * returned as such after the children ended.
 */
int rb_rails_pair(const struct rb_tool *tool, void *t, struct rb_run *r, const struct rb_rail_pair *p,
                  char *devs, size_t devcap, char *err, size_t errcap, int *ctl_err);

#endif

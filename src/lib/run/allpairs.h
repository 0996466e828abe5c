/*
 * The options of --all-pairs (--all-pairs, --pairs, --slow). They are parsed with
 * the rest of every tool's command line by the run driver, which refuses what does
 * not go with them; the job itself (fabric.h) is a layer above the driver.
 */
#ifndef RB_ALLPAIRS_H
#define RB_ALLPAIRS_H

#include "base/base.h"
#include "measure/measure.h"

#include <stdbool.h>

struct rb_fabric_opts {
	bool all_pairs;
	struct rb_pairs_spec pairs; /* --pairs */
	double slow;                /* --slow: a pair below this fraction of the median is slow */
};

void rb_fabric_opts_default(struct rb_fabric_opts *o);
struct rb_opt_table rb_fabric_opt_table(struct rb_fabric_opts *o);

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The options of --all-pairs (--all-pairs, --pairs, --directions, --slow, --retests,
 * --seed, --oob-ifname) and of the traffic patterns (--pattern, --permute, --victim): the job's (job.h), a
 * layer above the run driver, whose table the driver parses with the rest of every tool's command line
 * (struct rb_run_layer); the job's check refuses what does not go with them.
 */
#ifndef RB_ALLPAIRS_H
#define RB_ALLPAIRS_H

#include "base/base.h"
#include "measure/measure.h"
#include "run/run.h"

#include <stdbool.h>
#include <stdint.h>

/* --seed: whether given, and its value. */
struct rb_fab_seed {
	bool set;
	uint64_t v;
};

/*
 * --victim S:C: a latency run (rc_write_lat; socket_bw --ping-pong under socket_bw) from
 * rank C to rank S, alone first (idle), then beside every round of the pattern, for -D.
 */
struct rb_victim {
	bool set;
	uint32_t server, client;
	double duration_s; /* the command line's -D */
};

struct rb_fabric_opts {
	bool all_pairs;
	struct rb_pairs_spec pairs; /* --pairs, --directions (pairs.dirs: 0 the tool's default) */
	double slow;                /* --slow: a pair below this fraction of the median is slow */
	uint32_t retests;           /* --retests R: R slow in turn confirm a suspect (0: no re-tests) */
	struct rb_fab_seed seed;    /* --seed: random:K's draw */
	const char *oob_ifname;     /* --oob-ifname: the interface the ranks reach each other on */
	struct rb_pattern pattern;  /* --pattern (its permute: --permute); pairs: the schedule above */
	bool pairs_given;           /* --pairs typed: it schedules pairs only */
	struct rb_victim victim;    /* --victim */
};

void rb_fabric_opts_default(struct rb_fabric_opts *o);
struct rb_opt_table rb_fabric_opt_table(struct rb_fabric_opts *o);
/* The driver's layer of o (rb_main's): --all-pairs runs the command line as a job. */
struct rb_run_layer rb_fabric_layer(struct rb_fabric_opts *o);

#endif

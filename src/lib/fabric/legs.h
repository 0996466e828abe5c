/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Several two-sided runs of one rank at once, one child process each (a leg): the
 * rails of a pair (-d a,b, an --hca filter: each leg the command line plus --ib-dev
 * NAME, so its buffers land on that device's NUMA node, against the partner's
 * listener for that rail), or the flows of a --pattern round (each leg its own
 * partner, serving on the rank's listener or connecting to the partner's). Each child
 * sends its rows (ROW) and its end (END) to the parent over a socketpair; the parent
 * forwards the rows to the coordinator.
 */
#ifndef RB_LEGS_H
#define RB_LEGS_H

#include "verbs/verbs.h"
#include "oob/oob.h"
#include "measure/measure.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct rb_tool;
struct rb_run;

/* The most legs at once: a round's flows at one rank (traffic.h), or the rails. */
#define RB_LEGS_MAX (RB_PATTERN_RANK_FLOWS + 1) /* and the --victim's */

struct rb_leg {
	const char *host;          /* the partner when this side connects; NULL when it serves */
	uint32_t port;             /* the partner's listener (host set) */
	struct rb_oob_server *srv; /* this side's listener (host NULL) */
	const char *dev;           /* the device (--ib-dev), or NULL for the command line's */
	struct rb_pair pair;       /* server and client ranks */
	uint32_t rail;
	uint8_t victim; /* 0, or RB_FLOW_VICTIM_SERVER / _CLIENT: the --victim's latency run (victim.h) */
};

/* The flows' path options a verbs victim takes on (victim.c): theirs, as the tool parsed them. */
struct rb_legs_path {
	uint32_t tclass, sl, hop_limit, mtu, port; /* mtu, port: 0 = the victim's own choice */
	int gid_index;                             /* -1: auto */
};

/*
 * What a victim leg runs with: the job's victim secret, how long it measures (-D for
 * each of the flows' sizes), the rank's device ("": the tool's own), the flows' path.
 */
struct rb_legs_victim {
	const char *secret;
	double duration_s;
	const char *dev;
	unsigned oob_timeout_s; /* the job's --oob-timeout: the victim's too */
	bool verbs;             /* the path below applies (a verbs tool's flows) */
	struct rb_legs_path path;
};

struct rb_legs {
	unsigned n;
	struct rb_leg leg[RB_LEGS_MAX];
	struct rb_oob *ctl; /* the coordinator */
	uint32_t round;
	bool rails; /* the legs are one pair's rails (else a round's flows) */
	/* Flows: each row also says when its measurement ran on this host's wall clock. */
	bool wall;
	struct rb_legs_victim victim;
};

/*
 * Runs every leg and waits for each child. Returns 0, or -EIO with the first failed
 * leg's error in err ("rail 1 (mlx5_1): ..." or "with rank 3: ...") and its partner
 * in *partner; devs gets the devices the legs opened (rails: comma-separated by rail;
 * flows: the first). A control channel error (the coordinator gone) is returned in
 * *ctl_err after the children ended.
 */
int rb_legs_run(const struct rb_tool *tool, void *t, struct rb_run *r, const struct rb_legs *L, char *devs,
                size_t devcap, char *err, size_t errcap, uint32_t *partner, int *ctl_err);

#endif

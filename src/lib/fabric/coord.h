/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The --all-pairs coordinator, a child process of rank 0: takes every rank's JOIN,
 * starts each round (GO) when every rank ended the last one, writes the rows the
 * pairs' clients send into the documents, keeps waiting ranks alive, and ends with
 * the matrix and the outliers. A rank whose control connection closes, or that stays
 * silent past --timeout after its partner failed, is lost: every other rank is told
 * (ERROR) and the documents keep what completed, naming it.
 */
#ifndef RB_COORD_H
#define RB_COORD_H

#include "allpairs.h"
#include "fabmsg.h"
#include "job.h"
#include "measure/measure.h"
#include "oob/oob.h"
#include "report/report.h"

#include <stdbool.h>
#include <stdint.h>

struct rb_coord_cfg {
	const char *tool;
	const char *victim_tool; /* --victim's latency tool (rb_tool_link.victim) */
	uint32_t size;
	const struct rb_fabric_opts *fab;
	uint32_t join_timeout_s; /* --oob-timeout: every rank joins within it */
	uint32_t silence_s; /* how long a rank may take to END after its partner did (or after GO, idle) */
	bool round_trip;    /* the tool's samples cross both ways: re-test ends, not directions */
	const char *reached_on; /* rank 0's published interface and address, and why that one */
	/* The job's secret: every JOIN must carry it (rank 0 publishes it through PMIx). */
	uint8_t cookie[RB_FAB_COOKIE_LEN];
	struct rb_gate_opts gates; /* --min-bw, --max-lat-p99: judged on every pair's rows */
	struct rb_reports *reps;   /* opened by the caller; finished here */
};

/* The coordinator's whole life on listener lfd; returns its exit code. */
int rb_coord_run(const struct rb_coord_cfg *cfg, int lfd);

#endif

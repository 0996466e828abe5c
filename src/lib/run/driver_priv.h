/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the driver's files share (not for tools): driver.c the run's life, cmdline.c
 * its command line, meet.c finding the peer, steps.c the sizes. They call one way:
 * driver.c -> meet.c -> cmdline.c, driver.c -> steps.c, driver.c -> cmdline.c.
 */
#ifndef RB_DRIVER_PRIV_H
#define RB_DRIVER_PRIV_H

#include "driver.h"
#include "perftest.h"
#include "progress.h"

#define RB_DRV_MAX_TABLES 17

/* The driver's own state of a run (struct rb_run's d). */
struct rb_run_drv {
	struct rb_run *run; /* the run this is the driver's state of */
	struct rb_oob oob;  /* the control channel (rb_run's oob) */
	struct rb_hello mine, peer;
	struct rb_progress prog;    /* the sweep's progress line (a row in the middle of a step erases it) */
	struct rb_perftest_opts pt; /* a verbs tool's perftest options */
	bool warming;               /* --perform_warm_up's pass is running: no row of it is reported */
	struct rb_schema schema;    /* the documents' columns (the tool's) */
	char schema_name[64];
	char command[4096]; /* the command line, in the meta and every row */
	bool adopted;       /* server: the tool's state holds options taken from a client */
	bool set_up;        /* the tool's resources exist (setup ran, teardown did not) */
	bool stuck;         /* a thread of a run was left running (teardown false): no run follows */
	/* server: a candidate reached the tool's connect (QPINFO sent, a CM listener made): built anew for
	 * the next */
	bool exposed;
	struct rb_limits limits; /* server: what a client's run may cost (--max-run-mem, ...) */
	struct rb_hello offer;   /* server: the candidate's HELLO, whose strings adopted options point into */
	bool met; /* server: this run took a client (its HELLO passed); else the run's failure is the server's
	           */
	unsigned first_doc; /* --persist: the number of its first run's documents (FILE-n.EXT) */
	struct rb_gate gate;
	struct rb_repeat_opts rep; /* --repeat */
	/* The sweep's message-time model: its size rows, the port's rate (meta), the fit once complete. */
	struct rb_model model;
	double link_gbps;
	bool have_fit;
	struct rb_model_fit fit;
	/* --all-pairs: where a pair's rows go besides the documents (rb_run_pair). */
	void (*sink)(void *arg, const struct rb_row *row);
	void *sink_arg;
};

/* The tool's option tables, then the driver's (at most RB_DRV_MAX_TABLES); returns how many. */
unsigned rb_drv_tables(const struct rb_tool *tool, void *t, struct rb_run *r, struct rb_opt_table *tables);
/* Defaults, then the command line: -1 to go on, else the exit code (0 after --help, 2 on bad input). */
int rb_drv_parse(const struct rb_tool *tool, void *t, struct rb_run *r, int argc, char **argv);
/* --repeat against --interval, and (need_repeat_for_cv) --max-cv without it: 0 or -EINVAL (said). */
int rb_drv_check_repeat(struct rb_run *r, bool need_repeat_for_cv);
/*
 * The checks once the command line is parsed: the run length's rules (driver.h's
 * len_at) around the tool's own. 0 or -EINVAL (said).
 */
int rb_drv_check(const struct rb_tool *tool, void *t, struct rb_run *r);
/* The tool's run length. */
const struct rb_runlen_opts *rb_drv_runlen(const struct rb_tool *tool, const void *t);
/* This side's HELLO (r->mine): the tool's parameters and the host name. */
void rb_drv_hello(const struct rb_tool *tool, void *t, struct rb_run *r);
/* "server" or "client": the peer's role, for messages. */
const char *rb_drv_peer_role(const struct rb_run *r);

/*
 * The peer, found: a client connects (port: an --all-pairs partner's, 0 for
 * --port); a server listens (port: the job's listener is open already) and takes
 * the first candidate that holds, adopting its options (not for a pair). Then
 * HELLO both ways and the tool's connect. Returns 0 or the error.
 */
int rb_drv_meet(const struct rb_tool *tool, void *t, struct rb_run *r, uint32_t port);

/* Every size of the sweep: barrier, step, closing agreement, rows. Returns 0 or the error. */
int rb_drv_steps(const struct rb_tool *tool, void *t, struct rb_run *r);

#endif

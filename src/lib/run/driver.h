/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The run driver: the life of one two-sided run, the same for every tool.
 *
 *   parse options -> tool checks -> open documents -> local setup (a typo in -d fails
 *   now, before anyone waits on us) -> connect (client) or accept (server; strangers
 *   refused) -> negotiate HELLO -> tool connect (QPs, data sockets) -> header, meta ->
 *   for each size { barrier, tool step, row } -> finish (first cause forwarded to the
 *   peer, documents closed complete or not) -> tool teardown -> exit code
 *
 * A tool is a struct rb_tool (its callbacks) and a state pointer; it never opens its
 * own connection, documents or negotiation.
 */
#ifndef RB_DRIVER_H
#define RB_DRIVER_H

#include "verbs/verbs.h"
#include "measure/measure.h"
#include "oob/oob.h"
#include "base/base.h"
#include "report/report.h"
#include "serve_limits.h"

#include <stdbool.h>
#include <stdint.h>

struct rb_run_drv; /* the driver's own state (driver_priv.h) */
struct rb_run;
struct rb_runlen_opts;

/*
 * A layer above the driver with options of its own (the --all-pairs job, fabric.h):
 * its table is parsed with the tool's and the driver's, and its check refuses what
 * does not go with it. Of the layer the driver knows only that it may run the
 * command line itself, the process then being one rank of a job (r->job).
 */
struct rb_run_layer {
	void *arg;
	void (*defaults)(void *arg);
	struct rb_opt_table (*table)(void *arg);
	/*
	 * Once the command line is parsed (r->client, r->host known; len: the tool's run
	 * length): 1 when the layer runs it, 0 when the driver does, -EINVAL (said) when
	 * something does not go with it.
	 */
	int (*check)(void *arg, const struct rb_run *r, const struct rb_runlen_opts *len);
};
struct rb_step; /* the step in progress (below) */

struct rb_run {
	/* What a tool reads. */
	bool client;
	const char *host;   /* client: the server named on the command line */
	struct rb_oob *oob; /* the control channel to the peer (the driver's: a tool exchanges through it) */
	struct rb_oob_opts oob_opts;
	struct rb_out_opts out_opts;
	struct rb_opts_given given; /* which options the user set (NCCL's environment included) */
	struct rb_opts_env env;     /* what NCCL's environment set, the command line not overriding it */
	/* The port's counters, read around every size and interval (verbs tools; n 0 otherwise). */
	struct rb_counters ctr;
	/* A layer above with options of its own (the --all-pairs job), or NULL; job: it runs this command
	 * line. */
	const struct rb_run_layer *layer;
	bool job;
	/* What the --all-pairs job, the layer above the driver, sets up for its pairs. */
	int argc;
	char **argv; /* the command line, parsed again when a server takes its client's options */
	struct rb_reports reps;
	struct rb_oob_server srv; /* server: the listener (kept open across a persistent server's runs) */
	bool listening;
	bool
	    server_rows; /* a pattern's flow: the server's rows go to the job too (the receiver's counters) */
	struct rb_gate_opts gate_opts; /* --min-bw, --max-lat-p99 */
	struct rb_run_drv *d;          /* the driver's own */
};

/* Who the tool is: its name, its usage line, its own wire frames and test faults. */
struct rb_tool_id {
	const char *name;  /* in HELLO, documents and headers */
	const char *usage; /* the usage line(s) of --help */
	/* The tool's own frame types (wire.h), registered before anything is read; n of them. */
	const struct rb_msg_def *msgs;
	unsigned nmsgs;
	/* The tool's own RB_TEST_FAULT kinds (base/fault.h): names[i] is kind RB_FAULT_TOOL + i. */
	const char *const *faults;
	unsigned nfaults;
};

/* Its command line: defaults, option tables, the checks once parsed, the sweep it runs. */
struct rb_tool_cli {
	/*
	 * Puts the tool's options to their defaults. The driver calls it before parsing,
	 * and a server again (after teardown) before it parses its command line once more
	 * with the options its client gave (an iperf3 server takes its test parameters
	 * from the client): then check, hello and setup run again, so buffers are sized
	 * after the parameters arrived.
	 */
	void (*defaults)(void *t);
	/* Fills out[] with the tool's option tables (at most max), listed before the driver's
	 * (OOB, output, general); returns how many. */
	unsigned (*opt_tables)(void *t, struct rb_opt_table *out, unsigned max);
	/*
	 * Cross-option checks once parsed (r->client, r->given known); rb_usage_err,
	 * -EINVAL. The one callback that may settle the run's own options (socket_bw's -J
	 * is --json -); every later one sees the run read-only.
	 */
	int (*check)(void *t, struct rb_run *r);
	/*
	 * A run that needs no device and no peer (a tool that only explains its plan): after check,
	 * -1 to go on with the run, else the exit code. Optional.
	 */
	int (*offline)(void *t, const struct rb_run *r);
	/* Where the tool's state holds the sizes to step through (offsetof; valid after check). */
	size_t sizes_at;
	/*
	 * Where it holds its run length (offsetof a struct rb_runlen_opts: -n, -D,
	 * --run-infinitely), whose rules the driver keeps: -D's seconds on the progress
	 * line, --run-infinitely refused where a pass must end and, on a client, a row every
	 * 5 s unless --interval says otherwise.
	 */
	size_t len_at;
	/* Takes --interval (its step writes interval rows with rb_step_row); else the driver refuses it. */
	bool intervals;
	/* Runs NCCL's protocol: takes NCCL's settings of it from the environment (RB_OPT_ENV_NCCL rows). */
	bool nccl_env;
};

/*
 * Its link to the peer: the parameters both sides agree on, its local resources and
 * their cost, the transport, and what it frees.
 */
struct rb_tool_link {
	/* The parameters both sides must agree on (the driver adds tool and version). */
	void (*hello)(void *t, struct rb_hello *h);
	/* Local resources, before the peer is contacted. Optional. */
	int (*setup)(void *t, const struct rb_run *r);
	/*
	 * The bytes of buffers setup and the steps would allocate for these options (the
	 * largest step), so a server can refuse a client's run before allocating it.
	 * Optional (0: nothing worth counting).
	 */
	uint64_t (*mem_need)(void *t);
	/*
	 * After HELLO: what the transport exchanges (QPINFO, data sockets). -EPROTO means
	 * the peer spoke garbage before anything of ours changed: a server refuses it as a
	 * stranger and goes on waiting.
	 */
	int (*connect)(void *t, const struct rb_run *r);
	/*
	 * Frees what setup and connect made. Optional. False: a thread of the run did not
	 * stop within its bound and was left running with what it uses (nothing freed under
	 * it), so the process must end after this run (a persistent server does).
	 */
	bool (*teardown)(void *t, const struct rb_run *r);
	/*
	 * A verbs tool: where its state holds its struct rb_verbs (offsetof), which
	 * --all-pairs asks for the devices this rank measures through at once. A tool
	 * without one (verbs false) has one rail.
	 */
	bool verbs;
	size_t verbs_at;
	/*
	 * Every sample crosses both ways (a ping-pong): --all-pairs measures each pair
	 * once by default, and a slow pair's suspects are ends, not transmit or receive.
	 */
	bool round_trip;
	/*
	 * --victim's latency run beside a pattern: the suite's executable that measures it
	 * (found beside this one) and the argument that makes it one (NULL: none).
	 */
	const char *victim, *victim_arg;
};

/* One size: before the barrier, the step, a step cut short. */
struct rb_tool_measure {
	/* Per size, before the barrier: buffers and threads, so the clock starts on ready sides. Optional. */
	int (*prepare)(void *t, const struct rb_run *r, uint64_t size);
	/*
	 * One size, after both sides passed the barrier; fills the result row (the driver
	 * stamps its span, its counters and its marks).
	 */
	int (*step)(void *t, const struct rb_run *r, struct rb_step *s, struct rb_row *row);
	/*
	 * The step in progress was cut short by SIGINT or SIGTERM: this side's own figures
	 * from the size's start to the stop, as the size's row (the driver marks it partial:
	 * the peer never agreed to it). false: nothing measured yet, or this side does not
	 * measure. Optional.
	 */
	bool (*partial)(void *t, const struct rb_run *r, const struct rb_step *s, struct rb_row *row);
};

/* Its output: the documents' columns, the text header, the meta block, text under a row. */
struct rb_tool_out {
	/*
	 * The documents' columns (schema.h): runs of the tool's own table and the library's
	 * groups it uses, ending with an empty run; the driver adds the common tail. NULL:
	 * rows as they come.
	 */
	const struct rb_cols *columns;
	/* The text header (only when the table goes to stdout). */
	void (*header)(void *t, const struct rb_run *r);
	/* The tool's fields of the documents' meta block (system fields are there already). */
	void (*meta)(void *t, const struct rb_run *r, struct rb_row *m);
	/* Text output under a size's row (a histogram), when the table goes to stdout. Optional. */
	void (*after_row)(void *t, const struct rb_run *r);
	/* The table's bandwidth unit unless --units says (RB_UNITS_*; 0: Gb/s). */
	int units;
};

/*
 * A tool: five groups of callbacks and facts, each a concern of its own. Its state is
 * a pointer the driver hands back to each callback.
 */
struct rb_tool {
	struct rb_tool_id id;
	struct rb_tool_cli cli;
	struct rb_tool_link link;
	struct rb_tool_measure measure;
	struct rb_tool_out out;
};

/*
 * After rb_opts_parse returned pos: the server host named (a client) or none (a
 * server). Returns -1 to go on, else the exit code (0 after --help, 2 on bad input).
 */
int rb_run_host(int argc, char **argv, int pos, const char **host, bool *client);

/*
 * The step in progress, as the driver hands it to the tool's step: what it measures,
 * and where the rows it writes in the middle (--interval's) go. Valid during the step.
 */
struct rb_step {
	uint64_t size;
	uint64_t seq;           /* the barrier's number: one per measurement, warm-up and repeats included */
	double interval_s;      /* --interval: how long a stretch lasts; 0 when off */
	struct rb_run_drv *drv; /* the driver's own, opaque: where rb_step_row writes */
};

/*
 * One stretch of the step in progress (--interval), from_s to to_s on the step's own
 * clock: the driver stamps the span (interval, t_start_s, t_end_s) and the port's
 * counters of the stretch, and writes it into every document, the progress line
 * erased first. The size's own row (and a partial one) the driver writes itself, its
 * span 0 to the row's elapsed_s.
 */
void rb_step_row(struct rb_step *s, struct rb_row *row, double from_s, double to_s);

/*
 * A tool's run, in three calls (rb_main in fabric.h makes them): rb_run_new logs
 * under argv[0], installs the signal handlers and returns the driver's state (NULL:
 * out of memory, said); rb_run_start parses and checks the command line and opens
 * the documents: -1 to go on, else the exit code; rb_run_runs runs it (a persistent
 * server: run after run) from start's code and returns the process exit code (0, 1,
 * 2, 128 + signal). The caller frees r.
 */
struct rb_run *rb_run_new(int argc, char **argv);
int rb_run_start(const struct rb_tool *tool, void *t, struct rb_run *r);
int rb_run_runs(const struct rb_tool *tool, void *t, struct rb_run *r, int code);

/* A run left a thread running (the tool's teardown said so): the process must not run another. */
bool rb_run_stuck(const struct rb_run *r);

/*
 * --all-pairs: one two-sided run against one partner, the listener (r->srv) already
 * open. host NULL: this side serves (a client of the job's must arrive within
 * --oob-timeout); else it connects to host:port. The command line is parsed again
 * for the role, no document is written: each row goes to sink. dev (room for 64)
 * gets the device the run opened ("" when the tool has none). Returns the run's error.
 */
int rb_run_pair(const struct rb_tool *tool, void *t, struct rb_run *r, const char *host, uint32_t port,
                void (*sink)(void *arg, const struct rb_row *row), void *arg, char *dev);

/* --repeat N: how many times each size is measured (1 without). */
unsigned rb_run_repeats(const struct rb_run *r);

/* The tool's sizes (rb_tool.sizes_at). */
const struct rb_sizes *rb_tool_sizes(const struct rb_tool *tool, const void *t);

#endif

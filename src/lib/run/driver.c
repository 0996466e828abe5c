/* SPDX-License-Identifier: BSD-2-Clause */
#include "driver_priv.h"

#include "base/base.h"
#include "host/host.h"
#include "oob/oob.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The system fields of the meta block: all a run that failed before its peer was known can say. */
/* The command line as a shell would take it back: each argument quoted where it needs it. */
static void command_line(struct rb_run *r)
{
	size_t len = sizeof(r->d->command), off = 0;
	char *out = r->d->command;

	out[0] = '\0';
	for (int i = 0; i < r->argc && off + 1 < len; i++) {
		const char *a = r->argv[i];
		bool plain =
		    a[0] && strspn(a, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
		                      "_./:=,+-@%") == strlen(a);

		if (i)
			out[off++] = ' ';
		if (!plain && off + 1 < len)
			out[off++] = '\'';
		for (; *a && off + 5 < len; a++) {
			if (*a == '\'' && !plain) {
				memcpy(out + off, "'\\''", 4);
				off += 4;
			} else {
				out[off++] = *a;
			}
		}
		if (!plain && off + 1 < len)
			out[off++] = '\'';
		out[off] = '\0';
	}
}

static void meta_system(const struct rb_tool *tool, struct rb_run *r, struct rb_row *m)
{
	memset(m, 0, sizeof(*m));
	rb_meta_system(m, tool->id.name);
	if (tool->out.columns) {
		r->d->schema = (struct rb_schema){tool->id.name, tool->out.columns};
		snprintf(r->d->schema_name, sizeof(r->d->schema_name), "%s/%d", tool->id.name,
		         RB_SCHEMA_VERSION);
		rb_row_str(m, "schema", NULL, r->d->schema_name);
		rb_reports_schema(&r->reps, &r->d->schema);
	}
	command_line(r);
	rb_row_str_ref(m, "command", NULL, r->d->command);
	rb_row_str(m, "role", NULL, r->client ? "client" : "server");
	/* One format on both sides: the peer's address:port as the connection saw it. */
	rb_row_str(m, "peer", NULL, r->oob->peer[0] ? r->oob->peer : r->client ? r->host : "");
	rb_row_str(m, "peer_host", NULL, r->d->peer.host);
}

/* The device a pair's run opened, from its meta block: its "device", else its "interface". */
static void device_of(const struct rb_row *m, char *dev)
{
	const char *d = rb_row_get_str(m, "device");

	if (!d)
		d = rb_row_get_str(m, "interface");
	snprintf(dev, 64, "%s", d ? d : "");
}

/*
 * The end of any two-sided run: forwards the first cause to the peer (unless the
 * peer sent it; the peer names our role with it), and closes the documents (complete or not).
 * Returns ret, or -EIO when a document could not be written.
 */
static void model_json(FILE *f, void *arg)
{
	rb_model_json(f, arg);
}

static int finish(struct rb_run *r, int ret)
{
	struct rb_section model = {"model", model_json, &r->d->fit};

	if (ret && ret != -EREMOTEIO)
		rb_oob_send_error(r->oob, "%s", rb_first_error());
	/* What was measured is kept: the documents say whether the sweep completed. */
	if (rb_reports_finish_section(&r->reps, ret ? rb_first_error() : NULL,
	                              !ret && r->d->have_fit ? &model : NULL) &&
	    !ret)
		ret = -EIO;
	return ret;
}

/*
 * The closing agreement on the run: both sides' gate verdicts cross. Returns 0,
 * a channel error (the run is not complete), or sets *judged to -EIO when the
 * peer's gates failed it (the run completed; like our own gates, that is judged
 * after the documents are closed).
 */
static int agree_run(struct rb_run *r, int *judged)
{
	struct rb_agree a = {.seq = RB_AGREE_RUN, .ok = true};
	int ret;

	if (rb_gate_text(&r->d->gate, &r->gate_opts, a.why, sizeof(a.why)))
		a.ok = false;
	ret = rb_agree(r->oob, &a, rb_drv_peer_role(r));
	if (ret == -EIO) {
		*judged = ret;
		ret = 0;
	}
	return ret;
}

/*
 * Parse, check, (client) export the given test options into HELLO, open the
 * documents: everything before anyone waits on us. Returns -1 to go on, else the
 * exit code (0 after --help, 2 on bad input). A persistent server's run-th run
 * has its own documents: FILE-run.EXT.
 */
static int start(const struct rb_tool *tool, void *t, struct rb_run *r, unsigned run)
{
	int code = rb_drv_parse(tool, t, r, r->argc, r->argv);

	if (code < 0 && r->out_opts.interval_s > 0 && !tool->cli.intervals) {
		rb_usage_err("--interval: %s writes one row per size, none within it", tool->id.name);
		code = RB_EXIT_USAGE;
	}
	if (code < 0 && rb_drv_check(tool, t, r))
		code = RB_EXIT_USAGE;
	if (code < 0 && tool->cli.offline)
		code = tool->cli.offline(t, r);
	if (code < 0) {
		struct rb_opt_table tables[RB_DRV_MAX_TABLES];

		rb_drv_hello(tool, t, r);
		/* The client's given test options travel in its HELLO: the server takes what it was not
		 * given. */
		if (r->client &&
		    rb_opts_export(tables, rb_drv_tables(tool, t, r, tables), &r->given, &r->d->mine))
			code = RB_EXIT_USAGE;
	}
	/* Output paths are checked before anyone waits on us: a typo is exit 2 at once. */
	/* A persistent server numbers its documents on from those a former one left. */
	if (code < 0 && r->oob_opts.persist && run == 1)
		r->d->first_doc = rb_reports_first_free(&r->out_opts);
	/* --auth-key FILE or RB_AUTH_KEY (--all-pairs keys its pairs with the job's cookie). */
	if (code < 0 && !r->job && rb_auth_key_load(r->oob_opts.auth_file, &r->oob_opts.key))
		code = RB_EXIT_USAGE;
	/* --all-pairs: rank 0's coordinator writes the one document of the job. */
	if (code < 0 && !r->job &&
	    rb_reports_open(&r->reps, &r->out_opts, r->oob_opts.persist ? r->d->first_doc + run - 1 : 0))
		code = RB_EXIT_USAGE;
	return code;
}

/*
 * A server's --max-run-time, by its own clock, whatever the client does; not for a
 * --run-infinitely it was allowed to take (or was given itself).
 */
static void arm_limit(const struct rb_run *r)
{
	const char *forever = rb_hello_get(&r->d->mine, "run_infinitely");

	/* A run this server was given itself is its operator's; one a client chose, or any of a persistent
	 * server's, is capped. */
	if (!r->client && (r->d->adopted || r->oob_opts.persist) && !(forever && !strcmp(forever, "1")))
		rb_sig_run_limit(r->d->limits.max_time_s);
}

/*
 * How a run lives: a two-node run (its documents, its header, a persistent
 * server's limit, the closing agreement on the run and the gates), or one pair of
 * an --all-pairs job (port: the partner's or its own listener's, rows to the
 * job's sink, dev gets the device the run opened).
 */
struct life {
	uint32_t port; /* 0: a two-node run */
	char *dev;
};

/*
 * One run: set-up, the peer, the sizes, finish, teardown. Returns the run's error;
 * *idle is set when a persistent server was stopped while it waited for a client
 * (nothing ran, so no document is written).
 */
static int live(const struct rb_tool *tool, void *t, struct rb_run *r, const struct life *l, bool *idle)
{
	bool pair = l->port != 0, began = false;
	struct rb_row m;
	const struct rb_field *lf;
	int ret, judged = 0;

	r->d->met = false;
	ret = tool->link.setup ? tool->link.setup(t, r) : 0;
	r->d->set_up = !ret;
	r->d->exposed = false;
	if (!ret)
		ret = rb_drv_meet(tool, t, r, l->port);
	if (!pair && r->listening && !r->oob_opts.persist) {
		rb_oob_server_close(&r->srv);
		r->listening = false;
	}
	if (!ret) {
		if (!pair && rb_reports_text(&r->reps)) {
			tool->out.header(t, r);
			fflush(stdout);
		}
		meta_system(tool, r, &m);
		tool->out.meta(t, r, &m);
		/* The port's rate, for the model's eta when the rows carry none (a latency sweep). */
		lf = rb_row_find(&m, "link_gbps");
		r->d->link_gbps = lf && lf->type == RB_F_DBL ? lf->v.d : NAN;
		if (l->dev)
			device_of(&m, l->dev);
		rb_reports_begin(&r->reps, &m);
		began = true;
		if (!pair)
			arm_limit(r);
		ret = rb_drv_steps(tool, t, r);
		if (!ret && !pair)
			ret = agree_run(r, &judged);
		rb_sig_run_limit(0);
	}
	*idle = ret == -EINTR && r->oob_opts.persist && !r->d->peer.tool[0];
	if (*idle) {
		rb_reports_abort(&r->reps);
	} else {
		if (!began) {
			meta_system(tool, r, &m);
			rb_reports_begin(&r->reps, &m);
		}
		ret = finish(r, ret);
		/* The run itself succeeded, and its documents say so; the gates (ours, then the peer's) judge
		 * it after. A pair's are the job's, judged by its coordinator. */
		if (!ret && began && !pair)
			ret = rb_gate_verdict(&r->d->gate, &r->gate_opts);
		if (!ret)
			ret = judged;
	}
	if (tool->link.teardown && !tool->link.teardown(t, r))
		r->d->stuck = true;
	r->d->set_up = false;
	rb_counters_close(&r->ctr);
	rb_oob_close(r->oob);
	return ret;
}

static void reset(struct rb_run *r);

bool rb_run_stuck(const struct rb_run *r)
{
	return r->d->stuck;
}

int rb_run_pair(const struct rb_tool *tool, void *t, struct rb_run *r, const char *host, uint32_t port,
                void (*sink)(void *arg, const struct rb_row *row), void *arg, char *dev)
{
	struct life l = {port, dev};
	bool idle;
	int ret;

	dev[0] = '\0';
	reset(r);
	/* The same command line on every rank; the role is this pair's. */
	if (rb_drv_parse(tool, t, r, r->argc, r->argv) != -1)
		return -EINVAL;
	r->client = host != NULL;
	r->host = host;
	if (rb_drv_check(tool, t, r))
		return -EINVAL;
	rb_drv_hello(tool, t, r);
	r->d->sink = r->client || r->server_rows ? sink : NULL;
	r->d->sink_arg = arg;
	ret = live(tool, t, r, &l, &idle);
	r->d->sink = NULL;
	return ret;
}

/* A persistent server between runs: the next one starts from the command line alone. */
static void reset(struct rb_run *r)
{
	memset(r->oob, 0, sizeof(*r->oob));
	r->oob->fd = -1;
	memset(&r->d->mine, 0, sizeof(r->d->mine));
	memset(&r->d->peer, 0, sizeof(r->d->peer));
	memset(&r->d->offer, 0, sizeof(r->d->offer));
	memset(&r->d->gate, 0, sizeof(r->d->gate));
	r->d->adopted = false;
	rb_forget_first_error();
}

struct rb_run *rb_run_new(int argc, char **argv)
{
	struct both {
		struct rb_run r;
		struct rb_run_drv d;
	} *b = calloc(1, sizeof(*b));
	struct rb_run *r = b ? &b->r : NULL; /* first: freeing r frees both */

	rb_log_init(argv[0]);
	rb_sig_install();
	if (!r) {
		rb_err("out of memory");
		return NULL;
	}
	r->d = &b->d;
	r->d->run = r;
	r->oob = &b->d.oob;
	r->oob->fd = -1;
	r->argc = argc;
	r->argv = argv;
	srandom((unsigned)time(NULL) ^ (unsigned)getpid());
	return r;
}

/* The dialects' rewrites of the command line (iperf3's -c HOST), once, before it is parsed. */
static int rewrite(const struct rb_tool *tool, void *t, struct rb_run *r)
{
	struct rb_opt_table tables[RB_DRV_MAX_TABLES];
	unsigned n = rb_drv_tables(tool, t, r, tables);

	for (unsigned i = 0; i < n; i++) {
		const struct rb_dialect *d = tables[i].dialect;
		int code = d && d->rewrite ? d->rewrite(&r->argc, r->argv) : -1;

		if (code >= 0)
			return code;
	}
	return -1;
}

int rb_run_start(const struct rb_tool *tool, void *t, struct rb_run *r)
{
	int code;

	if (rb_msg_register(tool->id.msgs, tool->id.nmsgs)) {
		rb_err("internal error: %s's frame types clash with the library's", tool->id.name);
		return RB_EXIT_RUNTIME;
	}
	rb_fault_register(tool->id.faults, tool->id.nfaults);
	code = rewrite(tool, t, r);
	return code >= 0 ? code : start(tool, t, r, 1);
}

int rb_run_runs(const struct rb_tool *tool, void *t, struct rb_run *r, int code)
{
	unsigned runs = 0, failed = 0;
	bool idle = false;
	int ret;

	while (code < 0) {
		ret = live(tool, t, r, &(struct life){0, NULL}, &idle);
		code = rb_exit_code(ret);
		if (!r->oob_opts.persist || idle)
			break;
		/* A thread of that run still holds its QPs and a CPU: the next run's figures would be its. */
		if (r->d->stuck) {
			fprintf(stderr,
			        "%s: a thread of run %u did not stop and is left running; this persistent "
			        "server ends here, after %u run(s), %u failed\n",
			        rb_prog(), runs + 1, runs + 1, failed + (ret != 0));
			code = code ? code : RB_EXIT_RUNTIME;
			break;
		}
		/* Stopped during a run: that run's signal, whatever else it ended with; after it, as idle. */
		if (rb_check_stop()) {
			idle = !ret;
			runs += idle;
			code = rb_exit_code(-EINTR);
			break;
		}
		/* Set-up or the listener failed before any client: it would fail again at once. */
		if (ret && !r->d->met)
			break;
		runs++;
		failed += ret != 0;
		reset(r);
		code = start(tool, t, r, runs + 1);
	}
	if (r->oob_opts.persist && idle) {
		fprintf(stderr, "%s: stopped while waiting for a client, after %u run(s), %u failed\n",
		        rb_prog(), runs, failed);
		code = RB_EXIT_OK;
	}
	if (r->listening)
		rb_oob_server_close(&r->srv);
	return code;
}

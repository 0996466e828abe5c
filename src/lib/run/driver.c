#include "driver.h"

#include "oob/oob.h"
#include "base/base.h"
#include "host/host.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_TABLES 16

/* The tool's option tables, then the driver's; returns how many. */
static unsigned tables_of(const struct rb_tool *tool, void *t, struct rb_run *r, struct rb_opt_table *tables)
{
	unsigned n = tool->opt_tables(t, tables, MAX_TABLES - 6);

	tables[n++] = rb_oob_opt_table(&r->oob_opts);
	tables[n++] = rb_limits_opt_table(&r->limits);
	tables[n++] = rb_fabric_opt_table(&r->fab);
	tables[n++] = rb_gate_opt_table(&r->gate_opts);
	tables[n++] = rb_out_opt_table(&r->out_opts);
	tables[n++] = rb_common_opts();
	return n;
}

/* Defaults, then the command line. */
static int parse(const struct rb_tool *tool, void *t, struct rb_run *r, int argc, char **argv)
{
	struct rb_opt_table tables[MAX_TABLES];
	unsigned n;
	int pos;

	if (tool->defaults)
		tool->defaults(t);
	rb_oob_opts_default(&r->oob_opts);
	rb_limits_default(&r->limits);
	rb_out_opts_default(&r->out_opts);
	rb_gate_opts_default(&r->gate_opts);
	rb_fabric_opts_default(&r->fab);
	memset(&r->given, 0, sizeof(r->given));
	n = tables_of(tool, t, r, tables);
	pos = rb_opts_parse(tables, n, argc, argv, tool->usage, &r->given);
	pos = rb_run_host(argc, argv, pos, &r->host, &r->client);
	if (pos < 0 && r->client && r->oob_opts.bind) {
		rb_usage_err(
		    "--bind %s is for the server (the address it listens on); a client connects to %s",
		    r->oob_opts.bind, r->host);
		return RB_EXIT_USAGE;
	}
	if (pos < 0 && r->client && r->fab.all_pairs) {
		rb_usage_err(
		    "--all-pairs takes no server host (%s): the launcher starts every rank, and they "
		    "find each other",
		    r->host);
		return RB_EXIT_USAGE;
	}
	if (pos < 0 && r->fab.all_pairs && r->oob_opts.bind) {
		rb_usage_err("--bind %s with --all-pairs: every rank would publish that one address; each "
		             "publishes its own hostname",
		             r->oob_opts.bind);
		return RB_EXIT_USAGE;
	}
	if (pos < 0 && r->fab.all_pairs && r->oob_opts.auth_file) {
		rb_usage_err("--auth-key %s with --all-pairs: every pair connection proves the job's own "
		             "cookie, which the launcher hands the ranks",
		             r->oob_opts.auth_file);
		return RB_EXIT_USAGE;
	}
	if (pos < 0 && r->fab.all_pairs && r->oob_opts.persist) {
		rb_usage_err("--all-pairs and --persist: a rank of an all-pairs run serves only the partners "
		             "of its schedule");
		return RB_EXIT_USAGE;
	}
	if (pos < 0 && r->client && r->oob_opts.persist) {
		rb_usage_err("--persist is for the server (it serves one client after another); a client "
		             "makes one run");
		return RB_EXIT_USAGE;
	}
	return pos;
}

int rb_run_host(int argc, char **argv, int pos, const char **host, bool *client)
{
	if (pos == RB_OPTS_VERSION)
		rb_print_version(stdout);
	if (pos == RB_OPTS_HELP || pos == RB_OPTS_VERSION)
		return RB_EXIT_OK;
	if (pos < 0)
		return RB_EXIT_USAGE;
	if (argc - pos > 1) {
		rb_usage_err("unexpected argument '%s' (only one server host is allowed)", argv[pos + 1]);
		return RB_EXIT_USAGE;
	}
	*host = pos < argc ? argv[pos] : NULL;
	*client = *host != NULL;
	return -1;
}

int rb_run_serve(struct rb_oob_server *srv, struct rb_oob *oob, const struct rb_hello *mine,
                 struct rb_hello *peer, int (*adopt)(void *arg), int (*connect)(void *arg), void *arg)
{
	int ret = 0;

	while (!ret) {
		int full;

		ret = rb_oob_next_client(srv, oob);
		if (ret)
			break;
		/* A candidate has as long for each frame of its handshake as for its HELLO. */
		full = oob->timeout_ms;
		oob->timeout_ms = full < RB_OOB_HELLO_MS ? full : RB_OOB_HELLO_MS;
		/* Judged without a word on our stderr: a refusal is one line, said by rb_oob_refuse. */
		rb_log_hold(true);
		ret = rb_oob_screen(oob, mine, peer);
		if (!ret && adopt)
			ret = adopt(arg);
		if (!ret)
			ret = rb_oob_negotiate(oob, mine, peer);
		if (!ret)
			ret = connect(arg);
		/* Gone before its run began (a HELLO, then a close): no run, as any stranger. */
		if (ret == -ECONNRESET || ret == -EPIPE)
			ret = -EPROTO;
		oob->timeout_ms = full;
		if (ret != -EPROTO) {
			rb_log_release();
			break;
		}
		rb_log_hold(false);
		rb_oob_refuse(srv, oob, oob->refusal[0] ? oob->refusal : rb_first_error());
		rb_forget_first_error();
		/* What the stranger said is not the peer's: an empty peer is "no client came". */
		memset(peer, 0, sizeof(*peer));
		ret = 0;
	}
	return ret;
}

struct tool_call {
	const struct rb_tool *tool;
	void *t;
	struct rb_run *r;
};

static int tool_connect(void *arg)
{
	struct tool_call *c = arg;
	return c->tool->connect(c->t, c->r);
}

static void hello(const struct rb_tool *tool, void *t, struct rb_run *r)
{
	memset(&r->mine, 0, sizeof(r->mine));
	tool->hello(t, &r->mine);
	if (gethostname(r->mine.host, sizeof(r->mine.host) - 1))
		snprintf(r->mine.host, sizeof(r->mine.host), "unknown");
	/* The peer's decoder takes printable ASCII only: a UTF-8 hostname must not fail the handshake. */
	for (char *c = r->mine.host; *c; c++)
		if (*c < 0x20 || *c > 0x7e)
			*c = '?';
}

/* Server: a candidate's request beyond what this side will do; it is told why, and exits 2. */
static int refuse_request(struct rb_run *r, const char *why)
{
	rb_oob_send_refuse(&r->oob, "%s", why);
	return rb_oob_refusal(&r->oob, "%s", why);
}

/*
 * Server, a candidate's HELLO screened (r->peer): its options for every test
 * parameter this side was not given. The tool's state is built again from scratch:
 * defaults, our command line, the client's options, check, hello; then the run it
 * asks for is held against this server's limits. Nothing is allocated: setup waits
 * until the negotiation has passed (serve_connect).
 */
static int adopt(void *arg)
{
	struct tool_call *c = arg;
	struct rb_run *r = c->r;
	struct rb_opt_table tables[MAX_TABLES];
	char why[RB_WIRE_MSG_LEN - 64];

	if (!r->peer.nargs && !r->adopted)
		return 0;
	r->offer = r->peer; /* adopted string options point into it for the rest of the run */
	if (r->set_up && c->tool->teardown)
		c->tool->teardown(c->t, r);
	r->set_up = false;
	if (parse(c->tool, c->t, r, r->argc, r->argv) >= 0 ||
	    rb_opts_adopt(tables, tables_of(c->tool, c->t, r, tables), &r->given, &r->offer) ||
	    c->tool->check(c->t, r)) {
		r->adopted = true; /* the state holds its options: the next candidate starts over */
		return refuse_request(r, rb_first_error());
	}
	r->adopted = r->offer.nargs > 0;
	hello(c->tool, c->t, r);
	if (r->adopted && rb_limits_check(&r->limits, &r->mine,
	                                  c->tool->mem_need ? c->tool->mem_need(c->t) : 0, why, sizeof(why)))
		return refuse_request(r, why);
	return 0;
}

/*
 * Server, the negotiation passed: the candidate is the peer. Resources for its
 * parameters (a candidate whose parameters this side cannot set up is not a
 * stranger: the run fails), then the tool's own exchange.
 */
static int serve_connect(void *arg)
{
	struct tool_call *c = arg;
	struct rb_run *r = c->r;
	int ret = 0;

	r->met = true;
	if (!r->set_up && c->tool->setup) {
		ret = c->tool->setup(c->t, r);
		if (ret == -EPROTO)
			ret = -EIO;
	}
	r->set_up = !ret;
	return ret ? ret : c->tool->connect(c->t, r);
}

static int connect_peer(const struct rb_tool *tool, void *t, struct rb_run *r)
{
	int ret;

	if (!r->client) {
		struct tool_call c = {tool, t, r};

		if (!r->listening && (ret = rb_oob_listen(&r->oob_opts, &r->srv)))
			return ret;
		r->listening = true;
		return rb_run_serve(&r->srv, &r->oob, &r->mine, &r->peer, tool->defaults ? adopt : NULL,
		                    serve_connect, &c);
	}
	ret = rb_oob_connect(r->host, &r->oob_opts, &r->oob);
	if (!ret)
		ret = rb_oob_negotiate(&r->oob, &r->mine, &r->peer);
	if (!ret)
		ret = tool->connect(t, r);
	return ret;
}

/* The system fields of the meta block: all a run that failed before its peer was known can say. */
static void meta_system(const struct rb_tool *tool, struct rb_run *r, struct rb_row *m)
{
	memset(m, 0, sizeof(*m));
	rb_meta_system(m, tool->name);
	rb_row_str(m, "role", NULL, r->client ? "client" : "server");
	/* One format on both sides: the peer's address:port as the connection saw it. */
	rb_row_str(m, "peer", NULL, r->oob.peer[0] ? r->oob.peer : r->client ? r->host : "");
	rb_row_str(m, "peer_host", NULL, r->peer.host);
}

/*
 * A sweep's progress on a terminal: "size 4096 B (5/23), ETA 0:42" on stderr,
 * rewritten in place and erased before each row; never in a file or a pipe.
 */
static void progress(struct rb_run *r, bool on, uint64_t t0, const struct rb_sizes *sz, unsigned i)
{
	uint64_t now = rb_now_ns();
	unsigned eta;

	if (!on)
		return;
	r->progress_shown = i < sz->n;
	rb_log_progress(r->progress_shown);
	if (i >= sz->n) {
		fputs("\r\033[K", stderr);
		return;
	}
	fprintf(stderr, "\r\033[K%s: size %llu B (%u/%u)", rb_prog(), (unsigned long long)sz->v[i], i + 1,
	        sz->n);
	if (i > 0) {
		eta = (unsigned)((double)(now - t0) / 1e9 / i * (sz->n - i) + 0.5);
		fprintf(stderr, ", ETA %u:%02u", eta / 60, eta % 60);
	}
	fflush(stderr);
}

/* Under a size's row: the port counters that moved and should not have. */
static void fabric_line(const struct rb_run *r)
{
	char moved[512];

	if (rb_counters_abnormal(&r->ctr, moved, sizeof(moved)))
		printf("  fabric (this side's port counters): %s\n", moved);
}

static const char *peer_role(const struct rb_run *r)
{
	return r->client ? "server" : "client";
}

/* The closing agreement on one step (agree.h); -v says what it cost. */
static int agree_step(struct rb_run *r, uint64_t seq, uint64_t size)
{
	uint64_t t0 = rb_now_ns();
	int ret = rb_agree(&r->oob, &(struct rb_agree){.seq = seq, .ok = true}, peer_role(r));

	rb_dbg("closing agreement on the %llu-byte step: %.1f us", (unsigned long long)size,
	       (double)(rb_now_ns() - t0) / 1e3);
	return ret;
}

static int steps(const struct rb_tool *tool, void *t, struct rb_run *r)
{
	const struct rb_sizes *sz = tool->sizes(t);
	bool show = sz->n > 1 && isatty(STDERR_FILENO);
	uint64_t t0 = rb_now_ns();
	int ret = 0;

	for (unsigned i = 0; i < sz->n && !ret; i++) {
		struct rb_row row;

		progress(r, show, t0, sz, i);
		ret = rb_check_stop();
		if (!ret && tool->prepare)
			ret = tool->prepare(t, r, sz->v[i]);
		if (!ret)
			ret = rb_oob_barrier(&r->oob, i + 1);
		rb_counters_mark(&r->ctr);
		if (!ret)
			ret = tool->step(t, r, sz->v[i], i + 1, &row);
		/* The clock has stopped: the row waits for the peer's verdict on the step. */
		if (!ret)
			ret = agree_step(r, i + 1, sz->v[i]);
		progress(r, show, t0, sz, sz->n);
		if (!ret) {
			rb_counters_row(&r->ctr, &row, false);
			rb_reports_row(&r->reps, &row);
			if (r->sink)
				r->sink(r->sink_arg, &row);
			rb_gate_row(&r->gate, &r->gate_opts, &row);
		}
		if (!ret && tool->after_row && rb_reports_text(&r->reps))
			tool->after_row(t, r);
		if (!ret && rb_reports_text(&r->reps))
			fabric_line(r);
	}
	if (!ret && rb_reports_text(&r->reps))
		printf("---------------------------------------------------------------------------------------\n");
	return ret;
}

void rb_run_row(struct rb_run *r, const struct rb_row *row)
{
	struct rb_row with = *row;

	if (r->progress_shown) {
		fputs("\r\033[K", stderr);
		r->progress_shown = false;
		rb_log_progress(false);
	}
	rb_counters_row(&r->ctr, &with, true);
	rb_reports_row(&r->reps, &with);
	if (r->sink)
		r->sink(r->sink_arg, &with);
}

/*
 * The end of any two-sided run: forwards the first cause to the peer (unless the
 * peer sent it; the peer names our role with it), and closes the documents (complete or not).
 * Returns ret, or -EIO when a document could not be written.
 */
static int finish(struct rb_run *r, int ret)
{
	if (ret && ret != -EREMOTEIO)
		rb_oob_send_error(&r->oob, "%s", rb_first_error());
	/* What was measured is kept: the documents say whether the sweep completed. */
	if (rb_reports_finish(&r->reps, ret ? rb_first_error() : NULL) && !ret)
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

	if (rb_gate_text(&r->gate, &r->gate_opts, a.why, sizeof(a.why)))
		a.ok = false;
	ret = rb_agree(&r->oob, &a, peer_role(r));
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
	int code = parse(tool, t, r, r->argc, r->argv);

	if (code < 0 && r->out_opts.interval_s > 0 && !tool->intervals) {
		rb_usage_err("--interval: %s writes one row per size, none within it", tool->name);
		code = RB_EXIT_USAGE;
	}
	if (code < 0 && tool->check(t, r))
		code = RB_EXIT_USAGE;
	if (code < 0 && tool->offline)
		code = tool->offline(t, r);
	if (code < 0) {
		struct rb_opt_table tables[MAX_TABLES];

		hello(tool, t, r);
		/* The client's given test options travel in its HELLO: the server takes what it was not
		 * given. */
		if (r->client && rb_opts_export(tables, tables_of(tool, t, r, tables), &r->given, &r->mine))
			code = RB_EXIT_USAGE;
	}
	/* Output paths are checked before anyone waits on us: a typo is exit 2 at once. */
	/* A persistent server numbers its documents on from those a former one left. */
	if (code < 0 && r->oob_opts.persist && run == 1)
		r->first_doc = rb_reports_first_free(&r->out_opts);
	/* --auth-key FILE or RB_AUTH_KEY (--all-pairs keys its pairs with the job's cookie). */
	if (code < 0 && !r->fab.all_pairs && rb_auth_key_load(r->oob_opts.auth_file, &r->oob_opts.key))
		code = RB_EXIT_USAGE;
	/* --all-pairs: rank 0's coordinator writes the one document of the job. */
	if (code < 0 && !r->fab.all_pairs &&
	    rb_reports_open(&r->reps, &r->out_opts, r->oob_opts.persist ? r->first_doc + run - 1 : 0))
		code = RB_EXIT_USAGE;
	return code;
}

/*
 * A server's --max-run-time, by its own clock, whatever the client does; not for a
 * --run-infinitely it was allowed to take (or was given itself).
 */
static void arm_limit(const struct rb_run *r)
{
	const char *forever = rb_hello_get(&r->mine, "run_infinitely");

	/* A run this server was given itself is its operator's; one a client chose, or any of a persistent
	 * server's, is capped. */
	if (!r->client && (r->adopted || r->oob_opts.persist) && !(forever && !strcmp(forever, "1")))
		rb_sig_run_limit(r->limits.max_time_s);
}

/*
 * One run, documents open: set-up, the peer, the sizes, finish, teardown. Returns
 * the run's error; *idle is set when a persistent server was stopped while it
 * waited for a client (nothing ran, so no document is written).
 */
static int one_run(const struct rb_tool *tool, void *t, struct rb_run *r, bool *idle)
{
	struct rb_row m;
	bool began = false;
	int ret, judged = 0;

	r->met = false;
	ret = tool->setup ? tool->setup(t, r) : 0;
	r->set_up = !ret;
	if (!ret)
		ret = connect_peer(tool, t, r);
	if (r->listening && !r->oob_opts.persist) {
		rb_oob_server_close(&r->srv);
		r->listening = false;
	}
	if (!ret) {
		if (rb_reports_text(&r->reps)) {
			tool->header(t, r);
			fflush(stdout);
		}
		meta_system(tool, r, &m);
		tool->meta(t, r, &m);
		rb_reports_begin(&r->reps, &m);
		began = true;
		arm_limit(r);
		ret = steps(tool, t, r);
		if (!ret)
			ret = agree_run(r, &judged);
		rb_sig_run_limit(0);
	}
	*idle = ret == -EINTR && r->oob_opts.persist && !r->peer.tool[0];
	if (*idle) {
		rb_reports_abort(&r->reps);
	} else {
		if (!began) {
			meta_system(tool, r, &m);
			rb_reports_begin(&r->reps, &m);
		}
		ret = finish(r, ret);
		/* The run itself succeeded, and its documents say so; the gates (ours, then the peer's) judge
		 * it after. */
		if (!ret && began)
			ret = rb_gate_verdict(&r->gate, &r->gate_opts);
		if (!ret)
			ret = judged;
	}
	if (tool->teardown)
		tool->teardown(t, r);
	r->set_up = false;
	rb_oob_close(&r->oob);
	return ret;
}

static void reset(struct rb_run *r);

int rb_run_pair(const struct rb_tool *tool, void *t, struct rb_run *r, const char *host, uint32_t port,
                void (*sink)(void *arg, const struct rb_row *row), void *arg, char *dev)
{
	struct rb_row m;
	int ret;

	dev[0] = '\0';
	reset(r);
	/* The same command line on every rank; the role is this pair's. */
	if (parse(tool, t, r, r->argc, r->argv) != -1)
		return -EINVAL;
	r->client = host != NULL;
	r->host = host;
	if (tool->check(t, r))
		return -EINVAL;
	hello(tool, t, r);
	ret = tool->setup ? tool->setup(t, r) : 0;
	r->set_up = !ret;
	if (!ret && r->client) {
		struct rb_oob_opts o = r->oob_opts;

		o.port = port;
		ret = rb_oob_connect(host, &o, &r->oob);
		if (!ret)
			ret = rb_oob_negotiate(&r->oob, &r->mine, &r->peer);
		if (!ret)
			ret = tool->connect(t, r);
	} else if (!ret) {
		struct tool_call c = {tool, t, r};

		r->srv.deadline = rb_now_ns() + (uint64_t)r->oob_opts.timeout_s * 1000000000ull;
		ret = rb_run_serve(&r->srv, &r->oob, &r->mine, &r->peer, NULL, tool_connect, &c);
	}
	if (!ret) {
		const char *d;

		meta_system(tool, r, &m);
		tool->meta(t, r, &m);
		d = rb_row_get_str(&m, "device");
		if (!d)
			d = rb_row_get_str(&m, "interface");
		snprintf(dev, 64, "%s", d ? d : "");
		r->sink = r->client ? sink : NULL;
		r->sink_arg = arg;
		ret = steps(tool, t, r);
		r->sink = NULL;
	}
	ret = finish(r, ret);
	if (tool->teardown)
		tool->teardown(t, r);
	r->set_up = false;
	rb_oob_close(&r->oob);
	return ret;
}

/* A persistent server between runs: the next one starts from the command line alone. */
static void reset(struct rb_run *r)
{
	memset(&r->oob, 0, sizeof(r->oob));
	r->oob.fd = -1;
	memset(&r->mine, 0, sizeof(r->mine));
	memset(&r->peer, 0, sizeof(r->peer));
	memset(&r->offer, 0, sizeof(r->offer));
	memset(&r->gate, 0, sizeof(r->gate));
	r->adopted = false;
	r->progress_shown = false;
	rb_forget_first_error();
}

struct rb_run *rb_run_new(int argc, char **argv)
{
	struct rb_run *r = calloc(1, sizeof(*r));

	rb_log_init(argv[0]);
	rb_sig_install();
	if (!r) {
		rb_err("out of memory");
		return NULL;
	}
	r->oob.fd = -1;
	r->argc = argc;
	r->argv = argv;
	srandom((unsigned)time(NULL) ^ (unsigned)getpid());
	return r;
}

int rb_run_start(const struct rb_tool *tool, void *t, struct rb_run *r)
{
	if (rb_msg_register(tool->msgs, tool->nmsgs)) {
		rb_err("internal error: %s's frame types clash with the library's", tool->name);
		return RB_EXIT_RUNTIME;
	}
	rb_fault_register(tool->faults, tool->nfaults);
	return start(tool, t, r, 1);
}

int rb_run_runs(const struct rb_tool *tool, void *t, struct rb_run *r, int code)
{
	unsigned runs = 0, failed = 0;
	bool idle = false;
	int ret;

	while (code < 0) {
		ret = one_run(tool, t, r, &idle);
		code = rb_exit_code(ret);
		if (!r->oob_opts.persist || idle)
			break;
		/* Stopped during a run: that run's signal, whatever else it ended with; after it, as idle. */
		if (rb_check_stop()) {
			idle = !ret;
			runs += idle;
			code = rb_exit_code(-EINTR);
			break;
		}
		/* Set-up or the listener failed before any client: it would fail again at once. */
		if (ret && !r->met)
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

/* SPDX-License-Identifier: BSD-2-Clause */
/* The run's command line: its option tables, what goes with what, the role, this side's HELLO. */
#include "driver_priv.h"
#include "verbs_tool.h"

#include "base/base.h"
#include "host/host.h"
#include "oob/oob.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The tool's option tables, then the driver's; returns how many. */
unsigned rb_drv_tables(const struct rb_tool *tool, void *t, struct rb_run *r, struct rb_opt_table *tables)
{
	unsigned n = tool->cli.opt_tables(t, tables, RB_DRV_MAX_TABLES - 8);

	/* A verbs tool's users come from perftest; socket_bw's from iperf3 (its own table). */
	if (tool->link.verbs)
		tables[n++] = rb_perftest_opt_table(&r->d->pt);

	tables[n++] = rb_oob_opt_table(&r->oob_opts);
	tables[n++] = rb_limits_opt_table(&r->d->limits);
	if (r->layer)
		tables[n++] = r->layer->table(r->layer->arg);
	tables[n++] = rb_repeat_opt_table(&r->d->rep);
	tables[n++] = rb_gate_opt_table(&r->gate_opts);
	tables[n++] = rb_out_opt_table(&r->out_opts);
	tables[n++] = rb_common_opts();
	return n;
}

/*
 * --repeat with what it cannot go with. A server checks again once it took its client's
 * options (theirs may bring --repeat); until then its own --max-cv may wait for one.
 * Returns 0 or -EINVAL (said).
 */
int rb_drv_check_repeat(struct rb_run *r, bool need_repeat_for_cv)
{
	if (r->d->rep.n > 1 && r->out_opts.interval_s > 0) {
		rb_usage_err("--repeat %u with --interval: choose one (intervals show the spread within a "
		             "size's run, repeats the spread between runs)",
		             r->d->rep.n);
		return -EINVAL;
	}
	if (need_repeat_for_cv && r->gate_opts.max_cv_pct > 0 && r->d->rep.n < 2) {
		rb_usage_err("--max-cv %g needs --repeat N (N >= 2): the CV is taken over a size's repeats",
		             r->gate_opts.max_cv_pct);
		return -EINVAL;
	}
	return 0;
}

#define FOREVER_INTERVAL_S 5.0 /* --run-infinitely's rows without --interval, as perftest's */

const struct rb_runlen_opts *rb_drv_runlen(const struct rb_tool *tool, const void *t)
{
	return (const struct rb_runlen_opts *)((const char *)t + tool->cli.len_at);
}

int rb_drv_check(const struct rb_tool *tool, void *t, struct rb_run *r)
{
	const struct rb_runlen_opts *len = rb_drv_runlen(tool, t);

	if (len->forever && r->d->pt.warm_up) {
		rb_usage_err("--perform_warm_up with --run-infinitely: the warm-up pass would never end");
		return -EINVAL;
	}
	if (tool->cli.check(t, r))
		return -EINVAL;
	if (len->forever && r->client && !(r->out_opts.interval_s > 0))
		r->out_opts.interval_s = FOREVER_INTERVAL_S;
	return 0;
}

/* Defaults, then the command line. */
int rb_drv_parse(const struct rb_tool *tool, void *t, struct rb_run *r, int argc, char **argv)
{
	struct rb_opt_table tables[RB_DRV_MAX_TABLES];
	unsigned n;
	int pos;

	if (tool->cli.defaults)
		tool->cli.defaults(t);
	rb_oob_opts_default(&r->oob_opts);
	rb_limits_default(&r->d->limits);
	rb_out_opts_default(&r->out_opts);
	r->out_opts.units = tool->out.units;
	rb_gate_opts_default(&r->gate_opts);
	rb_repeat_opts_default(&r->d->rep);
	if (r->layer)
		r->layer->defaults(r->layer->arg);
	memset(&r->d->pt, 0, sizeof(r->d->pt));
	memset(&r->given, 0, sizeof(r->given));
	n = rb_drv_tables(tool, t, r, tables);
	rb_opts_env(tables, n, tool->cli.nccl_env, &r->env);
	pos = rb_opts_parse(tables, n, argc, argv, tool->id.usage, &r->given);
	if (pos >= 0 && rb_opts_env_settle(&r->env, &r->given))
		return RB_EXIT_USAGE;
	pos = rb_run_host(argc, argv, pos, &r->host, &r->client);
	if (pos < 0 && r->client && r->oob_opts.bind) {
		rb_usage_err(
		    "--bind %s is for the server (the address it listens on); a client connects to %s",
		    r->oob_opts.bind, r->host);
		return RB_EXIT_USAGE;
	}
	r->job = false;
	if (pos < 0 && r->layer) {
		int job = r->layer->check(r->layer->arg, r, rb_drv_runlen(tool, t));

		if (job < 0)
			return RB_EXIT_USAGE;
		r->job = job > 0;
	}
	if (pos < 0 && rb_drv_check_repeat(r, r->client || r->job))
		return RB_EXIT_USAGE;
	if (pos < 0 && r->client && r->oob_opts.persist) {
		rb_usage_err("--persist is for the server (it serves one client after another); a client "
		             "makes one run");
		return RB_EXIT_USAGE;
	}
	if (pos < 0 && tool->link.verbs &&
	    rb_perftest_apply(&r->d->pt, &r->given, &r->out_opts, &r->gate_opts,
	                      &((struct rb_verbs *)((char *)t + tool->link.verbs_at))->dev))
		return RB_EXIT_USAGE;
	/* After the checks of what the user typed (--source_ip beside -x): NCCL's settings are
	 * the run's only where the tool runs NCCL's protocol. */
	if (pos < 0 && tool->cli.nccl_env)
		rb_opts_env_give(&r->env, &r->given);
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

void rb_drv_hello(const struct rb_tool *tool, void *t, struct rb_run *r)
{
	memset(&r->d->mine, 0, sizeof(r->d->mine));
	tool->link.hello(t, &r->d->mine);
	/* Both sides measure each size as often: the closing agreement of every repeat pairs up
	 * (said only with repeats, so a peer from before --repeat still meets a run without). */
	if (r->d->rep.n > 1)
		rb_hello_add(&r->d->mine, "repeat", "%u", r->d->rep.n);
	/* The warm-up is one more measurement on each side: both make it, or neither. */
	if (r->d->pt.warm_up)
		rb_hello_add(&r->d->mine, "warm_up", "1");
	if (gethostname(r->d->mine.host, sizeof(r->d->mine.host) - 1))
		snprintf(r->d->mine.host, sizeof(r->d->mine.host), "unknown");
	/* The peer's decoder takes printable ASCII only: a UTF-8 hostname must not fail the handshake. */
	for (char *c = r->d->mine.host; *c; c++)
		if (*c < 0x20 || *c > 0x7e)
			*c = '?';
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* Finding the peer: a client connects; a server takes the first candidate that holds (its options adopted,
 * strangers refused). */
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

/* The tool's transport; then a verbs tool's port counters, read around every size (the driver's). */
static int tool_connect(const struct rb_tool *tool, void *t, struct rb_run *r)
{
	int ret = tool->link.connect(t, r);

	if (tool->link.verbs) {
		const struct rb_verbs *v = (const struct rb_verbs *)((const char *)t + tool->link.verbs_at);

		rb_counters_open(&r->ctr, "/sys", v->conn.dev.name, v->conn.dev.port);
	}
	return ret;
}

/*
 * Server: the first client whose HELLO, parameters and connect(arg) all hold is the
 * peer; adopt(arg), when given, first takes the options of the candidate's HELLO.
 * One that goes silent, closes or turns to garbage after a well-formed HELLO
 * (connect returns -EPROTO: nothing of ours changed) is refused like any stranger,
 * its errors are not the run's cause, and the wait goes on within --oob-timeout.
 * Each frame of a candidate's handshake gets RB_OOB_HELLO_MS at most. The caller
 * listens (rb_oob_listen) and closes the listener: a persistent server keeps it
 * open across runs, so a client arriving during a run waits in its backlog.
 */
static int serve(struct rb_oob_server *srv, struct rb_oob *oob, const struct rb_hello *mine,
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

/* Server: a candidate's request beyond what this side will do; it is told why, and exits 2. */
static int refuse_request(struct rb_run *r, const char *why)
{
	rb_oob_send_refuse(r->oob, "%s", why);
	return rb_oob_refusal(r->oob, "%s", why);
}

/*
 * Server, a candidate's HELLO screened (r->d->peer): its options for every test
 * parameter this side was not given. The tool's state is built again from scratch:
 * defaults, our command line, the client's options, check, hello; then the run it
 * asks for is held against this server's limits. Nothing is allocated: setup waits
 * until the negotiation has passed (serve_connect). A candidate that offers nothing
 * this side was not given changes nothing: the state set up before it came stays.
 */
static int adopt(void *arg)
{
	struct tool_call *c = arg;
	struct rb_run *r = c->r;
	struct rb_opt_table tables[RB_DRV_MAX_TABLES];
	char why[RB_WIRE_MSG_LEN - 64];
	bool bad, own_forever;

	if (!r->d->peer.nargs && !r->d->adopted)
		return 0;
	/*
	 * Every option the candidate gave, this side was given too: the state built from our
	 * command line (its QPs included) is the one the run needs, and is kept (serve_connect
	 * still builds it anew where a refused candidate was shown it).
	 */
	if (!r->d->adopted && r->d->set_up &&
	    !rb_opts_adopt_takes(tables, rb_drv_tables(c->tool, c->t, r, tables), &r->given, &r->d->peer))
		return 0;
	r->d->offer = r->d->peer; /* adopted string options point into it for the rest of the run */
	if (r->d->set_up && c->tool->link.teardown && !c->tool->link.teardown(c->t, r)) {
		/* Not a refusal (the next candidate would meet the same): the server ends. */
		r->d->stuck = true;
		rb_oob_send_refuse(r->oob, "the server cannot run: a thread of its set-up was left running");
		rb_err("a thread of this server's set-up was left running: it cannot take a client");
		return -EDEADLK;
	}
	r->d->set_up = false;
	bad = rb_drv_parse(c->tool, c->t, r, r->argc, r->argv) >= 0;
	/* The server's own --run-infinitely, before the client's options: its consent to one. */
	own_forever = !bad && rb_drv_runlen(c->tool, c->t)->forever;
	if (bad || rb_opts_adopt(tables, rb_drv_tables(c->tool, c->t, r, tables), &r->given, &r->d->offer) ||
	    rb_drv_check_repeat(r, true) || rb_drv_check(c->tool, c->t, r)) {
		r->d->adopted = true; /* the state holds its options: the next candidate starts over */
		return refuse_request(r, rb_first_error());
	}
	r->d->adopted = r->d->offer.nargs > 0;
	rb_drv_hello(c->tool, c->t, r);
	if (r->d->adopted && rb_limits_check(&r->d->limits, &r->d->mine,
	                                     c->tool->link.mem_need ? c->tool->link.mem_need(c->t) : 0,
	                                     own_forever, why, sizeof(why)))
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

	r->d->met = true;
	/* A refused candidate was shown this state (--all-pairs has no adopt to rebuild it): anew. */
	if (r->d->exposed && r->d->set_up && c->tool->link.teardown) {
		if (!c->tool->link.teardown(c->t, r)) {
			r->d->stuck = true;
			return -EDEADLK;
		}
		r->d->set_up = false;
	}
	r->d->exposed = true;
	if (!r->d->set_up && c->tool->link.setup) {
		ret = c->tool->link.setup(c->t, r);
		if (ret == -EPROTO)
			ret = -EIO;
	}
	r->d->set_up = !ret;
	return ret ? ret : tool_connect(c->tool, c->t, r);
}

int rb_drv_meet(const struct rb_tool *tool, void *t, struct rb_run *r, uint32_t port)
{
	struct rb_oob_opts o = r->oob_opts;
	int ret;

	if (!r->client) {
		struct tool_call c = {tool, t, r};

		/* A pair of --all-pairs: the job's listener is open; the partner has --oob-timeout to come.
		 */
		if (port) {
			r->srv.deadline = rb_now_ns() + (uint64_t)r->oob_opts.timeout_s * 1000000000ull;
		} else {
			if (!r->listening && (ret = rb_oob_listen(&r->oob_opts, &r->srv)))
				return ret;
			r->listening = true;
		}
		return serve(&r->srv, r->oob, &r->d->mine, &r->d->peer,
		             tool->cli.defaults && !port ? adopt : NULL, serve_connect, &c);
	}
	if (port)
		o.port = port;
	ret = rb_oob_connect(r->host, &o, r->oob);
	if (!ret)
		ret = rb_oob_negotiate(r->oob, &r->d->mine, &r->d->peer);
	if (!ret)
		ret = tool_connect(tool, t, r);
	return ret;
}

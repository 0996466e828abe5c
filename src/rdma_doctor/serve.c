/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rdma_doctor --serve: the other side of a triage. It starts an rc_write_bw and a
 * socket_bw persistent server (ports -p + 1 and + 2; -d, --bind and --auth-key passed
 * on, their runs capped at DR_SERVE_RUN_S each) and answers each rdma_doctor --peer
 * with this host's facts, scanned anew for every asker. A stranger gets what the
 * suite's servers give one: screened and refused before this side says anything
 * (with --auth-key, before it says even that). SIGINT/SIGTERM end it and its servers.
 */
#include "triage.h"
#include "spawn.h"

#include "base/base.h"
#include "rb_config.h"
#include "oob/oob.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define DR_SERVE_RUN_S "60" /* the longest run a triage asks for is a few seconds */

/*
 * A persistent tool server on port; -1 when it did not start or stopped at once (it
 * said why): the serve goes on, and its facts tell the asker (port 0), whose walk may
 * well stop earlier, at this host's own layers.
 */
static pid_t start_server(const char *tool, unsigned port, const struct dr_triage_opts *o)
{
	char p[16];
	const char *argv[16] = {tool, "--persist", "-p", p, "--max-run-time", DR_SERVE_RUN_S};
	unsigned n = 6;
	int st;
	pid_t pid;

	snprintf(p, sizeof(p), "%u", port);
	if (o->dev && !strcmp(tool, "rc_write_bw")) {
		argv[n++] = "-d";
		argv[n++] = o->dev;
	}
	if (o->oob.bind) {
		argv[n++] = "--bind";
		argv[n++] = o->oob.bind;
	}
	if (o->oob.auth_file) {
		argv[n++] = "--auth-key";
		argv[n++] = o->oob.auth_file;
	}
	pid = dr_spawn((char *const *)argv, NULL);
	if (pid < 0) {
		rb_err("cannot start %s: %s", tool, strerror(errno));
		return -1;
	}
	/* A port in use or a bad -d ends it at once: then so does the serve. */
	for (int i = 0; i < 10; i++) {
		usleep(50000);
		if (waitpid(pid, &st, WNOHANG) == pid) {
			rb_warn("%s on port %u ended at once (exit %d): see its message above; serving facts "
			        "without it",
			        tool, port, WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
			return -1;
		}
	}
	return pid;
}

/*
 * --perftest: perftest's ib_write_bw as a server, started anew after each client (it
 * serves one), for the campaign's baseline: "-a -F --report_gbits" (a client runs the
 * same). perftest has no authentication: with --auth-key it is said so.
 */
static pid_t start_perftest(unsigned port, const struct dr_triage_opts *o)
{
	/* One that ends within a second (no device, a port in use) is tried again after 5 s, not at once. */
	static const char loop[] =
	    "trap 'kill 0' TERM; while :; do t=$(date +%s); \"$@\" >/dev/null 2>&1 & wait $!; "
	    "[ $(($(date +%s) - t)) -le 1 ] && sleep 5; sleep 0.2; done";
	char p[16], iters[16];
	const char *argv[16] = {"sh", "-c", loop, "sh", "ib_write_bw", "-p", p, "-a", "-F", "--report_gbits"};
	unsigned n = 10;
	pid_t pid;

	if (!dr_in_path("ib_write_bw")) {
		rb_warn("--perftest: no ib_write_bw on PATH (install perftest): serving without a baseline");
		return -1;
	}
	if (o->oob.key.set)
		rb_warn("--perftest: ib_write_bw on port %u takes anyone: perftest has no authentication",
		        port);
	snprintf(p, sizeof(p), "%u", port);
	if (o->dev) {
		argv[n++] = "-d";
		argv[n++] = o->dev;
	}
	if (o->perftest_iters) {
		snprintf(iters, sizeof(iters), "%u", o->perftest_iters);
		argv[n++] = "-n";
		argv[n++] = iters;
	}
	pid = dr_spawn((char *const *)argv, NULL);
	if (pid < 0)
		rb_warn("--perftest: cannot start ib_write_bw: %s", strerror(errno));
	return pid;
}

/* One asker: screened, HELLO answered, this host's facts sent. */
/* "facts sent" lines: a few per window, then how many were not said (askers can be many). */
static void said_facts(const struct rb_oob *c, const struct rb_hello *facts)
{
	static uint64_t window;
	static unsigned in_window, unsaid;
	uint64_t now = rb_now_ns();

	if (now - window > (uint64_t)RB_OOB_REFUSAL_LOG_S * RB_NS_PER_S) {
		if (unsaid)
			printf("%s: %u more askers answered in the last %u s\n", rb_prog(), unsaid,
			       RB_OOB_REFUSAL_LOG_S);
		window = now;
		in_window = unsaid = 0;
	}
	if (in_window++ >= RB_OOB_REFUSAL_BURST) {
		unsaid++;
		return;
	}
	printf("%s: facts sent to %s (%s%s%s)\n", rb_prog(), c->peer,
	       dr_fact(facts, "dev")[0] ? dr_fact(facts, "dev") : "no RDMA port here",
	       dr_fact(facts, "dev")[0] ? " " : "", dr_fact(facts, "state"));
	fflush(stdout);
}

/* A server that ended since: said once, and its port no longer offered. */
static void reap(pid_t *pid, unsigned *port, const char *tool)
{
	int st;

	if (*pid > 0 && waitpid(*pid, &st, WNOHANG) == *pid) {
		rb_warn("%s on port %u ended (%s %d): its port is no longer offered", tool, *port,
		        WIFEXITED(st) ? "exit" : "signal", WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
		*pid = -1;
		*port = 0;
	}
}

/* The traffic class the asker's HELLO names (another host's word: 0..255, else this host's own). */
static const struct dr_tclass *asked_tclass(const struct rb_hello *remote, const struct dr_tclass *own,
                                            struct dr_tclass *out)
{
	uint64_t v;

	for (unsigned i = 0; i < remote->nargs; i++)
		if (!strcmp(remote->args[i].key, "tclass") && !rb_parse_u64(remote->args[i].val, &v) &&
		    v <= 255) {
			*out = (struct dr_tclass){(int)v, "the asker's -T"};
			return out;
		}
	return own;
}

/*
 * One asker: judged without a word on stderr (a refusal is one rate-limited line, by
 * rb_oob_refuse; an answer one line on stdout, rate-limited too), each frame within
 * RB_OOB_HELLO_MS, then this host's facts: scanned
 * anew at most once a second, however many ask.
 */
static void answer(struct rb_oob_server *srv, struct rb_oob *c, const struct dr_triage_opts *o,
                   const unsigned ports[3], const struct dr_roots *r, const struct rb_hca_filter *filt,
                   const struct rb_addr_range *range, const char *hca)
{
	static struct dr_host h;
	static struct rb_hello mine, remote, facts;
	static uint64_t scanned;
	struct dr_tclass tc;
	uint8_t *buf;
	struct rb_wbuf w;
	int ret;

	dr_triage_hello(&mine);
	c->timeout_ms = RB_OOB_HELLO_MS;
	rb_log_hold(true);
	ret = rb_oob_screen(c, &mine, &remote);
	if (!ret)
		ret = rb_oob_negotiate(c, &mine, &remote);
	if (ret) {
		rb_log_hold(false);
		rb_oob_refuse(srv, c,
		              c->refusal[0]      ? c->refusal
		              : rb_first_error() ? rb_first_error()
		                                 : "gone");
		return;
	}
	rb_log_hold(false); /* a version that differs: the asker's walk says so, not a line here per ask */
	if (!scanned || rb_now_ns() - scanned > RB_NS_PER_S) {
		dr_scan(r, &h, filt, range, hca);
		scanned = rb_now_ns();
	}
	/* Where the asker's traffic class lands here (its HELLO says which; this host's own without). */
	dr_scan_dcb(r, &h, asked_tclass(&remote, &o->tclass, &tc));
	dr_facts(&h, o->dev, r->sys, ports, &facts);
	buf = malloc(rb_msg_max_len(RB_MSG_HELLO));
	if (buf) {
		w = (struct rb_wbuf){buf, 0, rb_msg_max_len(RB_MSG_HELLO), false};
		rb_hello_encode(&w, &facts);
		if (!rb_oob_send_w(c, RB_MSG_HELLO, &w))
			said_facts(c, &facts);
		free(buf);
	}
	rb_oob_close(c);
}

int dr_serve(const struct dr_triage_opts *o, const struct dr_roots *r, const struct rb_hca_filter *filt,
             const struct rb_addr_range *range, const char *hca)
{
	struct rb_oob_opts oo = o->oob;
	struct rb_oob_server srv;
	struct rb_oob c;
	pid_t bw, sock, perf;
	unsigned ports[3];
	int ret = 0;

	if (oo.port > 65532) {
		rb_usage_err(
		    "invalid value '%u' for --port (allowed: 1..65532 with --serve: its servers use the "
		    "next three)",
		    oo.port);
		return RB_EXIT_USAGE;
	}
	oo.persist = true;
	rb_sig_install();
	signal(SIGPIPE, SIG_IGN); /* a closed stdout (| head) must not end the serve and its servers */
	ret = rb_oob_listen(&oo, &srv);
	if (ret)
		return ret == -EINVAL ? RB_EXIT_USAGE : RB_EXIT_RUNTIME;
	bw = start_server("rc_write_bw", oo.port + 1, o);
	sock = start_server("socket_bw", oo.port + 2, o);
	perf = o->perftest ? start_perftest(oo.port + 3, o) : -1;
	ports[0] = bw > 0 ? oo.port + 1 : 0;
	ports[1] = sock > 0 ? oo.port + 2 : 0;
	ports[2] = perf > 0 ? oo.port + 3 : 0;
	printf("%s: serving triage on port %u (rc_write_bw on %u, socket_bw on %u, ib_write_bw on %u; 0: not "
	       "running) until SIGINT/SIGTERM\n",
	       rb_prog(), oo.port, ports[0], ports[1], ports[2]);
	fflush(stdout);
	while (!ret) {
		ret = rb_oob_next_client(&srv, &c);
		reap(&bw, &ports[0], "rc_write_bw");
		reap(&sock, &ports[1], "socket_bw");
		reap(&perf, &ports[2], "ib_write_bw's loop");
		if (!ret)
			answer(&srv, &c, o, ports, r, filt, range, hca);
		rb_forget_first_error();
	}
	dr_spawn_stop(bw);
	dr_spawn_stop(sock);
	dr_spawn_stop(perf);
	rb_oob_server_close(&srv);
	return rb_stop_signal() ? RB_EXIT_OK : RB_EXIT_RUNTIME;
}

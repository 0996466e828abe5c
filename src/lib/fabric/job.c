/* SPDX-License-Identifier: BSD-2-Clause */
#include "job.h"

#include "oob/oob.h"
#include "coord.h"
#include "fabmsg.h"
#include "launch.h"
#include "base/base.h"
#include "host/host.h"
#include "legs.h"
#include "rankaddr.h"
#include "victim.h"
#include "run/run.h"

#include <errno.h>
#include <netinet/in.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

/* This rank's part: the world, its listener, the coordinator's channel. */
struct rank {
	struct rb_fabric_opts *fab; /* the job's options */
	struct rb_world w;
	struct rb_oob ctl;
	char (*addr)[RB_LAUNCH_VAL_LEN]; /* every rank's "host port[,port...] ctlport cookie" */
	pid_t coord;                     /* rank 0: the coordinator's pid (0: none) */
	uint32_t round;
	struct rb_pair pair; /* this round's */
	int row_err;
	/* Its rails (one: the tool's own device choice); with several, a listener per rail. */
	int nrails;
	char rails[RB_MAX_RAILS][RB_RAIL_NAME];
	struct rb_oob_server srv[RB_MAX_RAILS];
	/* What each listener was opened with (it keeps a pointer): a free port, then the one it got. */
	struct rb_oob_opts lopts[RB_MAX_RAILS];
	char reached_on[256]; /* "eth0 10.1.2.3 (how it was chosen)" */
	/*
	 * --victim: every rank publishes one more listener (its address's last port), on
	 * which the victim's server, when it is this rank, serves (the latency tool takes
	 * it over); nports counts it. vsecret keys the victim's runs (RB_AUTH_KEY).
	 */
	int nports;
	struct rb_oob_server vsrv;
	struct rb_oob_opts vopts;
	char vsecret[64];
};

/* A row of this rank's pair (it is the client): to the coordinator at once. */
static void send_row(void *arg, const struct rb_row *row)
{
	static uint8_t buf[RB_FAB_ROW_MAX];
	struct rank *k = arg;
	struct rb_wbuf w = {buf, 0, sizeof(buf), false};

	rb_fab_row_encode(&w, k->round, k->pair.server, k->pair.client, 0, row);
	if (!k->row_err)
		k->row_err = rb_oob_send_w(&k->ctl, RB_MSG_ROW, &w);
}

/* Every partner GO names is another rank of the job. */
static bool partners_ok(const struct rank *k, const struct rb_fab_go *g)
{
	if (g->partner != UINT32_MAX && (g->partner >= k->w.size || g->partner == k->w.rank))
		return false;
	for (unsigned i = 0; i < g->nflows; i++)
		if (g->flows[i].partner >= k->w.size || g->flows[i].partner == k->w.rank)
			return false;
	return true;
}

/*
 * Waits for the coordinator's GO (its keep-alives reset the silence bound) and checks
 * it: 0 and *g, or -errno: -EREMOTEIO when the run was aborted (the reason logged).
 */
static int wait_go(struct rank *k, uint32_t silence_s, struct rb_fab_go *g)
{
	uint64_t quiet = 0; /* ms without a frame */

	for (;;) {
		struct rb_frame f;
		int ret = rb_check_stop();

		if (ret)
			return ret;
		/* In slices, so a stop is heard within a second. */
		ret = rb_oob_readable(&k->ctl, 1000);
		if (ret == 0 && (quiet += 1000) < (uint64_t)silence_s * 1000)
			continue;
		if (ret == 0) {
			rb_err("peer %s sent nothing for %u s (its keep-alives stopped): lost", k->ctl.peer,
			       silence_s);
			return -ETIMEDOUT;
		}
		if (ret < 0) {
			rb_err("poll on the control connection failed: %s", strerror(-ret));
			return ret;
		}
		/* rb_oob_recv names what happened: a closed connection, the abort's reason. */
		ret = rb_oob_recv(&k->ctl, &f, 10000);
		if (ret)
			return ret;
		quiet = 0;
		if (f.type == RB_MSG_PROGRESS)
			continue;
		if (f.type != RB_MSG_GO || rb_fab_go_decode(f.p, f.len, g) || !partners_ok(k, g)) {
			rb_err("--all-pairs: unexpected or malformed %s frame from the coordinator",
			       rb_msg_name(f.type));
			return -EPROTO;
		}
		return 0;
	}
}

/*
 * A --pattern round's flows of this rank, all at once (legs.h): each serves on this
 * rank's listener or connects to its partner's. e gets the first failed flow's partner
 * and error, or RB_FAB_SEVERAL. Returns the flows' error, or the control channel's in
 * *ctl_err.
 */
static int run_flows(const struct rb_tool *tool, void *t, struct rb_run *r, struct rank *k,
                     const struct rb_fab_go *g, struct rb_fab_end *e, int *ctl_err)
{
	static struct rb_legs L;
	static char host[RB_FAB_GO_FLOWS][RB_LAUNCH_VAL_LEN];
	uint32_t cport, bad = UINT32_MAX, ports[RB_MAX_RAILS];
	uint8_t cookie[RB_FAB_COOKIE_LEN];
	int ret;

	memset(&L, 0, sizeof(L));
	L.n = g->nflows;
	L.ctl = &k->ctl;
	L.round = k->round;
	L.wall = true;
	L.victim = (struct rb_legs_victim){.secret = k->vsecret,
	                                   .duration_s = k->fab->victim.duration_s,
	                                   .dev = k->rails[0],
	                                   .oob_timeout_s = r->oob_opts.timeout_s};
	rb_victim_setup(tool, t, &L.victim);
	for (unsigned i = 0; i < L.n; i++) {
		const struct rb_fab_flow *f = &g->flows[i];
		bool victim = f->role == RB_FLOW_VICTIM_SERVER || f->role == RB_FLOW_VICTIM_CLIENT;
		bool client = f->role == RB_GO_CLIENT || f->role == RB_FLOW_VICTIM_CLIENT;
		struct rb_leg *leg = &L.leg[i];

		if ((victim && !k->fab->victim.set) ||
		    rb_rank_split_addr(k->addr[f->partner], host[i], sizeof(host[i]), ports, k->nports,
		                       &cport, cookie)) {
			rb_rank_bad_addr(f->partner, k->addr[f->partner], k->nports);
			e->partner = f->partner;
			return -EPROTO;
		}
		/* The victim's listener is the address's last port. */
		leg->port = victim ? ports[k->nrails] : ports[0];
		leg->victim = victim ? f->role : 0;
		leg->host = client ? host[i] : NULL;
		leg->srv = client ? NULL : victim ? &k->vsrv : &r->srv;
		leg->pair = client ? (struct rb_pair){.server = f->partner, .client = k->w.rank}
		                   : (struct rb_pair){.server = k->w.rank, .client = f->partner};
	}
	ret = rb_legs_run(tool, t, r, &L, e->dev, sizeof(e->dev), e->error, sizeof(e->error), &bad, ctl_err);
	e->partner = ret ? bad : RB_FAB_SEVERAL;
	return ret;
}

/* A failed run's exit code and first error into its END (ret 0: nothing to say). */
static void failed_with(struct rb_fab_end *e, int ret, const struct rb_fab_go *g, uint32_t *failed)
{
	if (!ret)
		return;
	e->code = (uint32_t)rb_exit_code(ret);
	if (!e->error[0])
		snprintf(e->error, sizeof(e->error), "%s", rb_first_error());
	/* A re-test that fails is evidence for the coordinator, not this rank's failure. */
	if (g->phase == RB_GO_SCHEDULE)
		(*failed)++;
	else
		rb_forget_first_error();
}

/* This rank's pair of the round GO named, then its END. Returns 0, or the control channel's error. */
static int run_round(const struct rb_tool *tool, void *t, struct rb_run *r, struct rank *k,
                     const struct rb_fab_go *g, uint32_t *failed)
{
	struct rb_fab_end e;
	uint8_t buf[RB_FAB_END_MAX];
	struct rb_wbuf w = {buf, 0, sizeof(buf), false};
	int ret = 0;

	memset(&e, 0, sizeof(e));
	e.round = k->round;
	e.partner = UINT32_MAX;
	if (g->role == RB_GO_SERVER || g->role == RB_GO_CLIENT) {
		bool client = g->role == RB_GO_CLIENT;
		uint32_t peer = g->partner;
		char host[RB_LAUNCH_VAL_LEN];
		uint32_t ports[RB_MAX_RAILS], cport;
		uint8_t cookie[RB_FAB_COOKIE_LEN];
		int ctl_err = 0;

		k->pair = client ? (struct rb_pair){.server = peer, .client = k->w.rank}
		                 : (struct rb_pair){.server = k->w.rank, .client = peer};
		e.partner = peer;
		k->row_err = 0;
		if (rb_rank_split_addr(k->addr[peer], host, sizeof(host), ports, k->nports, &cport, cookie)) {
			rb_rank_bad_addr(peer, k->addr[peer], k->nports);
			ret = -EPROTO;
		} else if (k->nrails == 1) {
			ret = rb_run_pair(tool, t, r, client ? host : NULL, ports[0], send_row, k, e.dev);
		} else {
			static struct rb_legs L;
			uint32_t bad;

			memset(&L, 0, sizeof(L));
			L.n = (unsigned)k->nrails;
			L.ctl = &k->ctl;
			L.round = k->round;
			L.rails = true;
			for (unsigned i = 0; i < L.n; i++)
				L.leg[i] = (struct rb_leg){
				    client ? host : NULL, ports[i], &k->srv[i], k->rails[i], k->pair, i, 0};
			ret = rb_legs_run(tool, t, r, &L, e.dev, sizeof(e.dev), e.error, sizeof(e.error),
			                  &bad, &ctl_err);
			if (ctl_err)
				return ctl_err;
		}
		failed_with(&e, ret, g, failed);
		if (k->row_err)
			return k->row_err;
		/* A thread of that pair still holds its QPs and a CPU: no pair of this rank runs beside it.
		 */
		if (rb_run_stuck(r)) {
			rb_err(
			    "a thread of the pair with rank %u did not stop and is left running; this rank "
			    "leaves the job",
			    peer);
			return -EDEADLK;
		}
	}
	if (g->role == RB_GO_FLOWS) {
		int ctl_err = 0;

		ret = run_flows(tool, t, r, k, g, &e, &ctl_err);
		if (ctl_err)
			return ctl_err;
		failed_with(&e, ret, g, failed);
	}
	rb_fab_end_encode(&w, &e);
	return rb_oob_send_w(&k->ctl, RB_MSG_END, &w);
}

/* Rank 0: the coordinator, forked before the launcher's exchange, on its own listener. */
static int start_coordinator(const struct rb_tool *tool, struct rb_run *r, struct rank *k, uint32_t *port,
                             uint8_t *cookie)
{
	struct rb_oob_opts lo = r->oob_opts;
	struct rb_oob_server ls;
	struct rb_coord_cfg cfg;
	int ret;

	lo.port = 0;
	lo.bind = NULL;
	if ((ret = rb_oob_listen(&lo, &ls)))
		return ret;
	*port = rb_rank_bound_port(ls.fd);
	/*
	 * The job's secret: 128 bits from getrandom, never a guessable fallback (a failed
	 * rank 0 publishes RB_RANK_FAILED_ADDR instead). It admits JOINs and keys every pair.
	 */
	if ((ret = rb_auth_random(cookie, RB_FAB_COOKIE_LEN)) || rb_reports_open(&r->reps, &r->out_opts, 0)) {
		rb_oob_server_close(&ls);
		return ret ? ret : -EINVAL;
	}
	fflush(NULL);
	k->coord = fork();
	if (k->coord < 0) {
		ret = -errno;
		rb_err("--all-pairs: cannot start the coordinator: %s", strerror(errno));
		rb_oob_server_close(&ls);
		return ret;
	}
	if (k->coord == 0) {
		/*
		 * The child: the coordinator only; it never touches the launcher. A process
		 * group of its own: a launcher that kills the job kills rank 0's group (mpirun:
		 * SIGTERM, SIGKILL a second later), and the documents are not to die with it.
		 * It is bounded without rank 0: every rank's silence or close ends it.
		 */
		setpgid(0, 0);
		rb_sig_forward(0);
		/* Rank 0's pair listeners are rank 0's. */
		if (r->listening)
			close(r->srv.fd);
		for (int i = 0; k->nrails > 1 && i < k->nrails; i++)
			close(k->srv[i].fd);
		if (k->vsrv.fd >= 0)
			close(k->vsrv.fd);
		memset(&cfg, 0, sizeof(cfg));
		cfg.tool = tool->id.name;
		cfg.victim_tool = tool->link.victim;
		cfg.size = k->w.size;
		cfg.fab = k->fab;
		cfg.join_timeout_s = r->oob_opts.timeout_s;
		cfg.silence_s = r->oob_opts.timeout_s + 10;
		memcpy(cfg.cookie, cookie, sizeof(cfg.cookie));
		cfg.gates = r->gate_opts;
		cfg.round_trip = tool->link.round_trip;
		cfg.reached_on = k->reached_on;
		cfg.reps = &r->reps;
		ret = rb_coord_run(&cfg, ls.fd);
		fflush(NULL);
		_exit(ret);
	}
	/* A stop that reaches rank 0 reaches the coordinator at once, whatever rank 0 is doing. */
	rb_sig_forward(k->coord);
	/* rank 0 itself: the documents are the coordinator's. */
	close(ls.fd);
	memset(&r->reps, 0, sizeof(r->reps));
	return 0;
}

static int join(struct rank *k, const struct rb_run *r)
{
	struct rb_fab_join j;
	uint8_t buf[RB_FAB_JOIN_MAX];
	struct rb_wbuf w = {buf, 0, sizeof(buf), false};
	struct rb_oob_opts o = r->oob_opts;
	char host[RB_LAUNCH_VAL_LEN];
	uint32_t ports[RB_MAX_RAILS], cport;
	uint8_t cookie[RB_FAB_COOKIE_LEN];
	int ret;

	if (rb_rank_split_addr(k->addr[0], host, sizeof(host), ports, k->nports, &cport, cookie) ||
	    cport == 0) {
		rb_rank_bad_addr(0, k->addr[0], k->nports);
		return -EPROTO;
	}
	o.port = cport;
	/* The coordinator speaks no handshake: the cookie in the JOIN is what admits this rank. */
	o.key.set = false;
	ret = rb_oob_connect(host, &o, &k->ctl);
	if (ret)
		return ret;
	{
		char was[sizeof(k->ctl.peer)];

		snprintf(was, sizeof(was), "%s", k->ctl.peer);
		snprintf(k->ctl.peer, sizeof(k->ctl.peer), "%.*s (rank 0's coordinator)",
		         (int)sizeof(k->ctl.peer) - 24, was);
	}
	memset(&j, 0, sizeof(j));
	j.rank = k->w.rank;
	j.size = k->w.size;
	j.pid = (uint32_t)getpid();
	j.rails = (uint32_t)k->nrails;
	memcpy(j.cookie, cookie, sizeof(j.cookie));
	for (int i = 0, off = 0; i < k->nrails && off < (int)sizeof(j.dev); i++)
		off += snprintf(j.dev + off, sizeof(j.dev) - (size_t)off, "%s%s", i ? "," : "", k->rails[i]);
	if (gethostname(j.host, sizeof(j.host) - 1))
		snprintf(j.host, sizeof(j.host), "unknown");
	for (char *c = j.host; *c; c++)
		if (*c < 0x20 || *c > 0x7e)
			*c = '?';
	snprintf(j.addr, sizeof(j.addr), "%.*s", (int)sizeof(j.addr) - 1, k->addr[k->w.rank]);
	rb_fab_join_encode(&w, &j);
	return rb_oob_send_w(&k->ctl, RB_MSG_JOIN, &w);
}

/* One listener on a free port per rail (r->srv for a single rail); ports gets them. */
static int listen_rails(struct rb_run *r, struct rank *k, uint32_t *ports)
{
	int ret = 0;

	for (int i = 0; i < k->nrails; i++) {
		k->srv[i].fd = -1;
		k->lopts[i] = r->oob_opts;
		k->lopts[i].port = 0;
	}
	for (int i = 0; i < k->nrails && !ret; i++) {
		struct rb_oob_server *srv = k->nrails == 1 ? &r->srv : &k->srv[i];

		ret = rb_oob_listen(&k->lopts[i], srv);
		ports[i] = ret ? 0 : rb_rank_bound_port(srv->fd);
		k->lopts[i].port = ports[i];
		r->listening = r->listening || (k->nrails == 1 && !ret);
	}
	return ret;
}

/*
 * Every pair connection proves the job's cookie (auth.h) before its HELLO: a stranger
 * on a rank's pair listener is refused before it can speak, whatever it sends, and a
 * rank never runs a pair against an impostor. The key is the cookie rank 0 published,
 * hashed with a label of its own use; the clients' copy (r->oob_opts, which
 * rb_run_pair copies) and the listeners' (k->lopts, which they point at) alike.
 */
static int key_pairs(struct rank *k, struct rb_run *r)
{
	static const char label[] = "rdmabench all-pairs pair key ";
	uint8_t cookie[RB_FAB_COOKIE_LEN], zero[RB_FAB_COOKIE_LEN] = {0};
	uint8_t secret[sizeof(label) - 1 + sizeof(cookie)];
	char host[RB_LAUNCH_VAL_LEN];
	uint32_t ports[RB_MAX_RAILS], cport;

	/* Rank 0's own cookie is never zero (2^-128): zeros are another rank's word in its place. */
	if (rb_rank_split_addr(k->addr[0], host, sizeof(host), ports, k->nports, &cport, cookie) ||
	    cport == 0 || !memcmp(cookie, zero, sizeof(zero))) {
		rb_rank_bad_addr(0, k->addr[0], k->nports);
		return -EPROTO;
	}
	/*
	 * The victim's runs (another tool, exec'd, the secret in its environment) prove a
	 * secret of their own: a hash of the cookie under another label, which gives neither
	 * the cookie nor the pairs' key.
	 */
	if (k->fab->victim.set) {
		static const char vlabel[] = "rdmabench victim key ";
		uint8_t vin[sizeof(vlabel) - 1 + sizeof(cookie)], h[RB_AUTH_LEN];

		memcpy(vin, vlabel, sizeof(vlabel) - 1);
		memcpy(vin + sizeof(vlabel) - 1, cookie, sizeof(cookie));
		rb_sha256(vin, sizeof(vin), h);
		for (int i = 0; i < 16; i++)
			snprintf(k->vsecret + 2 * i, sizeof(k->vsecret) - 2 * (size_t)i, "%02x", h[i]);
		memset(vin, 0, sizeof(vin));
		memset(h, 0, sizeof(h));
	}
	memcpy(secret, label, sizeof(label) - 1);
	memcpy(secret + sizeof(label) - 1, cookie, sizeof(cookie));
	rb_auth_key_from(&r->oob_opts.key, secret, sizeof(secret));
	for (int i = 0; i < k->nrails; i++)
		k->lopts[i].key = r->oob_opts.key;
	memset(secret, 0, sizeof(secret));
	memset(cookie, 0, sizeof(cookie));
	return 0;
}

/* Rank 0 waits for its coordinator: the job's exit code is the worse of the two. */
static int reap(struct rank *k, int code)
{
	int st = 0;

	if (k->coord <= 0)
		return code;
	while (waitpid(k->coord, &st, 0) < 0) {
		if (errno != EINTR) {
			rb_err("--all-pairs: waiting for the coordinator failed: %s", strerror(errno));
			rb_sig_forward(0);
			return code ? code : RB_EXIT_RUNTIME;
		}
	}
	rb_sig_forward(0);
	if (WIFEXITED(st) && WEXITSTATUS(st) > code)
		code = WEXITSTATUS(st);
	else if (!WIFEXITED(st) && code == RB_EXIT_OK)
		code = RB_EXIT_RUNTIME;
	return code;
}

/*
 * The rails this rank measures through: a verbs tool's devices (through the pointer its
 * struct rb_verbs holds, so that a tool without verbs links no verbs code), one otherwise.
 */
static int tool_rails(const struct rb_tool *tool, const void *t, char (*out)[RB_RAIL_NAME])
{
	const struct rb_verbs *v;

	if (!tool->link.verbs)
		return 1;
	v = (const struct rb_verbs *)((const char *)t + tool->link.verbs_at);
	return v->rails(v, out);
}

int rb_fabric_main(const struct rb_tool *tool, void *t, struct rb_run *r, struct rb_fabric_opts *fab)
{
	struct rank k;
	uint32_t ports[RB_MAX_RAILS] = {0}, cport = 0, failed = 0;
	uint8_t cookie[RB_FAB_COOKIE_LEN] = {0};
	char mine[RB_LAUNCH_VAL_LEN], how[96];
	struct rb_netif nif;
	int ret;

	memset(&k, 0, sizeof(k));
	memset(&nif, 0, sizeof(nif));
	k.ctl.fd = -1;
	/* A launcher's output pipe that closes first must not kill a rank before its exit code. */
	signal(SIGPIPE, SIG_IGN);
	/* Both directions unless the tool's every sample crosses both ways already. */
	k.fab = fab;
	if (!fab->pairs.dirs)
		fab->pairs.dirs = tool->link.round_trip ? 1 : 2;
	k.vsrv.fd = -1;
	k.nrails = tool_rails(tool, t, k.rails);
	if (k.nrails < 1)
		return RB_EXIT_USAGE;
	k.nports = k.nrails + (fab->victim.set ? 1 : 0);
	if (rb_launch_init(&k.w))
		return RB_EXIT_USAGE;
	if (k.w.size < 2) {
		rb_usage_err("--all-pairs needs at least 2 ranks (the launcher started %u)", k.w.size);
		rb_launch_fini(&k.w);
		return RB_EXIT_USAGE;
	}
	if (fab->victim.set && (fab->victim.server >= k.w.size || fab->victim.client >= k.w.size)) {
		rb_usage_err("invalid value '%u:%u' for --victim (allowed: two of the job's ranks, 0 to %u)",
		             fab->victim.server, fab->victim.client, k.w.size - 1);
		rb_launch_fini(&k.w);
		return RB_EXIT_USAGE;
	}
	if (fab->pattern.kind != RB_PAT_PAIRS) {
		char why[256];

		if (rb_pattern_fits(&fab->pattern, k.w.size, why, sizeof(why)) == 0 && k.nrails > 1)
			snprintf(why, sizeof(why),
			         "--pattern with %d rails (-d a,b or --hca): a pattern's flows each take one "
			         "device "
			         "(name one with -d)",
			         k.nrails);
		else if (rb_pattern_fits(&fab->pattern, k.w.size, why, sizeof(why)) == 0)
			why[0] = '\0';
		if (why[0]) {
			rb_usage_err("%s", why);
			rb_launch_fini(&k.w);
			return RB_EXIT_USAGE;
		}
	}
	k.addr = calloc(k.w.size, sizeof(*k.addr));
	if (!k.addr) {
		rb_err("out of memory for %u ranks' addresses", k.w.size);
		rb_launch_fini(&k.w);
		return RB_EXIT_RUNTIME;
	}
	/* The address the others reach this rank on; then its pair listener (one per rail): a free port. */
	ret = rb_netif_pick(fab->oob_ifname, k.rails[0], &nif, how, sizeof(how));
	if (!ret)
		snprintf(k.reached_on, sizeof(k.reached_on), "%s %s (%s)", nif.name, nif.addr_str, how);
	if (!ret)
		ret = listen_rails(r, &k, ports);
	if (!ret && fab->victim.set) {
		k.vopts = r->oob_opts;
		k.vopts.port = 0;
		if (!(ret = rb_oob_listen(&k.vopts, &k.vsrv)))
			ports[k.nrails] = rb_rank_bound_port(k.vsrv.fd);
	}
	if (!ret && k.w.rank == 0)
		ret = start_coordinator(tool, r, &k, &cport, cookie);
	rb_rank_my_addr(nif.addr_str, ports, k.nports, cport, cookie, mine, sizeof(mine));
	/* Every rank takes part in the exchange, even a failed one: the others are not left waiting. */
	if (rb_launch_allgather(&k.w, "rdmabench.addr", ret ? RB_RANK_FAILED_ADDR : mine, k.addr,
	                        r->oob_opts.timeout_s) &&
	    !ret)
		ret = -EIO;
	/*
	 * The launcher's part is done: from here the ranks speak only to each other. A rank
	 * that dies later is then an ordinary task failure to the launcher (srun leaves the
	 * others running unless told otherwise), not a PMIx client's abort, which Slurm's
	 * PMIx plugin answers by cancelling the whole step before rank 0 can name it.
	 */
	rb_launch_fini(&k.w);
	memset(cookie, 0, sizeof(cookie));
	if (!ret)
		ret = key_pairs(&k, r);
	if (!ret)
		ret = join(&k, r);
	while (!ret) {
		struct rb_fab_go g;

		if ((ret = wait_go(&k, r->oob_opts.timeout_s + 10, &g)) || g.role == RB_GO_OVER)
			break;
		k.round = g.round;
		ret = run_round(tool, t, r, &k, &g, &failed);
		if (!ret)
			ret = rb_check_stop();
	}
	rb_oob_close(&k.ctl);
	if (r->listening)
		rb_oob_server_close(&r->srv);
	r->listening = false;
	for (int i = 0; k.nrails > 1 && i < k.nrails; i++)
		if (k.srv[i].fd >= 0)
			rb_oob_server_close(&k.srv[i]);
	if (k.vsrv.fd >= 0)
		rb_oob_server_close(&k.vsrv);
	memset(k.vsecret, 0, sizeof(k.vsecret));
	free(k.addr);
	rb_launch_fini(&k.w);
	ret = ret ? rb_exit_code(ret) : failed ? RB_EXIT_RUNTIME : RB_EXIT_OK;
	return reap(&k, ret);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rdma_doctor --peer HOST: the triage tree (triage.h), walked in order; the first
 * layer that fails ends the walk and names itself, with its evidence and the next
 * thing to check. Warnings do not end it. Every run is one of the suite's tools
 * against the peer's --serve, bounded by its own time; the sum is stated up front.
 */
#include "triage.h"
#include "spawn.h"
#include "walk.h"

#include "base/base.h"
#include "rb_config.h"
#include "host/host.h"
#include "oob/oob.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FACTS_BOUND_S 5 /* past the connect: HELLO and facts */
#define FIRST_BOUND_S 45
#define RUN_BOUND_S   30    /* a sustained run's set-up and teardown, beyond its -D */
#define STOP_GRACE_S  4     /* a child past its bound: SIGTERM, 2 s, SIGKILL, 2 s */
#define LOSS_FAIL     0.005 /* the sender's retransmission events per packet sent that call the fabric faulty */

struct triage {
	const struct dr_triage_opts *o;
	const char *sysfs;
	const struct dr_host *h;
	const struct dr_dev *dev; /* this side's */
	const struct dr_port *port;
	struct rb_hello peer, after; /* the peer's facts, before and after the sustained run */
	char dir[64];                /* the children's documents */
	char oob_timeout[16], bw_port[16], sock_port[16], dur[16];
	struct dr_csv csv;
	unsigned mtu;
	bool routed; /* the GIDs are on different subnets */
	double rdma_gbps;
	struct dr_walk w;
};

/* Connect, agree on the protocol, take the peer's facts; the cause in why. */
static int fetch_facts(struct triage *t, struct rb_hello *facts, char *why, size_t len)
{
	static struct rb_hello mine, remote;
	struct rb_oob c;
	struct rb_frame f;
	int ret;

	dr_triage_hello(&mine);
	dr_lossless_ask(&mine, t->o->tclass.value);
	rb_forget_first_error();
	ret = rb_oob_connect(t->o->peer, &t->o->oob, &c);
	if (!ret) {
		c.timeout_ms = FACTS_BOUND_S * 1000;
		ret = rb_oob_negotiate(&c, &mine, &remote);
		if (!ret)
			ret = rb_oob_expect(&c, RB_MSG_HELLO, &f, -1);
		if (!ret && rb_hello_decode(f.p, f.len, facts))
			ret = -EPROTO;
		rb_oob_close(&c);
	}
	snprintf(why, len, "%s", ret && rb_first_error() ? rb_first_error() : ret ? strerror(-ret) : "");
	return ret;
}

/* "here_KEY" and "peer_KEY": one fact, both sides. */
static void both_str(struct dr_json *j, const char *key, const char *here, const char *peer)
{
	char k[48];

	snprintf(k, sizeof(k), "here_%s", key);
	dr_json_str0(j, k, here);
	snprintf(k, sizeof(k), "peer_%s", key);
	dr_json_str0(j, k, peer);
}

/* The same for numbers; a negative one is unknown (null). */
static void both_num(struct dr_json *j, const char *key, long here, long peer)
{
	char k[48];

	snprintf(k, sizeof(k), "here_%s", key);
	dr_json_known(j, k, here);
	snprintf(k, sizeof(k), "peer_%s", key);
	dr_json_known(j, k, peer);
}

/* An MTU, 0 when unknown, as a fact. */
static long mtu_fact(long mtu)
{
	return mtu > 0 ? mtu : -1;
}

/* What failed, in its own first message, when a step's connect or run did. */
static void error_fact(struct dr_json *j, const char *why)
{
	dr_json_str0(j, "error", why);
}

static void step_oob(struct triage *t)
{
	char why[RB_WIRE_MSG_LEN];
	uint64_t t0 = rb_now_ns();
	double ms;
	struct dr_json *j;
	bool same;

	if (fetch_facts(t, &t->peer, why, sizeof(why))) {
		dr_walk_fail(&t->w, "oob", "connect", "the peer's rdma_doctor --serve, its port, a firewall",
		             "no triage with %s:%u: %s", t->o->peer, t->o->oob.port, why);
		error_fact(dr_walk_facts(&t->w), why);
		return;
	}
	ms = (double)(rb_now_ns() - t0) / 1e6;
	same = !strcmp(t->peer.version, RB_VERSION);
	dr_walk_add(&t->w, same ? DR_OK : DR_WARN, "oob", "connect",
	            "%s:%u answered in %.0f ms: rdma_doctor %s on host %s%s", t->o->peer, t->o->oob.port, ms,
	            t->peer.version, t->peer.host, same ? "" : " (another version than this one)");
	j = dr_walk_facts(&t->w);
	dr_json_num(j, "answered_ms", round(ms * 10) / 10);
	dr_json_str0(j, "peer_host", t->peer.host);
	dr_json_str0(j, "peer_version", t->peer.version);
	dr_json_bool(j, "same_version", same);
}

static void step_hosts(struct triage *t)
{
	bool here, there = dr_fact_long(&t->peer, "port_usable", 0) == 1;
	const char *mine;
	struct dr_json *j;

	t->port = dr_pick_port(t->h, t->o->dev, &t->dev);
	here = t->port && t->port->usable;
	mine = t->port ? t->port->verdict : t->o->dev ? "no such RDMA device" : t->h->conclusion;
	/* Both sides are said, whichever failed: a link down shows on both ends of it. */
	if (!here || !there)
		dr_walk_fail(&t->w, "hosts", "ports",
		             !here && !there
		                 ? "rdma_doctor on both hosts (their layers, in order); the link between them"
		             : !here ? "rdma_doctor on this host (its layers, in order)"
		                     : "rdma_doctor on the peer (its layers, in order)",
		             "%s: %s; peer %s%s: %s", here ? "this host is fine" : "this host", mine,
		             t->peer.host, there ? " is fine" : "", dr_fact(&t->peer, "port_verdict"));
	else
		dr_walk_add(&t->w, DR_OK, "hosts", "ports", "here: %s; peer %s: %s", t->port->verdict,
		            t->peer.host, dr_fact(&t->peer, "port_verdict"));
	j = dr_walk_facts(&t->w);
	both_str(j, "device", t->dev ? t->dev->name : "", dr_fact(&t->peer, "dev"));
	both_num(j, "port", t->port ? t->port->num : -1, dr_fact_long(&t->peer, "port", -1));
	dr_json_bool(j, "here_usable", here);
	dr_json_bool(j, "peer_usable", there);
	both_str(j, "state", t->port ? t->port->state : "", dr_fact(&t->peer, "state"));
}

/* RoCE: where -T lands at both ends (lossless.c). */
static void step_lossless(struct triage *t)
{
	if (t->port && !strcmp(t->port->link_layer, "Ethernet"))
		dr_dcb_walk(&t->w, t->dev, &t->peer, t->o->tclass.value);
}

/* Both ends' port and addressing agree, or why not. */
static void step_path(struct triage *t)
{
	const struct dr_port *p = t->port;
	const struct rb_hello *f = &t->peer;
	const char *sub = dr_fact(f, "subnet");
	char here_sub[96] = "";
	long pmtu = dr_fact_long(f, "active_mtu", 0), pnd = dr_fact_long(f, "netdev_mtu", 0);
	long vlan = dr_netdev_vlan(p->chosen_gid.ndev), pvlan = dr_fact_long(f, "vlan", -1);
	bool roce = !strcmp(p->link_layer, "Ethernet");
	unsigned first = t->w.n; /* the warnings this step adds come after */
	struct dr_json *j;

	/* The peer's MTU is a claim: one no port can have is left out (runs use 1024). */
	if (pmtu && (pmtu < 256 || pmtu > 4096 || (pmtu & (pmtu - 1)))) {
		dr_walk_add(&t->w, DR_WARN, "path", "peer_mtu",
		            "the peer claims port MTU %ld, which no port has: runs use 1024", pmtu);
		j = dr_walk_facts(&t->w);
		dr_json_int(j, "peer_mtu_bytes", pmtu);
		dr_json_int(j, "used_mtu_bytes", 1024);
		pmtu = 0;
	}
	t->mtu = (unsigned)(p->active_mtu && pmtu ? (p->active_mtu < pmtu ? p->active_mtu : pmtu) : 1024);
	if (strcmp(p->link_layer, dr_fact(f, "link_layer"))) {
		dr_walk_fail(&t->w, "path", "link_layer", "which port each side picked (-d)",
		             "link layers differ: %s here, %s there", p->link_layer,
		             dr_fact(f, "link_layer"));
		both_str(dr_walk_facts(&t->w), "link_layer", p->link_layer, dr_fact(f, "link_layer"));
		return;
	}
	if (roce && strcmp(p->chosen_gid.type, dr_fact(f, "gid_type"))) {
		dr_walk_fail(&t->w, "path", "gid_type", "-x on both sides, or the GID tables (rdma_doctor)",
		             "GID types differ: %s here (%s), %s there (%s)", p->chosen_gid.type,
		             p->chosen_gid.gid, dr_fact(f, "gid_type"), dr_fact(f, "gid"));
		j = dr_walk_facts(&t->w);
		both_str(j, "gid_type", p->chosen_gid.type, dr_fact(f, "gid_type"));
		both_str(j, "gid", p->chosen_gid.gid, dr_fact(f, "gid"));
		return;
	}
	if (roce && (int)p->chosen_gid.ipv4 != (int)dr_fact_long(f, "gid_ipv4", -1)) {
		dr_walk_fail(&t->w, "path", "gid_family",
		             "give both netdevs an address of the same family (or -x)",
		             "GID families differ: %s here, %s there", p->chosen_gid.gid, dr_fact(f, "gid"));
		j = dr_walk_facts(&t->w);
		both_str(j, "gid", p->chosen_gid.gid, dr_fact(f, "gid"));
		dr_json_bool(j, "here_gid_ipv4", p->chosen_gid.ipv4);
		dr_json_known_bool(j, "peer_gid_ipv4", (int)dr_fact_long(f, "gid_ipv4", -1));
		return;
	}
	dr_gid_subnet(&p->chosen_gid, here_sub, sizeof(here_sub));
	if (roce && here_sub[0] && sub[0] && !dr_same_subnet(here_sub, sub)) {
		bool v2 = !strcmp(p->chosen_gid.type, "RoCE v2");
		if (!v2)
			dr_walk_fail(&t->w, "path", "subnet", "RoCE v1 is not routed: put both on one subnet",
			             "subnets differ: %s here, %s there, over RoCE v1", here_sub, sub);
		else
			dr_walk_add(
			    &t->w, DR_WARN, "path", "subnet",
			    "subnets differ: %s here, %s there: routed RoCE v2 (needs a route and a switch "
			    "that routes RoCE)",
			    here_sub, sub);
		j = dr_walk_facts(&t->w);
		both_str(j, "subnet", here_sub, sub);
		dr_json_str(j, "gid_type", p->chosen_gid.type);
		dr_json_bool(j, "routed", v2);
		if (!v2)
			return;
		t->routed = true;
	}
	if (roce && vlan != pvlan) {
		dr_walk_add(&t->w, DR_WARN, "path", "vlan",
		            "VLANs differ: %ld here, %ld there (-1: untagged)", vlan, pvlan);
		both_num(dr_walk_facts(&t->w), "vlan", vlan, pvlan);
	}
	if (pmtu && p->active_mtu && pmtu != p->active_mtu) {
		dr_walk_add(&t->w, DR_WARN, "path", "port_mtu",
		            "port MTUs differ: %d here, %ld there: runs use %u", p->active_mtu, pmtu, t->mtu);
		j = dr_walk_facts(&t->w);
		both_num(j, "mtu_bytes", p->active_mtu, pmtu);
		dr_json_int(j, "used_mtu_bytes", t->mtu);
	}
	if (roce && pnd && p->netdev_mtu && pnd != p->netdev_mtu) {
		dr_walk_add(&t->w, DR_WARN, "path", "netdev_mtu",
		            "netdev MTUs differ: %s %d here, %s %ld there", p->chosen_gid.ndev, p->netdev_mtu,
		            dr_fact(f, "netdev"), pnd);
		j = dr_walk_facts(&t->w);
		both_str(j, "netdev", p->chosen_gid.ndev, dr_fact(f, "netdev"));
		both_num(j, "netdev_mtu_bytes", p->netdev_mtu, pnd);
	}
	dr_walk_add(&t->w, t->w.n > first ? DR_WARN : DR_OK, "path", "ports",
	            "%s both; %s here, %s there; port MTU %d / %ld", p->link_layer,
	            !roce         ? "LID"
	            : here_sub[0] ? here_sub
	                          : p->chosen_gid.gid,
	            !roce    ? "LID"
	            : sub[0] ? sub
	                     : dr_fact(f, "gid"),
	            p->active_mtu, pmtu);
	j = dr_walk_facts(&t->w);
	dr_json_str(j, "link_layer", p->link_layer);
	if (roce) {
		both_str(j, "gid", p->chosen_gid.gid, dr_fact(f, "gid"));
		both_str(j, "subnet", here_sub, sub);
	}
	both_num(j, "mtu_bytes", mtu_fact(p->active_mtu), mtu_fact(pmtu));
	dr_json_int(j, "used_mtu_bytes", t->mtu);
	dr_json_bool(j, "routed", t->routed);
}

/* rc_write_bw or socket_bw against the peer's server; its CSV in t->csv. rc, with the first cause in why. */
static int run(struct triage *t, const char *tool, const char *port, const char *const *args, unsigned bound,
               char *why, size_t len)
{
	char csv[96], err[96];
	const char *argv[32] = {tool, "-p", port, "--oob-timeout", t->oob_timeout, "--csv", csv};
	unsigned n = 7;
	int rc;

	snprintf(csv, sizeof(csv), "%s/%s.csv", t->dir, tool);
	snprintf(err, sizeof(err), "%s/%s.err", t->dir, tool);
	unlink(csv);
	while (*args && n < 28)
		argv[n++] = *args++;
	if (t->o->dev && !strcmp(tool, "rc_write_bw")) {
		argv[n++] = "-d";
		argv[n++] = t->o->dev;
	}
	if (t->o->oob.auth_file) {
		argv[n++] = "--auth-key";
		argv[n++] = t->o->oob.auth_file;
	}
	argv[n++] = t->o->peer;
	rc = dr_run_tool((char *const *)argv, bound, err, why, len);
	if (rb_stop_signal())
		return -EINTR; /* the walk says so: nothing is judged from a run cut short */
	dr_csv_read(csv, &t->csv);
	if (!rc)
		why[0] = 0;
	return rc;
}

/* The run ended because the peer's side did (closed, or failed and said so): not the fabric's doing. */
static bool peer_gone(const char *why)
{
	return strstr(why, "closed the connection") || strstr(why, "(the server) failed");
}

/* The rows that measured a size (not the error row of an incomplete run). */
static unsigned measured(const struct dr_csv *c)
{
	unsigned n = 0;
	while (n < c->nrows && dr_csv_num(c, n, "size_bytes") > 0)
		n++;
	return n;
}

static void step_writes(struct triage *t)
{
	char sizes[48], mtu[16], why[512];
	const char *args[] = {"-s", sizes, "-n", "4", "--verify", "--timeout", "5", NULL};
	struct dr_json *j;
	int rc;
	unsigned ok;

	if (!strcmp(t->bw_port, "0")) {
		dr_walk_fail(&t->w, "qp", "server",
		             "the peer's rdma_doctor --serve output (why its rc_write_bw did not start)",
		             "the peer has no rc_write_bw server running beside its rdma_doctor --serve");
		return;
	}
	snprintf(sizes, sizeof(sizes), "64,%u,1M", t->mtu);
	snprintf(mtu, sizeof(mtu), "%u", t->mtu);
	rc = run(t, "rc_write_bw", t->bw_port, args, FIRST_BOUND_S, why, sizeof(why));
	if (rc == -EINTR)
		return;
	ok = measured(&t->csv);
	if (rc == RB_EXIT_USAGE) {
		dr_walk_fail(&t->w, "qp", "server", "--auth-key, versions, the peer's server limits",
		             "the peer's rc_write_bw refused the run: %s", why);
		error_fact(dr_walk_facts(&t->w), why);
	} else if (rc && !ok) {
		dr_walk_fail(&t->w, "qp", "first_write",
		             t->routed || strstr(why, "RTR") || strstr(why, "resolve")
		                 ? "the route between the GIDs' subnets (ip route on both), the neighbour "
		                   "(ARP/ND) and -x"
		                 : "the peer's port and GID (rdma_doctor there); a switch between them",
		             "no 64 B WRITE completed: %s", why);
		j = dr_walk_facts(&t->w);
		dr_json_int(j, "size_bytes", 64);
		error_fact(j, why);
	} else if (rc) {
		dr_walk_fail(&t->w, "writes", "large_writes",
		             "the MTU along the path (netdevs, switch ports) and the counters",
		             "the %s B WRITE failed after the smaller ones went through: %s",
		             ok == 1 ? mtu : "1 Mi", why);
		j = dr_walk_facts(&t->w);
		dr_json_int(j, "size_bytes", ok == 1 ? t->mtu : 1u << 20);
		error_fact(j, why);
	} else {
		dr_walk_add(&t->w, DR_OK, "qp", "first_write",
		            "QPs INIT -> RTR -> RTS with the peer; a 64 B WRITE verified");
		dr_json_int(dr_walk_facts(&t->w), "size_bytes", 64);
		dr_walk_add(&t->w, DR_OK, "writes", "large_writes",
		            "%u B and 1 MiB WRITEs verified at path MTU %s B", t->mtu,
		            dr_csv_get(&t->csv, ok ? ok - 1 : 0, "mtu_bytes"));
		j = dr_walk_facts(&t->w);
		dr_json_open(j, "sizes_bytes", '[', true);
		dr_json_int(j, NULL, t->mtu);
		dr_json_int(j, NULL, 1u << 20);
		dr_json_close(j);
		dr_json_known(j, "path_mtu_bytes",
		              (long long)dr_csv_num(&t->csv, ok ? ok - 1 : 0, "mtu_bytes"));
	}
}

/*
 * This side's abnormal counter events (not packet counts) in its run's row, and the
 * packets it sent: the sender's retransmission events are the measure, one per loss.
 * The peer's deltas (its facts before and after) join the evidence but not the sum:
 * a go-back-N retransmission makes tens of duplicates there for a single loss.
 */
#define MAX_CTRS 64

/* A counter that moved during the sustained run, on one side. */
struct ctr {
	const char *side, *name;
	double delta;
};

static double abnormal(const struct triage *t, struct ctr *c, unsigned *n, double *pkts)
{
	double sum = 0;

	*pkts = 0;
	*n = 0;
	for (unsigned i = 0; i < t->csv.ncols; i++) {
		const char *k = t->csv.col[i];
		double v = dr_csv_num(&t->csv, 0, k);
		if (strncmp(k, "ctr_", 4) || v <= 0)
			continue;
		if (strstr(k, "pkts") || strstr(k, "packets")) {
			if (strstr(k, "sent") || strstr(k, "xmit"))
				*pkts += v;
			continue;
		}
		sum += v;
		if (*n < MAX_CTRS)
			c[(*n)++] = (struct ctr){"here", k + 4, v};
	}
	for (unsigned i = 0; i < t->after.nparams; i++) {
		const char *k = t->after.params[i].key;
		long b = dr_fact_long(&t->peer, k, -1), a = dr_fact_long(&t->after, k, -1);
		if (strncmp(k, "ctr_", 4) || strstr(k, "pkts") || strstr(k, "packets") || b < 0 || a <= b)
			continue;
		if (*n < MAX_CTRS)
			c[(*n)++] = (struct ctr){"peer", k + 4, (double)(a - b)};
	}
	return sum;
}

/* The counters as the sentence says them: "here rcvd_seq_err +3, peer duplicate_request +40". */
static void ctr_list(const struct ctr *c, unsigned n, char *list, size_t len)
{
	size_t off = 0;

	list[0] = 0;
	for (unsigned i = 0; i < n; i++)
		off += (size_t)snprintf(list + off, off < len ? len - off : 0, "%s%s %s +%.0f",
		                        off ? ", " : "", c[i].side, c[i].name, c[i].delta);
}

static void step_fabric(struct triage *t)
{
	const char *args[] = {"-s", "64K", "-D", t->dur, "--timeout", "5", NULL};
	char why[512], list[1024];
	double events, pkts;
	struct ctr c[MAX_CTRS];
	struct dr_json *j;
	unsigned n;
	int rc = run(t, "rc_write_bw", t->bw_port, args, t->o->duration_s + RUN_BOUND_S, why, sizeof(why));

	if (rc == -EINTR)
		return;
	if (rc || !measured(&t->csv)) {
		dr_walk_fail(&t->w, "fabric", "sustained",
		             peer_gone(why)
		                 ? "the peer's rdma_doctor --serve: it, or its server, ended during the run"
		                 : "the counters on both ports and the switch between them",
		             "the sustained %s s run failed: %s", t->dur, why[0] ? why : "no row");
		j = dr_walk_facts(&t->w);
		dr_json_int(j, "duration_s", t->o->duration_s);
		dr_json_bool(j, "peer_gone", peer_gone(why));
		error_fact(j, why[0] ? why : "no row");
		return;
	}
	t->rdma_gbps = dr_csv_num(&t->csv, 0, "bw_avg_gbps");
	if (fetch_facts(t, &t->after, why, sizeof(why)))
		memset(&t->after, 0, sizeof(t->after));
	events = abnormal(t, c, &n, &pkts);
	ctr_list(c, n, list, sizeof(list));
	if (pkts > 0 && events / pkts >= LOSS_FAIL)
		dr_walk_fail(
		    &t->w, "fabric", "sustained",
		    "drops on the link: cables, switch port counters, PFC/ECN configuration",
		    "correct but slow: every WRITE verified, yet %.0f retransmission events for %.0f "
		    "packets sent (%.2f %%, the bound is %.1f %%) in %s s: %s",
		    events, pkts, 100 * events / pkts, 100 * LOSS_FAIL, t->dur, list);
	else
		dr_walk_add(&t->w, events > 0 ? DR_WARN : DR_OK, "fabric", "sustained",
		            "%s s at 64 KiB: %.0f packets sent, %.0f retransmission events (%.2f %%, below "
		            "the %.1f %% bound)%s%s",
		            t->dur, pkts, events, pkts > 0 ? 100 * events / pkts : 0, 100 * LOSS_FAIL,
		            list[0] ? ": " : "", list);
	j = dr_walk_facts(&t->w);
	dr_json_int(j, "duration_s", t->o->duration_s);
	dr_json_int(j, "size_bytes", 64 << 10);
	dr_json_num(j, "packets_sent", pkts);
	dr_json_num(j, "retransmission_events", events);
	dr_json_num(j, "loss_percent", pkts > 0 ? 100 * events / pkts : NAN);
	dr_json_num(j, "bound_percent", 100 * LOSS_FAIL);
	dr_json_num(j, "rdma_gbps", t->rdma_gbps);
	dr_json_open(j, "counters", '[', true);
	for (unsigned i = 0; i < n; i++) {
		dr_json_open(j, NULL, '{', true);
		dr_json_str(j, "side", c[i].side);
		dr_json_str(j, "counter", c[i].name);
		dr_json_num(j, "delta", c[i].delta);
		dr_json_close(j);
	}
	dr_json_close(j);
}

static void step_bandwidth(struct triage *t)
{
	const char *args[] = {"-s", "1M", "-D", t->dur, NULL};
	char why[512] = "the peer has no socket_bw server running", slot[64];
	double link = 0, pcie = rb_pcie_link_gbps(t->sysfs, t->dev->name, slot, sizeof(slot)), tcp = -1, ceil;
	int rc = strcmp(t->sock_port, "0") ? run(t, "socket_bw", t->sock_port, args,
	                                         t->o->duration_s + RUN_BOUND_S, why, sizeof(why))
	                                   : -1;
	bool by_pcie;
	struct dr_json *j;

	if (rc == -EINTR)
		return;
	if (!rc && measured(&t->csv))
		tcp = dr_csv_num(&t->csv, 0, "bw_avg_gbps");
	sscanf(t->port->rate, "%lf", &link);
	by_pcie = pcie > 0 && pcie < link;
	ceil = by_pcie ? pcie : link;
	if (!t->dev->software && ceil > 0 && t->rdma_gbps < 0.5 * ceil)
		dr_walk_fail(&t->w, "bandwidth", "rate",
		             "ib_write_bw on the same pair; NUMA and PCIe (rdma_doctor), PFC",
		             "RDMA %.2f Gb/s is %.0f %% of the %.0f Gb/s %s; TCP %s%.2f Gb/s%s%s",
		             t->rdma_gbps, 100 * t->rdma_gbps / ceil, ceil, by_pcie ? "PCIe ceiling" : "link",
		             tcp < 0 ? "failed: " : "", tcp < 0 ? 0 : tcp, tcp < 0 ? " " : "",
		             tcp < 0 ? why : "");
	else
		dr_walk_add(
		    &t->w, tcp < 0 ? DR_WARN : DR_OK, "bandwidth", "rate",
		    "RDMA %.2f Gb/s (link %.0f Gb/s%s%s%s); TCP %s%.2f Gb/s over the out-of-band path%s%s",
		    t->rdma_gbps, link, pcie > 0 ? ", PCIe " : "", pcie > 0 ? slot : "",
		    t->dev->software ? "; a software device: the CPU bounds it, no judgement" : "",
		    tcp < 0 ? "failed: " : "", tcp < 0 ? 0 : tcp, tcp < 0 ? " " : "", tcp < 0 ? why : "");
	j = dr_walk_facts(&t->w);
	dr_json_num(j, "rdma_gbps", t->rdma_gbps);
	dr_json_num(j, "link_gbps", link > 0 ? link : NAN);
	dr_json_num(j, "pcie_gbps", pcie > 0 ? pcie : NAN);
	dr_json_str(j, "pcie_link", pcie > 0 ? slot : NULL);
	dr_json_num(j, "ceiling_gbps", ceil > 0 ? ceil : NAN);
	dr_json_str(j, "ceiling", ceil > 0 ? (by_pcie ? "pcie" : "link") : NULL);
	dr_json_num(j, "percent_of_ceiling", ceil > 0 ? 100 * t->rdma_gbps / ceil : NAN);
	dr_json_bool(j, "software", t->dev->software);
	dr_json_num(j, "tcp_gbps", tcp < 0 ? NAN : tcp);
	dr_json_str(j, "tcp_error", tcp < 0 ? why : NULL);
}

/* Every step's bound added: what the walk can take at worst. */
unsigned dr_triage_bound(const struct dr_triage_opts *o)
{
	/* A facts fetch: the connect, then HELLO and facts at FACTS_BOUND_S each; a child: its bound and its
	 * stop. */
	return 2 * (o->oob.timeout_s + 2 * FACTS_BOUND_S) + FIRST_BOUND_S +
	       2 * (o->duration_s + RUN_BOUND_S) + 3 * STOP_GRACE_S;
}

int dr_triage(const struct dr_triage_opts *o, const struct dr_roots *r, const struct rb_hca_filter *filt,
              const struct rb_addr_range *range, const char *hca)
{
	static struct triage t;
	static struct dr_host h;
	static void (*const steps[])(struct triage *) = {
	    step_oob, step_hosts, step_path, step_lossless, step_writes, step_fabric, step_bandwidth};

	memset(&t, 0, sizeof(t));
	t.o = o;
	t.sysfs = r->sys;
	t.h = &h;
	rb_sig_install();
	dr_scan(r, &h, filt, range, hca);
	dr_scan_dcb(r, &h, &o->tclass);
	snprintf(t.dir, sizeof(t.dir), "/tmp/rdma_doctor.XXXXXX");
	if (!mkdtemp(t.dir)) {
		rb_err("cannot make a directory under /tmp: %s", strerror(errno));
		return RB_EXIT_RUNTIME;
	}
	snprintf(t.oob_timeout, sizeof(t.oob_timeout), "%u", o->oob.timeout_s);
	snprintf(t.bw_port, sizeof(t.bw_port), "%u", o->oob.port + 1);
	snprintf(t.sock_port, sizeof(t.sock_port), "%u", o->oob.port + 2);
	snprintf(t.dur, sizeof(t.dur), "%u", o->duration_s);
	dr_walk_begin(&t.w, o->peer, o->oob.port, dr_triage_bound(o), o->json);
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]) && !t.w.failed && !rb_stop_signal(); i++) {
		steps[i](&t);
		if (i == 0 && !t.w.failed) { /* where the peer's servers are; 0: not running (or nonsense) */
			long bw = dr_fact_long(&t.peer, "bw_port", 0),
			     sock = dr_fact_long(&t.peer, "sock_port", 0);
			snprintf(t.bw_port, sizeof(t.bw_port), "%ld", bw > 0 && bw < 65536 ? bw : 0);
			snprintf(t.sock_port, sizeof(t.sock_port), "%ld",
			         sock > 0 && sock < 65536 ? sock : 0);
		}
	}
	if (rb_stop_signal() && !t.w.failed) {
		dr_walk_fail(&t.w, "interrupted", "signal", "run it again", "interrupted by %s",
		             strsignal(rb_stop_signal()));
		dr_json_int(dr_walk_facts(&t.w), "signal", rb_stop_signal());
	}
	dr_walk_end(&t.w);
	dr_remove_dir(t.dir);
	return rb_stop_signal() ? 128 + rb_stop_signal() : t.w.failed ? RB_EXIT_RUNTIME : RB_EXIT_OK;
}

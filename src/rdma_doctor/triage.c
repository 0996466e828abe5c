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
#include "host/pcie.h"
#include "oob/wire.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
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

static void step_oob(struct triage *t)
{
	char why[RB_WIRE_MSG_LEN];
	uint64_t t0 = rb_now_ns();

	if (fetch_facts(t, &t->peer, why, sizeof(why))) {
		dr_walk_fail(&t->w, "oob", "the peer's rdma_doctor --serve, its port, a firewall",
		             "no triage with %s:%u: %s", t->o->peer, t->o->oob.port, why);
		return;
	}
	dr_walk_add(&t->w, strcmp(t->peer.version, RB_VERSION) ? DR_WARN : DR_OK, "oob",
	            "%s:%u answered in %.0f ms: rdma_doctor %s on host %s%s", t->o->peer, t->o->oob.port,
	            (double)(rb_now_ns() - t0) / 1e6, t->peer.version, t->peer.host,
	            strcmp(t->peer.version, RB_VERSION) ? " (another version than this one)" : "");
}

static void step_hosts(struct triage *t)
{
	bool here, there = dr_fact_long(&t->peer, "port_usable", 0) == 1;
	const char *mine;

	t->port = dr_pick_port(t->h, t->o->dev, &t->dev);
	here = t->port && t->port->usable;
	mine = t->port ? t->port->verdict : t->o->dev ? "no such RDMA device" : t->h->conclusion;
	/* Both sides are said, whichever failed: a link down shows on both ends of it. */
	if (!here || !there) {
		dr_walk_fail(&t->w, "hosts",
		             !here && !there
		                 ? "rdma_doctor on both hosts (their layers, in order); the link between them"
		             : !here ? "rdma_doctor on this host (its layers, in order)"
		                     : "rdma_doctor on the peer (its layers, in order)",
		             "%s: %s; peer %s%s: %s", here ? "this host is fine" : "this host", mine,
		             t->peer.host, there ? " is fine" : "", dr_fact(&t->peer, "port_verdict"));
		return;
	}
	dr_walk_add(&t->w, DR_OK, "hosts", "here: %s; peer %s: %s", t->port->verdict, t->peer.host,
	            dr_fact(&t->peer, "port_verdict"));
}

/* Both ends' port and addressing agree, or why not. */
static void step_path(struct triage *t)
{
	const struct dr_port *p = t->port;
	const struct rb_hello *f = &t->peer;
	const char *sub = dr_fact(f, "subnet");
	char here_sub[96] = "";
	long pmtu = dr_fact_long(f, "active_mtu", 0), pnd = dr_fact_long(f, "netdev_mtu", 0);
	bool roce = !strcmp(p->link_layer, "Ethernet");
	unsigned first = t->w.n; /* the warnings this step adds come after */

	/* The peer's MTU is a claim: one no port can have is left out (runs use 1024). */
	if (pmtu && (pmtu < 256 || pmtu > 4096 || (pmtu & (pmtu - 1)))) {
		dr_walk_add(&t->w, DR_WARN, "path",
		            "the peer claims port MTU %ld, which no port has: runs use 1024", pmtu);
		pmtu = 0;
	}
	t->mtu = (unsigned)(p->active_mtu && pmtu ? (p->active_mtu < pmtu ? p->active_mtu : pmtu) : 1024);
	if (strcmp(p->link_layer, dr_fact(f, "link_layer"))) {
		dr_walk_fail(&t->w, "path", "which port each side picked (-d)",
		             "link layers differ: %s here, %s there", p->link_layer,
		             dr_fact(f, "link_layer"));
		return;
	}
	if (roce && strcmp(p->chosen_gid.type, dr_fact(f, "gid_type"))) {
		dr_walk_fail(&t->w, "path", "-x on both sides, or the GID tables (rdma_doctor)",
		             "GID types differ: %s here (%s), %s there (%s)", p->chosen_gid.type,
		             p->chosen_gid.gid, dr_fact(f, "gid_type"), dr_fact(f, "gid"));
		return;
	}
	if (roce && (int)p->chosen_gid.ipv4 != (int)dr_fact_long(f, "gid_ipv4", -1)) {
		dr_walk_fail(&t->w, "path", "give both netdevs an address of the same family (or -x)",
		             "GID families differ: %s here, %s there", p->chosen_gid.gid, dr_fact(f, "gid"));
		return;
	}
	dr_gid_subnet(&p->chosen_gid, here_sub, sizeof(here_sub));
	if (roce && here_sub[0] && sub[0] && !dr_same_subnet(here_sub, sub)) {
		if (strcmp(p->chosen_gid.type, "RoCE v2")) {
			dr_walk_fail(&t->w, "path", "RoCE v1 is not routed: put both on one subnet",
			             "subnets differ: %s here, %s there, over RoCE v1", here_sub, sub);
			return;
		}
		t->routed = true;
		dr_walk_add(&t->w, DR_WARN, "path",
		            "subnets differ: %s here, %s there: routed RoCE v2 (needs a route and a switch "
		            "that routes RoCE)",
		            here_sub, sub);
	}
	if (roce && dr_netdev_vlan(p->chosen_gid.ndev) != dr_fact_long(f, "vlan", -1))
		dr_walk_add(&t->w, DR_WARN, "path", "VLANs differ: %ld here, %ld there (-1: untagged)",
		            dr_netdev_vlan(p->chosen_gid.ndev), dr_fact_long(f, "vlan", -1));
	if (pmtu && p->active_mtu && pmtu != p->active_mtu)
		dr_walk_add(&t->w, DR_WARN, "path", "port MTUs differ: %d here, %ld there: runs use %u",
		            p->active_mtu, pmtu, t->mtu);
	if (roce && pnd && p->netdev_mtu && pnd != p->netdev_mtu)
		dr_walk_add(&t->w, DR_WARN, "path", "netdev MTUs differ: %s %d here, %s %ld there",
		            p->chosen_gid.ndev, p->netdev_mtu, dr_fact(f, "netdev"), pnd);
	dr_walk_add(&t->w, t->w.n > first ? DR_WARN : DR_OK, "path",
	            "%s both; %s here, %s there; port MTU %d / %ld", p->link_layer,
	            !roce         ? "LID"
	            : here_sub[0] ? here_sub
	                          : p->chosen_gid.gid,
	            !roce    ? "LID"
	            : sub[0] ? sub
	                     : dr_fact(f, "gid"),
	            p->active_mtu, pmtu);
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
	int rc;
	unsigned ok;

	if (!strcmp(t->bw_port, "0")) {
		dr_walk_fail(&t->w, "qp",
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
	if (rc == RB_EXIT_USAGE)
		dr_walk_fail(&t->w, "qp", "--auth-key, versions, the peer's server limits",
		             "the peer's rc_write_bw refused the run: %s", why);
	else if (rc && !ok)
		dr_walk_fail(&t->w, "qp",
		             t->routed || strstr(why, "RTR") || strstr(why, "resolve")
		                 ? "the route between the GIDs' subnets (ip route on both), the neighbour "
		                   "(ARP/ND) and -x"
		                 : "the peer's port and GID (rdma_doctor there); a switch between them",
		             "no 64 B WRITE completed: %s", why);
	else if (rc)
		dr_walk_fail(&t->w, "writes",
		             "the MTU along the path (netdevs, switch ports) and the counters",
		             "the %s B WRITE failed after the smaller ones went through: %s",
		             ok == 1 ? mtu : "1 Mi", why);
	else {
		dr_walk_add(&t->w, DR_OK, "qp",
		            "QPs INIT -> RTR -> RTS with the peer; a 64 B WRITE verified");
		dr_walk_add(&t->w, DR_OK, "writes", "%u B and 1 MiB WRITEs verified at path MTU %s B", t->mtu,
		            dr_csv_get(&t->csv, ok ? ok - 1 : 0, "mtu_bytes"));
	}
}

/*
 * This side's abnormal counter events (not packet counts) in its run's row, and the
 * packets it sent: the sender's retransmission events are the measure, one per loss.
 * The peer's deltas (its facts before and after) join the evidence but not the sum:
 * a go-back-N retransmission makes tens of duplicates there for a single loss.
 */
static double abnormal(const struct triage *t, char *list, size_t len, double *pkts)
{
	double sum = 0;
	size_t off = 0;

	*pkts = 0;
	list[0] = 0;
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
		off += (size_t)snprintf(list + off, off < len ? len - off : 0, "%shere %s +%.0f",
		                        off ? ", " : "", k + 4, v);
	}
	for (unsigned i = 0; i < t->after.nparams; i++) {
		const char *k = t->after.params[i].key;
		long b = dr_fact_long(&t->peer, k, -1), a = dr_fact_long(&t->after, k, -1);
		if (strncmp(k, "ctr_", 4) || strstr(k, "pkts") || strstr(k, "packets") || b < 0 || a <= b)
			continue;
		off += (size_t)snprintf(list + off, off < len ? len - off : 0, "%speer %s +%ld",
		                        off ? ", " : "", k + 4, a - b);
	}
	return sum;
}

static void step_fabric(struct triage *t)
{
	const char *args[] = {"-s", "64K", "-D", t->dur, "--timeout", "5", NULL};
	char why[512], list[1024];
	double events, pkts;
	int rc = run(t, "rc_write_bw", t->bw_port, args, t->o->duration_s + RUN_BOUND_S, why, sizeof(why));

	if (rc == -EINTR)
		return;
	if (rc || !measured(&t->csv)) {
		dr_walk_fail(&t->w, "fabric",
		             peer_gone(why)
		                 ? "the peer's rdma_doctor --serve: it, or its server, ended during the run"
		                 : "the counters on both ports and the switch between them",
		             "the sustained %s s run failed: %s", t->dur, why[0] ? why : "no row");
		return;
	}
	t->rdma_gbps = dr_csv_num(&t->csv, 0, "bw_avg_gbps");
	if (fetch_facts(t, &t->after, why, sizeof(why)))
		memset(&t->after, 0, sizeof(t->after));
	events = abnormal(t, list, sizeof(list), &pkts);
	if (pkts > 0 && events / pkts >= LOSS_FAIL)
		dr_walk_fail(
		    &t->w, "fabric", "drops on the link: cables, switch port counters, PFC/ECN configuration",
		    "correct but slow: every WRITE verified, yet %.0f retransmission events for %.0f "
		    "packets sent (%.2f %%, the bound is %.1f %%) in %s s: %s",
		    events, pkts, 100 * events / pkts, 100 * LOSS_FAIL, t->dur, list);
	else
		dr_walk_add(&t->w, events > 0 ? DR_WARN : DR_OK, "fabric",
		            "%s s at 64 KiB: %.0f packets sent, %.0f retransmission events (%.2f %%, below "
		            "the %.1f %% bound)%s%s",
		            t->dur, pkts, events, pkts > 0 ? 100 * events / pkts : 0, 100 * LOSS_FAIL,
		            list[0] ? ": " : "", list);
}

static void step_bandwidth(struct triage *t)
{
	const char *args[] = {"-s", "1M", "-D", t->dur, NULL};
	char why[512] = "the peer has no socket_bw server running", slot[64];
	double link = 0, pcie = rb_pcie_link_gbps(t->sysfs, t->dev->name, slot, sizeof(slot)), tcp = -1, ceil;
	int rc = strcmp(t->sock_port, "0") ? run(t, "socket_bw", t->sock_port, args,
	                                         t->o->duration_s + RUN_BOUND_S, why, sizeof(why))
	                                   : -1;

	if (rc == -EINTR)
		return;
	if (!rc && measured(&t->csv))
		tcp = dr_csv_num(&t->csv, 0, "bw_avg_gbps");
	sscanf(t->port->rate, "%lf", &link);
	ceil = pcie > 0 && pcie < link ? pcie : link;
	if (!t->dev->software && ceil > 0 && t->rdma_gbps < 0.5 * ceil) {
		dr_walk_fail(
		    &t->w, "bandwidth", "ib_write_bw on the same pair; NUMA and PCIe (rdma_doctor), PFC",
		    "RDMA %.2f Gb/s is %.0f %% of the %.0f Gb/s %s; TCP %s%.2f Gb/s%s%s", t->rdma_gbps,
		    100 * t->rdma_gbps / ceil, ceil, pcie > 0 && pcie < link ? "PCIe ceiling" : "link",
		    tcp < 0 ? "failed: " : "", tcp < 0 ? 0 : tcp, tcp < 0 ? " " : "", tcp < 0 ? why : "");
		return;
	}
	dr_walk_add(&t->w, tcp < 0 ? DR_WARN : DR_OK, "bandwidth",
	            "RDMA %.2f Gb/s (link %.0f Gb/s%s%s%s); TCP %s%.2f Gb/s over the out-of-band path%s%s",
	            t->rdma_gbps, link, pcie > 0 ? ", PCIe " : "", pcie > 0 ? slot : "",
	            t->dev->software ? "; a software device: the CPU bounds it, no judgement" : "",
	            tcp < 0 ? "failed: " : "", tcp < 0 ? 0 : tcp, tcp < 0 ? " " : "", tcp < 0 ? why : "");
}

/* The children's documents, whatever they left (a killed one: its temporary files too). */
static void remove_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[PATH_MAX];

	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
		    (size_t)snprintf(path, sizeof(path), "%s/%s", dir, e->d_name) < sizeof(path))
			unlink(path);
	if (d)
		closedir(d);
	if (rmdir(dir))
		rb_warn("cannot remove %s: %s", dir, strerror(errno));
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
	static void (*const steps[])(struct triage *) = {step_oob,    step_hosts,  step_path,
	                                                 step_writes, step_fabric, step_bandwidth};

	memset(&t, 0, sizeof(t));
	t.o = o;
	t.sysfs = r->sys;
	t.h = &h;
	rb_sig_install();
	dr_scan(r, &h, filt, range, hca);
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
	if (rb_stop_signal() && !t.w.failed)
		dr_walk_fail(&t.w, "interrupted", "run it again", "interrupted by %s",
		             strsignal(rb_stop_signal()));
	dr_walk_end(&t.w);
	remove_dir(t.dir);
	return rb_stop_signal() ? 128 + rb_stop_signal() : t.w.failed ? RB_EXIT_RUNTIME : RB_EXIT_OK;
}

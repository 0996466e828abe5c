/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rdma_doctor: why verbs are (not) usable on this host, layer by layer (doctor.h).
 * No peer needed. Exit 0 when at least one port is usable, 1 when none is, 2 for
 * a usage error. With --peer HOST (the other side runs --serve) it walks the
 * two-node triage tree instead (triage.h): exit 0 healthy, 1 a layer failed.
 */
#include "doctor.h"
#include "triage.h"
#include "host/host.h"

#include "verbs/verbs.h"
#include "base/base.h"

#include <dlfcn.h>
#include <infiniband/verbs.h>
#include <libgen.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

struct doctor_opts {
	const char *sys, *dev, *prov, *hca, *gid_range, *tclass;
	bool json;
};

static struct rb_opt_table doctor_table(struct doctor_opts *o)
{
	static const struct rb_opt rows[] = {
	    {.name = "sysfs-root",
	     .type = RB_OPT_STR,
	     .off = offsetof(struct doctor_opts, sys),
	     .arg = "DIR",
	     .help = "read sysfs from DIR instead of /sys (a copied or fabricated tree)"},
	    {.name = "dev-root",
	     .type = RB_OPT_STR,
	     .off = offsetof(struct doctor_opts, dev),
	     .arg = "DIR",
	     .help = "look for the device nodes under DIR instead of /dev"},
	    {.name = "provider-dir",
	     .type = RB_OPT_STR,
	     .off = offsetof(struct doctor_opts, prov),
	     .arg = "DIR",
	     .help = "rdma-core's provider libraries (default: libibverbs' own directory)"},
	    {.name = "hca",
	     .type = RB_OPT_STR,
	     .off = offsetof(struct doctor_opts, hca),
	     .arg = "LIST",
	     .help = "the NCCL_IB_HCA filter to judge (default: $NCCL_IB_HCA)",
	     .env = "NCCL_IB_HCA"},
	    {.name = "gid-range",
	     .type = RB_OPT_STR,
	     .off = offsetof(struct doctor_opts, gid_range),
	     .arg = "CIDR",
	     .help = "choose GIDs inside CIDR, as the tools' --gid-range (default: $NCCL_IB_ADDR_RANGE)",
	     .env = "NCCL_IB_ADDR_RANGE"},
	    {.name = "tclass",
	     .type = RB_OPT_STR,
	     .off = offsetof(struct doctor_opts, tclass),
	     .arg = "N",
	     .help =
	         "the traffic class runs will set (the tools' -T, NCCL_IB_TC) whose DCB priority to judge: "
	         "lossless or not (default: $NCCL_IB_TC, else 0)",
	     .env = "NCCL_IB_TC"},
	    {.name = "json",
	     .type = RB_OPT_FLAG,
	     .off = offsetof(struct doctor_opts, json),
	     .help =
	         "print the findings as one JSON document (schema rdma_doctor/2): each fact a typed field, "
	         "each sentence under \"text\"; with --peer, the triage's"},
	    {0},
	};
	return (struct rb_opt_table){"Checks", rows, o, false, NULL};
}

static struct rb_opt_table triage_table(struct dr_triage_opts *o)
{
	static const struct rb_opt rows[] = {
	    {.name = "peer",
	     .type = RB_OPT_STR,
	     .off = offsetof(struct dr_triage_opts, peer),
	     .arg = "HOST",
	     .help =
	         "walk the two-node triage with HOST, which runs rdma_doctor --serve: OOB, both hosts, path, "
	         "QP and first WRITEs, counters under load, bandwidth; stops at the first layer that fails"},
	    {.name = "serve",
	     .type = RB_OPT_FLAG,
	     .off = offsetof(struct dr_triage_opts, serve),
	     .help = "be the other side of a --peer triage until SIGINT/SIGTERM, with an rc_write_bw and a "
	             "socket_bw persistent server on the next two ports"},
	    {.name = "perftest",
	     .type = RB_OPT_FLAG,
	     .off = offsetof(struct dr_triage_opts, perftest),
	     .help = "--serve: also an ib_write_bw server (-a -F --report_gbits) on the port after those, "
	             "restarted "
	             "after each client: the baseline tools/campaign runs beside each RDMA case"},
	    {.name = "perftest-iters",
	     .type = RB_OPT_U32,
	     .off = offsetof(struct dr_triage_opts, perftest_iters),
	     .arg = "N",
	     .help = "--perftest: its -n, iterations per size (default: perftest's own); the campaign's "
	             "--baseline-iters must say the same",
	     .min = 1,
	     .max = 100000000},
	    {.name = "ib-dev",
	     .key = 'd',
	     .type = RB_OPT_STR,
	     .off = offsetof(struct dr_triage_opts, dev),
	     .arg = "DEV",
	     .help = "the RDMA device the triage's runs use on this side (default: the first usable port's)"},
	    {.name = "duration",
	     .key = 'D',
	     .type = RB_OPT_U32,
	     .off = offsetof(struct dr_triage_opts, duration_s),
	     .arg = "SEC",
	     .help = "length of the triage's sustained RDMA and TCP runs (default 2)",
	     .min = 1,
	     .max = 30},
	    {.name = "port",
	     .key = 'p',
	     .type = RB_OPT_U32,
	     .off = offsetof(struct dr_triage_opts, oob.port),
	     .arg = "PORT",
	     .help = "TCP port of --serve (default 18520; its rc_write_bw, socket_bw and ib_write_bw use the "
	             "next three)",
	     .min = 1,
	     .max = 65535},
	    {.name = "oob-timeout",
	     .type = RB_OPT_U32,
	     .off = offsetof(struct dr_triage_opts, oob.timeout_s),
	     .arg = "SEC",
	     .help = "--peer: give up reaching the peer after SEC s (default 10)",
	     .min = 1,
	     .max = 600},
	    {.name = "bind",
	     .type = RB_OPT_STR,
	     .off = offsetof(struct dr_triage_opts, oob.bind),
	     .arg = "ADDR",
	     .help = "--serve: listen on ADDR only (default: all addresses)"},
	    {.name = "auth-key",
	     .type = RB_OPT_STR,
	     .off = offsetof(struct dr_triage_opts, oob.auth_file),
	     .arg = "FILE",
	     .help =
	         "both sides prove the secret in FILE (owner-only; default: $RB_AUTH_KEY if set); --serve "
	         "passes it to its servers"},
	    {0},
	};
	return (struct rb_opt_table){"Two-node triage", rows, o, false, NULL};
}

/* rdma-core's providers live beside libibverbs.so.1, in its libibverbs/ directory. */
static void default_provider_dir(char *out, size_t len)
{
	Dl_info info;
	char copy[512];

	snprintf(out, len, "/usr/lib/x86_64-linux-gnu/libibverbs");
	if (dladdr((void *)ibv_get_device_list, &info) && info.dli_fname && strchr(info.dli_fname, '/')) {
		snprintf(copy, sizeof(copy), "%s", info.dli_fname);
		snprintf(out, len, "%s/libibverbs", dirname(copy));
	}
}

static int check_dir(const char *opt, const char *dir)
{
	struct stat st;

	if (stat(dir, &st) || !S_ISDIR(st.st_mode)) {
		rb_usage_err("invalid value '%s' for --%s (allowed: an existing directory)", dir, opt);
		return -1;
	}
	return 0;
}

/* --hca and --gid-range (or the NCCL variables behind them) as the tools take them: or exit 2. */
static int filters(const struct doctor_opts *o, const struct rb_opts_given *given, struct rb_hca_filter *filt,
                   struct rb_addr_range *range)
{
	bool hca_opt = rb_opts_given(given, &o->hca), range_opt = rb_opts_given(given, &o->gid_range);

	if (rb_hca_filter_parse(o->hca, filt)) {
		rb_usage_err("invalid value '%s' for %s (allowed: NCCL_IB_HCA syntax: [^][=]dev[:port],...)",
		             o->hca, hca_opt ? "--hca" : "NCCL_IB_HCA");
		return -1;
	}
	memset(range, 0, sizeof(*range));
	if (o->gid_range && rb_addr_range_parse(o->gid_range, range)) {
		rb_usage_err("invalid value '%s' for %s (allowed: a CIDR such as 10.0.0.0/8 or fd00::/8)",
		             o->gid_range, range_opt ? "--gid-range" : "NCCL_IB_ADDR_RANGE");
		return -1;
	}
	return 0;
}

/* The live host's own roots, however they were spelled. */
static bool same_dir(const char *a, const char *b)
{
	char *ra = realpath(a, NULL), *rb = realpath(b, NULL);
	bool same = ra && rb && !strcmp(ra, rb);

	free(ra);
	free(rb);
	return same;
}

/* --peer and --serve: one at a time, and the key they name. */
static int triage_check(struct dr_triage_opts *t, const struct rb_opts_given *given, bool json)
{
	if (t->peer && t->serve) {
		rb_usage_err("--peer with --serve: one side asks, the other serves");
		return -1;
	}
	if ((t->perftest && !t->serve) || (t->perftest_iters && !t->perftest)) {
		rb_usage_err("--perftest is for --serve, and --perftest-iters for --perftest");
		return -1;
	}
	if (!t->peer && !t->serve &&
	    (t->dev || t->oob.bind || t->oob.auth_file || rb_opts_given(given, &t->duration_s) ||
	     rb_opts_given(given, &t->oob.port) || rb_opts_given(given, &t->oob.timeout_s))) {
		rb_usage_err(
		    "--ib-dev, --duration, --port, --oob-timeout, --bind and --auth-key are for --peer or "
		    "--serve");
		return -1;
	}
	if (t->peer && (t->peer[0] == '-' || !t->peer[0])) {
		rb_usage_err(
		    "invalid value '%s' for --peer (allowed: the host name or address of a node running "
		    "rdma_doctor --serve)",
		    t->peer);
		return -1;
	}
	if (t->peer && t->oob.bind) {
		rb_usage_err("--bind with --peer: it is where --serve listens");
		return -1;
	}
	if (t->serve && json) {
		rb_usage_err("--json with --serve: the asking side (--peer) writes the document");
		return -1;
	}
	t->json = json;
	return rb_auth_key_load(t->oob.auth_file, &t->oob.key) ? -1 : 0;
}

int main(int argc, char **argv)
{
	static struct dr_host h;
	struct doctor_opts o = {"/sys", "/dev", NULL, NULL, NULL, NULL, false};
	struct dr_tclass tc;
	struct dr_triage_opts to = {.duration_s = 2};
	struct rb_opt_table t[3];
	struct rb_opts_given given = {0};
	struct rb_opts_env env;
	struct rb_hca_filter filt;
	struct rb_addr_range range;
	char prov[512];
	struct dr_roots r;
	int pos;

	rb_log_init(argv[0]);
	rb_oob_opts_default(&to.oob);
	to.oob.port = DR_SERVE_PORT;
	to.oob.timeout_s = 10;
	t[0] = doctor_table(&o);
	t[1] = triage_table(&to);
	t[2] = rb_common_opts();
	rb_opts_env(t, 3, false, &env);
	pos = rb_opts_parse(t, 3, argc, argv, "rdma_doctor [options]", &given);
	if (pos >= 0 && rb_opts_env_settle(&env, &given))
		return 2;
	if (pos == RB_OPTS_VERSION)
		rb_print_version(stdout);
	if (pos == RB_OPTS_HELP || pos == RB_OPTS_VERSION)
		return 0;
	if (pos < 0)
		return 2;
	if (pos < argc) {
		rb_usage_err("unexpected argument '%s' (a peer is named with --peer HOST)", argv[pos]);
		return 2;
	}
	if (triage_check(&to, &given, o.json))
		return 2;
	if (!o.prov) {
		default_provider_dir(prov, sizeof(prov));
		o.prov = prov;
	}
	if (check_dir("sysfs-root", o.sys) || check_dir("dev-root", o.dev) ||
	    (rb_opts_given(&given, &o.prov) && check_dir("provider-dir", o.prov)))
		return 2;
	if (filters(&o, &given, &filt, &range) ||
	    dr_tclass_parse(o.tclass, !rb_opts_given(&given, &o.tclass), &tc))
		return 2;
	r = (struct dr_roots){o.sys, o.dev, o.prov, same_dir(o.sys, "/sys") && same_dir(o.dev, "/dev")};
	to.tclass = tc;
	if (to.serve)
		return dr_serve(&to, &r, &filt, &range, o.hca);
	if (to.peer)
		return dr_triage(&to, &r, &filt, &range, o.hca);
	dr_scan(&r, &h, &filt, &range, o.hca);
	dr_scan_dcb(&r, &h, &tc);
	if (o.json)
		dr_print_json(stdout, &h, &r);
	else
		dr_print_text(stdout, &h, &r);
	return h.usable ? 0 : 1;
}

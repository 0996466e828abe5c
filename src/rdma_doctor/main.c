/*
 * rdma_doctor: why verbs are (not) usable on this host, layer by layer (doctor.h).
 * No peer needed. Exit 0 when at least one port is usable, 1 when none is, 2 for
 * a usage error.
 */
#include "doctor.h"
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
	const char *sys, *dev, *prov, *hca, *gid_range;
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
	     .help = "the NCCL_IB_HCA filter to judge (default: $NCCL_IB_HCA)"},
	    {.name = "gid-range",
	     .type = RB_OPT_STR,
	     .off = offsetof(struct doctor_opts, gid_range),
	     .arg = "CIDR",
	     .help = "choose GIDs inside CIDR, as the tools' --gid-range (default: $NCCL_IB_ADDR_RANGE)"},
	    {.name = "json",
	     .type = RB_OPT_FLAG,
	     .off = offsetof(struct doctor_opts, json),
	     .help = "print the findings as one JSON document"},
	    {0},
	};
	return (struct rb_opt_table){"Checks", rows, o, false};
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

int main(int argc, char **argv)
{
	static struct dr_host h;
	struct doctor_opts o = {"/sys", "/dev", NULL, NULL, NULL, false};
	struct rb_opt_table t[2] = {doctor_table(&o), rb_common_opts()};
	struct rb_opts_given given = {0};
	struct rb_hca_filter filt;
	struct rb_addr_range range;
	char prov[512];
	struct dr_roots r;
	int pos;

	rb_log_init(argv[0]);
	o.hca = getenv("NCCL_IB_HCA");
	o.gid_range = getenv("NCCL_IB_ADDR_RANGE");
	pos = rb_opts_parse(t, 2, argc, argv, "rdma_doctor [options]", &given);
	if (pos == RB_OPTS_VERSION)
		rb_print_version(stdout);
	if (pos == RB_OPTS_HELP || pos == RB_OPTS_VERSION)
		return 0;
	if (pos < 0)
		return 2;
	if (pos < argc) {
		rb_usage_err("unexpected argument '%s' (rdma_doctor needs no peer)", argv[pos]);
		return 2;
	}
	if (!o.prov) {
		default_provider_dir(prov, sizeof(prov));
		o.prov = prov;
	}
	if (check_dir("sysfs-root", o.sys) || check_dir("dev-root", o.dev) ||
	    (rb_opts_given(&given, &o.prov) && check_dir("provider-dir", o.prov)))
		return 2;
	if (filters(&o, &given, &filt, &range))
		return 2;
	r = (struct dr_roots){o.sys, o.dev, o.prov, same_dir(o.sys, "/sys") && same_dir(o.dev, "/dev")};
	dr_scan_devices(&r, &h);
	for (int d = 0; d < h.ndevs; d++)
		dr_scan_ports(&r, &h.dev[d], &filt, &range);
	dr_scan_host(&r, &h, o.hca);
	if (o.json)
		dr_print_json(stdout, &h, &r);
	else
		dr_print_text(stdout, &h, &r);
	return h.usable ? 0 : 1;
}

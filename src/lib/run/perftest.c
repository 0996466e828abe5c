/* SPDX-License-Identifier: BSD-2-Clause */
/* perftest's options with perftest's meaning (perftest.h). */
#include "perftest.h"

#include "measure/measure.h"
#include "report/report.h"
#include "verbs/verbs.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* The JSON document's name when --out_json is given alone: perftest's default. */
#define OUT_JSON_DEFAULT "perftest_out.json"

/* -c: RC is what every tool here runs; UC, UD, XRC and DC are not measured here. */
static int parse_connection(const char *arg, void *dst)
{
	if (strcasecmp(arg, "RC"))
		return -EINVAL;
	*(const char **)dst = "RC";
	return 0;
}

static int parse_address(const char *arg, void *dst)
{
	unsigned char buf[16];

	if (inet_pton(AF_INET, arg, buf) != 1 && inet_pton(AF_INET6, arg, buf) != 1)
		return -EINVAL;
	*(const char **)dst = arg;
	return 0;
}

/*
 * perftest's spellings of options we have under another name: the same option, so a
 * command line written for ib_write_bw runs unchanged (known only where the tool has
 * the option it names).
 */
const struct rb_opt_alias rb_perftest_aliases[] = {
    {"qp", 0, "qps"},
    {"post_list", 0, "post-list"},
    {"inline_size", 0, "inline"},
    {"use_hugepages", 0, "hugepages"},
    {"cpu_util", 0, "cpu-util"},
    {"hop_limit", 0, "hop-limit"},
    {"pkey_index", 0, "pkey-index"},
    {"CPU-freq", 0, "cpu-freq-ignore"},
    {"report-gbits", 0, "report_gbits"},
    {"out-json", 0, "out_json"},
    {"tos", 0, "tclass"},
    {"retry_cnt", 0, "retry-cnt"},
    {"qp_timeout", 0, "qp-timeout"},
    {"report-histogram", 0, "histogram"},
    {"run_infinitely", 0, "run-infinitely"},
    {"noPeak", 0, "no-peak"},
    {"use_cuda", 0, "use-cuda"},
    {"use_cuda_dmabuf", 0, "use-cuda-dmabuf"},
    {"use_cuda_bus_id", 0, "use-cuda-bus-id"},
    {"rdma_cm", 0, "rdma-cm"},
    {"use_old_post_send", 0, "old-post-send"},
    {"cm", 0, "rdma-cm"},
    {"disable_pcie_relaxed", 0, "disable-pcie-relaxed"},
    {"retry_count", 0, "retry-cnt"},
    {"events", 0, "event"},
    {NULL, 'L', "hop-limit"},
    {NULL, 'e', "event"},
    {NULL, 'w', "limit_bw"},
    {NULL, 'y', "limit_msgrate"},
    {NULL, 0, NULL},
};

/* perftest's options these tools do not take, and what to use instead. */
static const struct rb_opt_hint perftest_hints[] = {
    {"ipv6", "use --source_ip ADDR with the IPv6 address, or -x IDX with an IPv6 GID's index "
             "(rdma_doctor lists the GID table)"},
    {"mr_per_qp", "rc_write_bw's only; here one memory region serves every QP"},
    {"odp", "not supported: on-demand paging is not measured here"},
    {"margin", "each size is measured whole here, first post to last completion: no margin to drop"},
    {"f", "--margin: each size is measured whole here, first post to last completion: no margin to drop"},
    {"flows", "one flow per QP here: give -q N"},
    {"report-per-port", "one port a run here: a run per port, or --all-pairs with -d listing the rails"},
    {"U", "rc_write_lat's: a bandwidth run keeps no per-message samples"},
    {"limit_lat", "use --max-lat-p99 US, a gate on the p99 latency"},
    {NULL, NULL},
};

static const struct rb_dialect perftest = {"perftest", rb_perftest_aliases, perftest_hints, NULL};

struct rb_opt_table rb_perftest_opt_table(struct rb_perftest_opts *o)
{
	static const struct rb_opt rows[] = {
	    {.name = "connection",
	     .key = 'c',
	     .type = RB_OPT_FN,
	     .off = offsetof(struct rb_perftest_opts, connection),
	     .arg = "TYPE",
	     .help = "perftest's connection type: RC, the only one these tools run",
	     .fn = parse_connection,
	     .allowed = "RC (perftest's UC, UD, XRC and DC are not measured here)",
	     .flags = RB_OPT_LOCAL},
	    {.name = "report_gbits",
	     .type = RB_OPT_FLAG,
	     .off = offsetof(struct rb_perftest_opts, report_gbits),
	     .help = "perftest's: bandwidth in Gb/sec (10^9 bits a second) with perftest's header, as "
	             "--units Gb/sec",
	     .flags = RB_OPT_LOCAL},
	    {.name = "out_json",
	     .type = RB_OPT_FLAG,
	     .off = offsetof(struct rb_perftest_opts, out_json),
	     .help = "perftest's: its JSON layout (test_info, then results with MsgSize, n_iterations and "
	             "the table's figures in its units) to " OUT_JSON_DEFAULT "; --json FILE writes ours",
	     .flags = RB_OPT_LOCAL},
	    {.name = "out_json_file",
	     .type = RB_OPT_STR,
	     .off = offsetof(struct rb_perftest_opts, out_json_file),
	     .arg = "FILE",
	     .help = "perftest's: --out_json's document to FILE instead",
	     .flags = RB_OPT_LOCAL},
	    {.name = "limit_bw",
	     .type = RB_OPT_DOUBLE,
	     .off = offsetof(struct rb_perftest_opts, limit_bw),
	     .arg = "BW",
	     .help = "perftest's (-w where the tool has no -w of its own): exit 1 when a size's average "
	             "bandwidth is below BW, in the table's unit "
	             "(MB/sec in rc_write_bw unless --report_gbits or --units)",
	     .max = 1e9,
	     .flags = RB_OPT_LOCAL},
	    {.name = "limit_msgrate",
	     .type = RB_OPT_DOUBLE,
	     .off = offsetof(struct rb_perftest_opts, limit_msgrate),
	     .arg = "MPPS",
	     .help =
	         "perftest's (-y): exit 1 when a size's message rate is below MPPS million messages a second",
	     .max = 1e6,
	     .flags = RB_OPT_LOCAL},
	    {.name = "report-counters",
	     .key = 'W',
	     .type = RB_OPT_STR,
	     .off = offsetof(struct rb_perftest_opts, counters),
	     .arg = "LIST",
	     .help = "perftest's: accepted; every row already carries the port's counter deltas (ctr_<name> "
	             "columns, the abnormal ones named under the table)",
	     .flags = RB_OPT_LOCAL},
	    {.name = "perform_warm_up",
	     .type = RB_OPT_FLAG,
	     .off = offsetof(struct rb_perftest_opts, warm_up),
	     .help = "perftest's warm-up: one untimed pass of the first size before the sweep, its row "
	             "discarded"},
	    {.name = "source_ip",
	     .type = RB_OPT_FN,
	     .off = offsetof(struct rb_perftest_opts, source_ip),
	     .arg = "ADDR",
	     .help = "perftest's: use the GID that carries this address (as --gid-range ADDR/32 or /128)",
	     .fn = parse_address,
	     .allowed = "an IPv4 or IPv6 address",
	     .flags = RB_OPT_LOCAL},
	    {0},
	};
	return (struct rb_opt_table){"perftest's options", rows, o, true, &perftest};
}

int rb_perftest_apply(struct rb_perftest_opts *o, const struct rb_opts_given *given, struct rb_out_opts *out,
                      struct rb_gate_opts *gate, struct rb_dev_opts *dev)
{
	static const char *const unit[] = {"Gb/s", "Gb/sec", "MB/sec"};

	if (o->report_gbits) {
		if (rb_opts_given(given, &out->units) && out->units != RB_UNITS_GBSEC) {
			rb_usage_err(
			    "--report_gbits asks for Gb/sec, and --units another unit: give one of them");
			return -EINVAL;
		}
		out->units = RB_UNITS_GBSEC;
	}
	/* -w in the table's unit, as perftest compares its own figure. */
	gate->limit_bw = o->limit_bw;
	gate->limit_bw_unit = unit[out->units];
	gate->limit_bw_scale = out->units == RB_UNITS_MBSEC ? 8.0 * 1048576 / 1e9 : 1;
	gate->min_rate_mpps = o->limit_msgrate;
	if (o->out_json_file || o->out_json)
		out->perftest_json = o->out_json_file ? o->out_json_file : OUT_JSON_DEFAULT;
	if (!o->source_ip)
		return 0;
	if (rb_opts_given(given, &dev->gid_range) || rb_opts_given(given, &dev->gid_index)) {
		rb_usage_err("--source_ip %s picks the GID: give it without --gid-range or -x", o->source_ip);
		return -EINVAL;
	}
	snprintf(o->range, sizeof(o->range), "%s/%d", o->source_ip, strchr(o->source_ip, ':') ? 128 : 32);
	dev->gid_range = o->range;
	return 0;
}

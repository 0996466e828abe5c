/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fifo_pingpong: NCCL's receiver-driven CTS-FIFO send/recv protocol over RC QPs,
 * without NCCL or GPUs in the way. The receiver RDMA-WRITEs a clear-to-send element
 * into the sender's FIFO (fifo.h); the sender checks it and RDMA-WRITEs the payload
 * as NCCL lays it out (plan.h), ending each QP's share with a WRITE_WITH_IMM.
 * --window 1 is a ping-pong on the ping-pong engine (latency), --window N pipelined
 * bandwidth (modes.c); xfer.c holds the data path. --explain prints the WR plan and
 * needs neither device nor peer. This file is the tool's face (options, layout, the
 * driver's callbacks); env.c takes the NCCL_IB_* defaults, output.c writes the header
 * and rows.
 */
#include "chans.h"
#include "modes.h"
#include "account.h"
#include "output.h"
#include "xfer.h"

#include "base/base.h"
#include "measure/measure.h"
#include "rb_config.h"
#include "fabric/fabric.h"
#include "run/run.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define USAGE                                                                                                \
	TOOL " [options]            (server)\n       " TOOL " [options] SERVER     (client)\n       " TOOL   \
	     " --explain [options]"

/* ---------------------------------------------------------------- options */

/* NCCL_IB_ADAPTIVE_ROUTING spells on and off 1 and 0. */
static int parse_ar(const char *arg, void *dst)
{
	if (!strcmp(arg, "1") || !strcmp(arg, "0"))
		arg = arg[0] == '1' ? "on" : "off";
	if (strcmp(arg, "on") && strcmp(arg, "off") && strcmp(arg, "auto"))
		return -EINVAL;
	*(const char **)dst = arg;
	return 0;
}

/* -n and -D: measure's table, in this tool's words. */
static const struct rb_runlen_help fp_runlen_help = {
    .iters = "round trips (--window 1) or messages per size (default 1000)",
};

static const struct rb_opt fp_rows[] = {
    {.name = "window",
     .key = 'w',
     .type = RB_OPT_U32,
     .off = offsetof(struct fp_opts, window),
     .arg = "N",
     .help = "CTS slots outstanding: 1 = ping-pong latency, N > 1 = pipelined bandwidth (default 8)",
     .min = 1,
     .max = WINDOW_MAX},
    {.name = "warmup",
     .type = RB_OPT_U32,
     .off = offsetof(struct fp_opts, warmup),
     .arg = "N",
     .help = "--window 1: round trips run first and not measured (default 100)",
     .max = 1u << 24},
    {.name = "qps-per-conn",
     .key = 'q',
     .type = RB_OPT_U32,
     .off = offsetof(struct fp_opts, qps),
     .arg = "N",
     .help = "data QPs of the connection (default $NCCL_IB_QPS_PER_CONNECTION or 1)",
     .min = 1,
     .max = PLAN_MAX_QPS,
     .env = "NCCL_IB_QPS_PER_CONNECTION"},
    {.name = "threads",
     .type = RB_OPT_U32,
     .off = offsetof(struct fp_opts, threads),
     .arg = "N",
     .help = "N independent FIFO channels (NCCL's channels), each with -q data QPs, a CTS QP, its "
             "FIFOs and a send and a receive CQ of its own, driven by a thread of its own pinned to "
             "a CPU of the device's node, on both sides alike; -n is per channel (default 1; "
             "--window > 1)",
     .min = 1,
     .max = FP_MAX_THREADS},
    {.name = "split-data-on-qps",
     .type = RB_OPT_FLAG,
     .off = offsetof(struct fp_opts, split),
     .help = "cut each message across all data QPs (default $NCCL_IB_SPLIT_DATA_ON_QPS or off)",
     .env = "NCCL_IB_SPLIT_DATA_ON_QPS"},
    {.name = "adaptive-routing",
     .type = RB_OPT_FN,
     .off = offsetof(struct fp_opts, ar),
     .arg = "on|off|auto",
     .help = "bulk WRITE + 0-byte WRITE_WITH_IMM above the threshold (default "
             "$NCCL_IB_ADAPTIVE_ROUTING, auto: on for InfiniBand, off for RoCE)",
     .fn = parse_ar,
     .allowed = "on, off or auto",
     .env = "NCCL_IB_ADAPTIVE_ROUTING"},
    {.name = "ar-threshold",
     .type = RB_OPT_U64,
     .off = offsetof(struct fp_opts, ar_threshold),
     .arg = "BYTES",
     .help = "adaptive routing splits messages strictly above BYTES (default $NCCL_IB_AR_THRESHOLD "
             "or 8192)",
     .max = 1ull << 30,
     .env = "NCCL_IB_AR_THRESHOLD"},
    {.name = "multi-recv",
     .type = RB_OPT_U32,
     .off = offsetof(struct fp_opts, multi_recv),
     .arg = "N",
     .help = "requests per CTS slot (NCCL's grouped receive; sizes go through the sizes FIFO) "
             "(default 1)",
     .min = 1,
     .max = FIFO_MAX_RECVS},
    {.name = "cts-inline",
     .type = RB_OPT_FLAG,
     .off = offsetof(struct fp_opts, cts_inline),
     .help = "post the CTS writes inline"},
    {.name = "fifo-tc",
     .type = RB_OPT_U32,
     .off = offsetof(struct fp_opts, fifo_tc),
     .arg = "TC",
     .help = "traffic class of the CTS QP (default $NCCL_IB_FIFO_TC or --tclass)",
     .max = 255,
     .flags = RB_OPT_LOCAL,
     .env = "NCCL_IB_FIFO_TC"}, /* this side's QP: never a client's to set */
    {.name = "flush",
     .type = RB_OPT_FLAG,
     .off = offsetof(struct fp_opts, flush),
     .help = "after each receive, a 1-byte RDMA READ on a QP connected to itself (GPUDirect's flush)"},
    {.name = "inline",
     .key = 'I',
     .type = RB_OPT_U32,
     .off = offsetof(struct fp_opts, inline_bytes),
     .arg = "BYTES",
     .help = "send payload WRs up to BYTES inline (default 0)",
     .max = 1u << 20},
    {.name = "verify",
     .type = RB_OPT_FLAG,
     .off = offsetof(struct fp_opts, verify),
     .help = "the receiver checks every payload byte and every received size"},
    {.name = "account",
     .type = RB_OPT_FLAG,
     .off = offsetof(struct fp_opts, account),
     .help = "each message's time cut at the protocol's events, both sides' stamps on the client's "
             "clock through out-of-band probes, under each size's row and in its acct_* columns: "
             "--window 1, peer busy, CTS post, CTS flight, sender post, data flight, rx completion; "
             "--window N, the credit loop (message m-N posted -> CTS m seen: data flight, rx "
             "completion, CTS post, sender posting, sender busy, CTS flight) and the sender's post "
             "(--threads 1)"},
    {.name = "explain",
     .type = RB_OPT_FLAG,
     .off = offsetof(struct fp_opts, explain),
     .help = "print the WR plan of each size (per QP: opcode, offset, length, signaled, immediate) "
             "and exit; no device, no peer",
     .flags = RB_OPT_LOCAL},
    {.name = "histogram",
     .key = 'H',
     .type = RB_OPT_FLAG,
     .off = offsetof(struct fp_opts, histogram),
     .help = "--window 1: print a log2 histogram of the samples",
     .flags = RB_OPT_LOCAL},
    {.name = "samples",
     .type = RB_OPT_STR,
     .off = offsetof(struct fp_opts, samples),
     .arg = "FILE",
     .help = "--window 1 client: every one-way latency to FILE (CSV; '-' = stdout)",
     .flags = RB_OPT_LOCAL},
    {.name = "report-unsorted",
     .key = 'U',
     .type = RB_OPT_FLAG,
     .off = offsetof(struct fp_opts, unsorted),
     .help = "--window 1 client: every one-way latency on stdout (as --samples -)",
     .flags = RB_OPT_LOCAL},
    {.name = "timeout",
     .type = RB_OPT_U32,
     .off = offsetof(struct fp_opts, timeout_s),
     .arg = "SEC",
     .help = "fail when no CTS, message or completion comes for SEC s (default 5)",
     .min = 1,
     .max = 3600,
     .flags = RB_OPT_LOCAL},
    {0},
};

static struct rb_opt_table fp_opt_table(struct fp_opts *o)
{
	return (struct rb_opt_table){"Test", fp_rows, o, true, NULL};
}

/* ---------------------------------------------------------------- the tool */

static unsigned opt_tables(void *t, struct rb_opt_table *out, unsigned max)
{
	struct fp *f = t;

	(void)max;
	out[0] = rb_size_opt_table(&f->opt.size, "2 with --window 1, 64K otherwise");
	out[1] = rb_runlen_opt_table(&f->opt.len, &fp_runlen_help);
	out[2] = fp_opt_table(&f->opt);
	return 3 + rb_verbs_opt_tables(&f->v, out + 3);
}

static int check(void *t, struct rb_run *r)
{
	struct fp *f = t;
	struct fp_opts *o = &f->opt;

	/* -I is the sender's: both sides in ping-pong, the client in bandwidth. */
	if (rb_verbs_check(&f->v, r->client || o->window == 1 ? o->inline_bytes : 0))
		return -EINVAL;
	if (rb_size_opts_resolve(&o->size, o->window == 1 ? 2 : 65536, &o->sizes))
		return -EINVAL;
	if (rb_runlen_resolve(&o->len, &o->sizes, 1000))
		return -EINVAL;
	if (rb_sizes_max(&o->sizes) > UINT32_MAX - 1) {
		rb_usage_err("message size %llu does not fit the 32-bit immediate (allowed: up to 4 GiB - 2)",
		             (unsigned long long)rb_sizes_max(&o->sizes));
		return -EINVAL;
	}
	if (o->window > 1 &&
	    (o->histogram || o->samples || o->unsorted || rb_opts_given(&r->given, &o->warmup))) {
		rb_usage_err("%s is for --window 1 (latency); --window %u measures bandwidth",
		             o->histogram  ? "--histogram"
		             : o->samples  ? "--samples"
		             : o->unsorted ? "-U"
		                           : "--warmup",
		             o->window);
		return -EINVAL;
	}
	if (o->threads > 1 && o->account) {
		rb_usage_err("--account with --threads %u: the account follows one channel's credit loop "
		             "(allowed: --threads 1)",
		             o->threads);
		return -EINVAL;
	}
	if (o->window > 1 && r->out_opts.interval_s > 0) {
		rb_usage_err("--interval is for --window 1 (latency); --window %u writes one row per size",
		             o->window);
		return -EINVAL;
	}
	if (rb_pp_samples_check(&o->samples, o->unsorted, r->client || o->explain, &r->out_opts))
		return -EINVAL;
	if ((uint64_t)o->threads * o->window * o->multi_recv * rb_sizes_max(&o->sizes) > (2ull << 30)) {
		rb_usage_err("--threads %u x --window %u x --multi-recv %u x %llu B needs more than 2 GiB of "
		             "buffers per side",
		             o->threads, o->window, o->multi_recv,
		             (unsigned long long)rb_sizes_max(&o->sizes));
		return -EINVAL;
	}
	if (o->threads > 1 && o->window == 1) {
		rb_usage_err("--threads %u with --window 1: a ping-pong moves one message at a time "
		             "(allowed: --threads 1, or --window > 1)",
		             o->threads);
		return -EINVAL;
	}
	if (o->threads > 1 && o->verify && f->v.mem.kind != RB_MEM_HOST) {
		rb_usage_err("--threads %u with --verify of GPU memory: the channels' threads hold no CUDA "
		             "context (allowed: --threads 1, or host memory)",
		             o->threads);
		return -EINVAL;
	}
	rb_fault_kind();
	return 0;
}

/* --explain: each size's plan, from the options alone. */
static int offline(void *t, const struct rb_run *r)
{
	struct fp *f = t;
	const struct fp_opts *o = &f->opt;

	(void)r;
	if (!o->explain)
		return -1;
	for (unsigned i = 0; i < o->sizes.n; i++) {
		uint64_t sizes[FIFO_MAX_RECVS];
		struct plan_cfg pc = {
		    .nqps = o->qps,
		    .split = o->split,
		    .ar = !strcmp(o->ar, "on"),
		    .ar_threshold = o->ar_threshold,
		    .nreqs = o->multi_recv,
		    .sizes = sizes,
		};

		for (unsigned k = 0; k < FIFO_MAX_RECVS; k++)
			sizes[k] = o->sizes.v[i];
		if (i)
			putchar('\n');
		if (!strcmp(o->ar, "auto"))
			printf("adaptive routing auto: on for an InfiniBand port, off for RoCE; planned here "
			       "as off "
			       "(--adaptive-routing on|off to choose)\n");
		plan_explain(stdout, &pc);
	}
	return RB_EXIT_OK;
}

static void hello(void *t, struct rb_hello *h)
{
	const struct fp_opts *o = &((struct fp *)t)->opt;

	rb_hello_sweep(h, TOOL, &o->sizes, o->len.iters, o->len.duration_s);
	rb_hello_add(h, "window", "%u", o->window);
	rb_hello_add(h, "warmup", "%u", o->warmup);
	rb_hello_add(h, "qps_per_conn", "%u", o->qps);
	rb_hello_add(h, "threads", "%u", o->threads);
	rb_hello_add(h, "split", "%d", o->split);
	rb_hello_add(h, "adaptive_routing", "%s", o->ar);
	rb_hello_add(h, "ar_threshold", "%llu", (unsigned long long)o->ar_threshold);
	rb_hello_add(h, "multi_recv", "%u", o->multi_recv);
	rb_hello_add(h, "verify", "%d", o->verify);
	rb_hello_add(h, "account", "%d", o->account);
}

/* The connection's regions, and --account's stamps (a server holds its own rows only). */
static uint64_t mem_need(void *t)
{
	const struct fp *f = t;
	struct rb_conn_cfg cfg = fp_conn_cfg(t);

	return rb_conn_cfg_bytes(&cfg) + (f->opt.account ? rb_stamps_bytes(AC_EVENTS, false) : 0);
}

static int setup(void *t, const struct rb_run *r)
{
	struct fp *f = t;
	const struct fp_opts *o = &f->opt;
	struct rb_pp_cfg ppc = {.iters = o->window == 1 ? o->len.iters : 0,
	                        .interval_s = r->out_opts.interval_s};
	struct rb_conn_cfg cfg = fp_conn_cfg(f);
	int ret;

	f->pp_mode = o->window == 1;
	f->cts_hold = rb_fault_kind() == FP_FAULT_CTS_DELAY;
	ret = rb_pp_init(&f->pp, &ppc, r->client);
	if (!ret && o->account) {
		static struct fp_acct acct;

		if (!(ret = fp_acct_init(&acct, r->client, o->window)))
			f->acct = &acct;
	}
	if (!ret && o->samples)
		ret = rb_pp_samples_open(&f->pp, o->samples);
	if (!ret)
		ret = rb_verbs_setup(&f->v, &cfg);
	f->c = &f->v.conn;
	f->o = r->oob;
	f->interval_row = fp_interval_row;
	f->row_arg = f;
	return ret;
}

static int connect_qps(void *t, const struct rb_run *r)
{
	struct fp *f = t;
	int ret = rb_verbs_connect(&f->v, r, f->opt.threads * f->data_bytes);

	f->ar = !strcmp(f->opt.ar, "on") || (!strcmp(f->opt.ar, "auto") && !f->c->dev.roce);
	return ret ? ret : fp_chans_connect(f);
}

static void header(void *t, const struct rb_run *r)
{
	fp_print_header(t, r);
}

static void meta(void *t, const struct rb_run *r, struct rb_row *m)
{
	struct fp *f = t;
	size_t len = 0;
	const struct fp_opts *o = &f->opt;

	rb_verbs_meta(&f->v, m);
	rb_row_u64(m, "iterations", NULL, o->len.iters);
	rb_row_dbl(m, "duration_s", NULL, 3, o->len.duration_s > 0 ? o->len.duration_s : NAN);
	rb_row_u64(m, "window", NULL, o->window);
	rb_row_u64(m, "warmup", NULL, o->warmup);
	rb_row_u64(m, "qps_per_conn", NULL, o->qps);
	rb_row_u64(m, "threads", NULL, o->threads);
	rb_row_bool(m, "split_data_on_qps", NULL, o->split);
	rb_row_bool(m, "adaptive_routing", NULL, f->ar);
	rb_row_u64(m, "ar_threshold", NULL, o->ar_threshold);
	rb_row_u64(m, "multi_recv", NULL, o->multi_recv);
	rb_row_bool(m, "cts_inline", NULL, o->cts_inline);
	rb_row_dbl(m, "fifo_tc", NULL, 0, f->c->path_ctl.grh ? f->c->path_ctl.tclass : NAN);
	rb_row_bool(m, "flush", NULL, o->flush);
	rb_row_u64(m, "inline_bytes", NULL, o->inline_bytes);
	rb_row_bool(m, "verify", NULL, o->verify);
	f->env_list[0] = '\0';
	for (unsigned i = 0; i < r->env.n && len < sizeof(f->env_list); i++)
		len += (size_t)snprintf(f->env_list + len, sizeof(f->env_list) - len, "%s%s", i ? " " : "",
		                        r->env.set[i]);
	rb_row_str_ref(m, "nccl_env", NULL, f->env_list); /* longer than a field holds */
	if (o->window == 1)
		rb_row_str(m, "percentile_method", NULL, "nearest rank");
}

static int step(void *t, const struct rb_run *r, struct rb_step *s, struct rb_row *row)
{
	struct fp *f = t;
	int ret;

	if (f->opt.window == 1) {
		struct rb_pp_result res;

		ret = fp_pp_step(f, r->client, s, &res);
		if (!ret)
			fp_lat_row(row, f, s->size, &res);
	} else {
		struct fp_bw res;

		ret = fp_bw_step(f, r->client, s->size, s->seq, &res);
		if (!ret)
			fp_bw_row(row, f, s->size, &res, r->client);
	}
	return ret;
}

/* SIGINT mid-size: the client's round trips so far (window 1; a windowed run has no partial row). */
static bool partial(void *t, const struct rb_run *r, const struct rb_step *s, struct rb_row *row)
{
	struct fp *f = t;
	struct rb_pp_result res;

	if (!r->client || f->opt.window != 1 || !rb_pp_partial(&f->pp, &res))
		return false;
	fp_lat_row(row, f, s->size, &res);
	return true;
}

static void after_row(void *t, const struct rb_run *r)
{
	struct fp *f = t;

	if (f->opt.histogram && r->client)
		rb_pp_print_histogram(&f->pp, stdout, 2);
	if (f->acct && r->client)
		fp_acct_print(f->acct, stdout);
}

/* --all-pairs: every device -d or --hca names is a rail. */
static bool teardown(void *t, const struct rb_run *r)
{
	struct fp *f = t;

	(void)r;
	if (!fp_chans_teardown(f))
		return false; /* a channel's thread was left running: nothing is freed under it */
	rb_pp_free(&f->pp);
	if (f->acct)
		fp_acct_free(f->acct);
	f->acct = NULL;
	rb_verbs_teardown(&f->v);
	return true;
}

static void defaults(void *t)
{
	struct fp *f = t;
	struct fp_opts *o = &f->opt;

	memset(o, 0, sizeof(*o));
	o->window = 8;
	o->warmup = 100;
	o->qps = 1;
	o->threads = 1;
	o->multi_recv = 1;
	o->timeout_s = 5;
	o->ar = "auto";
	o->ar_threshold = 8192;
	o->fifo_tc = FIFO_TC_UNSET;
	rb_verbs_default(&f->v);
}

/* Its own RB_TEST_FAULT kinds, in the order of FP_FAULT_* (fp.h). */
static const char *const fp_faults[] = {"fifo-tag",  "fifo-addr", "fifo-size",
                                        "fifo-rkey", "cts-stop",  "cts-delay"};

static const struct rb_tool fifo_pingpong_tool = {
    .id = {.name = TOOL,
           .usage = USAGE,
           .faults = fp_faults,
           .nfaults = sizeof(fp_faults) / sizeof(fp_faults[0])},
    .cli = {.intervals = true,
            .nccl_env = true,
            .defaults = defaults,
            .opt_tables = opt_tables,
            .check = check,
            .offline = offline,
            .sizes_at = offsetof(struct fp, opt.sizes),
            .len_at = offsetof(struct fp, opt.len)},
    .link = {.hello = hello,
             .setup = setup,
             .mem_need = mem_need,
             .connect = connect_qps,
             .verbs = true,
             .round_trip = true,
             .victim = "rc_write_lat",
             .verbs_at = offsetof(struct fp, v),
             .teardown = teardown},
    .measure = {.step = step, .partial = partial},
    .out = {.header = header, .meta = meta, .columns = fp_columns, .after_row = after_row},
};

int main(int argc, char **argv)
{
	static struct fp f;

	return rb_main(&fifo_pingpong_tool, &f, argc, argv);
}

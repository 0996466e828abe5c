/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rc_write_lat: RDMA WRITE latency over one RC QP, run the way ib_write_lat is run.
 *
 * Ping-pong with exactly one message in flight (transport.c); arrival is seen by
 * polling the last byte of the buffer (it carries a per-iteration marker), or with
 * --write-with-imm by the receive completion, busy-polled or, with --event, waited
 * for on a completion channel (wait.c). A sample is half the round trip. The
 * ping-pong engine (pingpong.h) owns the loop, the clock and the statistics; the
 * run driver (run.h) owns the connection, negotiation and documents. With --load
 * each size is measured twice, idle and then under bulk WRITE traffic (load.c),
 * and its row carries both.
 */
#include "rows.h"
#include "transport.h"

#include "measure/measure.h"
#include "base/base.h"
#include "rb_config.h"
#include "fabric/fabric.h"
#include "run/run.h"

#include <errno.h>
#include <stddef.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TOOL  "rc_write_lat"
#define USAGE TOOL " [options]            (server)\n       " TOOL " [options] SERVER     (client)"

/* --load's barrier between a size's idle and loaded measurements: apart from the driver's (1, 2, ...). */
#define LOAD_BARRIER (1ull << 32)

/* ---------------------------------------------------------------- options */

static void lat_opts_default(struct lat_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->warmup = 100;
	o->timeout_s = 5;
}

/* -n and -D: measure's table, in this tool's words (-n up to 2^32 - 1 round trips). */
static const struct rb_runlen_help lat_runlen_help = {
    .iters = "measured round trips per size (default 1000)",
    .iters_max = UINT32_MAX,
    .duration = "measure for SEC seconds per size instead of -n",
};

static struct rb_opt_table lat_opt_table(struct lat_opts *o)
{
	static const struct rb_opt rows[] = {
	    {.name = "warmup",
	     .type = RB_OPT_U32,
	     .off = offsetof(struct lat_opts, warmup),
	     .arg = "N",
	     .help = "round trips run first and not measured (default 100)",
	     .max = 1u << 24},
	    {.name = "inline",
	     .key = 'I',
	     .type = RB_OPT_U32,
	     .off = offsetof(struct lat_opts, inline_bytes),
	     .arg = "BYTES",
	     .help = "send messages up to BYTES inline (default 0)",
	     .max = 1u << 20},
	    {.name = "write-with-imm",
	     .type = RB_OPT_FLAG,
	     .off = offsetof(struct lat_opts, imm),
	     .help = "use RDMA_WRITE_WITH_IMM; arrival is the receive completion",
	     .flags = RB_OPT_GROUP(2)},
	    {.name = "event",
	     .type = RB_OPT_FLAG,
	     .off = offsetof(struct lat_opts, event),
	     .help = "wait for receive completions on a completion channel (implies --write-with-imm)",
	     .flags = RB_OPT_GROUP(2)},
	    {.name = "verify",
	     .type = RB_OPT_FLAG,
	     .off = offsetof(struct lat_opts, verify),
	     .help = "each message carries a per-iteration pattern that its receiver checks"},
	    {.name = "account",
	     .type = RB_OPT_FLAG,
	     .off = offsetof(struct lat_opts, account),
	     .help = "each message's time cut at its events (sender post, data flight), both sides' stamps "
	             "on the client's clock through out-of-band probes, under each size's row and in its "
	             "acct_* columns: the raw WRITE beside fifo_pingpong --account"},
	    {.name = "histogram",
	     .key = 'H',
	     .type = RB_OPT_FLAG,
	     .off = offsetof(struct lat_opts, histogram),
	     .help = "print a log2 histogram of the samples",
	     .flags = RB_OPT_LOCAL},
	    {.name = "samples",
	     .type = RB_OPT_STR,
	     .off = offsetof(struct lat_opts, samples),
	     .arg = "FILE",
	     .help =
	         "client: every one-way latency to FILE (CSV: size_bytes,iteration,latency_us; '-' = stdout)",
	     .flags = RB_OPT_LOCAL},
	    {.name = "report-unsorted",
	     .key = 'U',
	     .type = RB_OPT_FLAG,
	     .off = offsetof(struct lat_opts, unsorted),
	     .help = "client: every one-way latency on stdout, in the order measured (as --samples -)",
	     .flags = RB_OPT_LOCAL},
	    {.name = "timeout",
	     .type = RB_OPT_U32,
	     .off = offsetof(struct lat_opts, timeout_s),
	     .arg = "SEC",
	     .help = "fail when the peer sends nothing for SEC s (default 5)",
	     .min = 1,
	     .max = 3600,
	     .flags = RB_OPT_LOCAL},
	    {.name = "load",
	     .type = RB_OPT_FN,
	     .off = offsetof(struct lat_opts, load),
	     .arg = "SIZE[xQPS]",
	     .help = "measure each size idle, then again while QPS extra RC QPs (default 1) keep SIZE-byte "
	             "WRITEs in flight from the client to the server; the row has both",
	     .fn = lat_load_parse,
	     .allowed = LAT_LOAD_ALLOWED},
	    {.name = "cpu-freq-ignore",
	     .key = 'F',
	     .type = RB_OPT_IGNORE,
	     .help = "accepted for perftest compatibility; no effect"},
	    {0},
	};
	return (struct rb_opt_table){"Test", rows, o, true, NULL};
}

/* ---------------------------------------------------------------- output */

static void print_header(const struct lat *l, const struct rb_run *r)
{
	const struct lat_opts *o = &l->opt;
	char sizes[256];

	printf("---------------------------------------------------------------------------------------\n");
	printf("                    RDMA_Write%s Latency Test (rdmabench %s %s)\n", o->imm ? "_with_imm" : "",
	       TOOL, RB_VERSION);
	printf(" Role           : %s, peer %s\n", r->client ? "client (measures)" : "server (echoes)",
	       r->oob->peer);
	rb_device_describe(&l->c->dev, stdout);
	printf(" Sizes          : %s\n", rb_sizes_fmt(&o->sizes, sizes, sizeof(sizes)));
	if (o->len.duration_s > 0)
		printf(" Duration       : %g s per size after %u warm-up round trips\n", o->len.duration_s,
		       o->warmup);
	else
		printf(" Iterations     : %u per size after %u warm-up round trips\n", o->len.iters,
		       o->warmup);
	printf(" Arrival        : %s\n",
	       o->event ? "receive completion, completion channel (event; empty and late wake-ups counted)"
	       : o->imm ? "receive completion, busy-polled CQ"
	                : "last byte of the buffer, busy-polled");
	printf(" Inline         : %u B\n", o->inline_bytes);
	if (o->verify)
		printf(" Verify         : every payload checked by its receiver, outside the timed round "
		       "trip\n");
	rb_conn_describe(l->c, &l->v.qp, stdout);
	if (l->load)
		lat_load_describe(l->load, stdout);
	printf(" Latency        : half round trip; percentiles by nearest rank up to %u samples, from a "
	       "histogram (within %.3f %%) beyond\n",
	       RB_PP_EXACT_MAX, 100.0 * RB_HIST_REL_ERROR);
	printf("---------------------------------------------------------------------------------------\n");
}

/* --interval: the row of one interval of the size in progress, into the documents (l->interval_row). */
static int interval_row(void *arg, const struct rb_pp_result *res, double from_s, double to_s)
{
	struct lat *l = arg;
	struct rb_row row;

	lat_row(&row, l, l->size, res, NULL, NULL, false);
	l->ivl_base = l->step;
	rb_step_row(l->cur, &row, from_s, to_s);
	return 0;
}

/* ---------------------------------------------------------------- the tool */

static unsigned opt_tables(void *t, struct rb_opt_table *out, unsigned max)
{
	struct lat *l = t;

	(void)max;
	out[0] = rb_size_opt_table(&l->opt.size, "2");
	out[1] = rb_runlen_opt_table(&l->opt.len, &lat_runlen_help);
	out[2] = lat_opt_table(&l->opt);
	return 3 + rb_verbs_opt_tables(&l->v, out + 3);
}

static int check(void *t, struct rb_run *r)
{
	struct lat_opts *o = &((struct lat *)t)->opt;

	if (rb_size_opts_resolve(&o->size, 2, &o->sizes))
		return -EINVAL;
	if (rb_runlen_resolve(&o->len, &o->sizes, 1000))
		return -EINVAL;
	/* --event means arrival by receive completion: naming both says the same thing twice. */
	if (o->event && o->imm) {
		rb_usage_err("--event already implies --write-with-imm: give --event alone");
		return -EINVAL;
	}
	if (o->event)
		o->imm = true;
	if (rb_verbs_check(&((struct lat *)t)->v, o->inline_bytes))
		return -EINVAL;
	/* The CPU cannot read GPU memory: arrival must be a completion, not a polled byte. */
	if (((struct lat *)t)->v.mem.kind != RB_MEM_HOST && !o->imm) {
		rb_usage_err("--mem %s: the CPU cannot poll GPU memory for the last byte; add "
		             "--write-with-imm (or --event) so arrival is a receive completion",
		             rb_mem_kind_name(((struct lat *)t)->v.mem.kind));
		return -EINVAL;
	}
	if (rb_pp_samples_check(&o->samples, o->unsorted, r->client, &r->out_opts))
		return -EINVAL;
	/* Two measurements per size: intervals and samples would interleave them under one size. */
	if (o->load.size && r->client && (r->out_opts.interval_s > 0 || o->samples)) {
		rb_usage_err("--load measures each size twice (idle, loaded): not with %s",
		             r->out_opts.interval_s > 0 ? "--interval"
		             : o->unsorted              ? "-U/--report-unsorted"
		                                        : "--samples");
		return -EINVAL;
	}
	rb_fault_kind(); /* says so now when a test fault is set */
	return 0;
}

static void hello(void *t, struct rb_hello *h)
{
	const struct lat_opts *o = &((struct lat *)t)->opt;

	rb_hello_sweep(h, TOOL, &o->sizes, o->len.iters, o->len.duration_s);
	rb_hello_add(h, "warmup", "%u", o->warmup);
	rb_hello_add(h, "write_with_imm", "%d", o->imm);
	rb_hello_add(h, "verify", "%d", o->verify);
	if (o->account) /* without it the HELLO is what it always was */
		rb_hello_add(h, "account", "1");
	if (o->load.size) /* without --load the HELLO is what it always was */
		rb_hello_add(h, "load", "%llux%u", (unsigned long long)o->load.size, o->load.qps);
}

static size_t region(const struct lat_opts *o)
{
	return rb_sizes_max(&o->sizes) * lat_nslots(o);
}

/* What setup asks of the verbs layer for these options. */
static struct rb_conn_cfg conn_cfg(const struct lat_opts *o)
{
	return (struct rb_conn_cfg){
	    .nqps = 1,
	    .caps = {.send_wr = SEND_WR, .recv_wr = o->imm ? RX_DEPTH : 0, .inline_bytes = o->inline_bytes},
	    .src_per_qp = region(o),
	    .dst_per_qp = region(o),
	    .recv_cq = o->imm,
	    .event_cq = o->event,
	    .dst_polled = !o->imm && !o->event,
	    .dst_checked = o->verify,
	};
}

static uint64_t mem_need(void *t)
{
	const struct lat_opts *o = &((struct lat *)t)->opt;
	struct rb_conn_cfg cfg = conn_cfg(o);

	return rb_conn_cfg_bytes(&cfg) + (o->load.size ? lat_load_bytes(&o->load) : 0) +
	       (o->account ? rb_stamps_bytes(LA_EVENTS, false) : 0); /* a server's own rows */
}

static int setup(void *t, const struct rb_run *r)
{
	struct lat *l = t;
	const struct lat_opts *o = &l->opt;
	struct rb_pp_cfg ppc = {.iters = o->len.iters, .interval_s = r->out_opts.interval_s};
	struct rb_conn_cfg cfg = conn_cfg(o);
	int ret = rb_pp_init(&l->pp, &ppc, r->client);

	if (!ret && o->account) {
		static struct lat_acct acct;

		if (!(ret = lat_acct_init(&acct, r->client)))
			l->acct = &acct;
	}
	/* The samples file first: a bad path is exit 2 before a device is opened. */
	if (!ret && o->samples)
		ret = rb_pp_samples_open(&l->pp, o->samples);
	if (!ret)
		ret = rb_verbs_setup(&l->v, &cfg);
	if (!ret && o->load.size)
		ret = lat_load_new(&o->load, r->client, &l->v.conn.dev, &l->v.mem, &l->v.qp, o->timeout_s,
		                   &l->load);
	l->c = &l->v.conn;
	l->o = r->oob;
	l->interval_row = interval_row;
	l->row_arg = l;
	return ret;
}

static int connect_qp(void *t, const struct rb_run *r)
{
	struct lat *l = t;
	int ret = rb_verbs_connect(&l->v, r, region(&l->opt));

	if (!ret)
		ret = lat_ready_qp(l);
	/* The latency QP has moved for this peer: a failure now is the run's, not a stranger's. */
	if (!ret && l->load && (ret = lat_load_connect(l->load, r->oob, &l->v.qp)) == -EPROTO)
		ret = -EIO;
	return ret;
}

static void header(void *t, const struct rb_run *r)
{
	struct lat *l = t;

	l->text = true;
	print_header(l, r);
}

static void meta(void *t, const struct rb_run *r, struct rb_row *m)
{
	const struct lat *l = t;
	const struct lat_opts *o = &l->opt;

	(void)r;
	rb_verbs_meta(&l->v, m);
	rb_row_str(m, "perftest_test", NULL, "RDMA_Write_Latency_Test"); /* --out_json's test_info.test */
	rb_row_u64(m, "iterations", NULL, o->len.iters);
	rb_row_u64(m, "warmup", NULL, o->warmup);
	rb_row_dbl(m, "duration_s", NULL, 3, o->len.duration_s > 0 ? o->len.duration_s : NAN);
	rb_row_u64(m, "inline_bytes", NULL, o->inline_bytes);
	rb_row_bool(m, "write_with_imm", NULL, o->imm);
	rb_row_bool(m, "event", NULL, o->event);
	rb_row_bool(m, "verify", NULL, o->verify);
	/* How ranks are defined; each row says whether it was exact or from the histogram. */
	rb_row_str(m, "percentile_method", NULL, "nearest rank");
}

/* Before the barrier: the last size's final marker must not look like this size's first. */
static int prepare(void *t, const struct rb_run *r, uint64_t size)
{
	struct lat *l = t;

	(void)r;
	return rb_buf_zero(&l->c->dst, 0, size * lat_nslots(&l->opt));
}

/* One measurement of the size; its wake-ups count towards the run's. */
static int measure(struct lat *l, bool client, uint64_t size, struct rb_pp_result *res)
{
	int ret = lat_pp_step(l, client, size, res);

	l->run.woke += l->step.woke;
	l->run.empty += l->step.empty;
	l->run.late += l->step.late;
	return ret;
}

/*
 * --load, after the idle measurement: the targets cleared again (a marker left from
 * it must not pass for this one's first), the load started and steady (client), a
 * barrier, so neither side's clock starts before the load runs, the measurement,
 * then the load's end: stopped, and its figures sent to the server, which holds them.
 */
static int loaded(struct lat *l, const struct rb_run *r, uint64_t size, uint64_t seq,
                  struct rb_pp_result *res, struct rb_stepend *fig)
{
	int timeout_ms = (int)l->opt.timeout_s * 1000;
	/* The load settles within half of what either side's waits allow (the barrier's, a silent peer's). */
	uint64_t bound =
	    (uint64_t)(timeout_ms < l->o->timeout_ms ? timeout_ms : l->o->timeout_ms) / 2 * RB_NS_PER_MS;
	int ret = prepare(l, r, size);

	/* The idle pass's round trips are not this one's (a signal before it starts has none). */
	l->pp.measured = 0;
	if (!ret && r->client)
		ret = lat_load_start(l->load, bound);
	if (!ret)
		ret = rb_oob_barrier(r->oob, LOAD_BARRIER + seq);
	l->load_live = true;
	if (!ret)
		ret = measure(l, r->client, size, res);
	l->load_live = false;
	if (ret)
		return ret;
	/* The load's end: its figures both ways, the client's held by the server (load.c). */
	return lat_load_end(l->load, r->oob, (unsigned)((timeout_ms + l->o->timeout_ms + 999) / 1000), fig);
}

static int step(void *t, const struct rb_run *r, struct rb_step *s, struct rb_row *row)
{
	struct lat *l = t;
	struct rb_pp_result res, idle;
	struct rb_stepend fig;
	int ret;

	l->cur = s;
	if (!l->load) {
		ret = measure(l, r->client, s->size, &res);
		if (!ret)
			lat_row(row, l, s->size, &res, NULL, NULL, true);
	} else {
		ret = measure(l, r->client, s->size, &idle);
		if (!ret)
			ret = loaded(l, r, s->size, s->seq, &res, &fig);
		if (!ret)
			lat_row(row, l, s->size, &res, &idle, &fig, true);
	}
	l->cur = NULL;
	return ret;
}

/* SIGINT mid-size (or --run-infinitely's end): the client's round trips so far. */
static bool partial(void *t, const struct rb_run *r, const struct rb_step *s, struct rb_row *row)
{
	struct lat *l = t;
	struct rb_pp_result res;

	if (!r->client || !rb_pp_partial(&l->pp, &res))
		return false;
	lat_row(row, l, s->size, &res, NULL, NULL, true);
	return true;
}

/* --histogram: the client's buckets under their row; --account: the client's account. */
static void after_row(void *t, const struct rb_run *r)
{
	struct lat *l = t;

	if (l->opt.histogram && r->client)
		rb_pp_print_histogram(&l->pp, stdout, 2);
	if (l->acct && r->client)
		lat_acct_print(l->acct, stdout);
}

static void print_wakeups(const struct wakeups *w)
{
	printf(" Wake-ups       : %llu on this side, %llu empty (no completion), %llu late (a completion "
	       "unannounced until a %d ms sleep ran out)\n",
	       (unsigned long long)w->woke, (unsigned long long)w->empty, (unsigned long long)w->late, HK_MS);
	fflush(stdout);
}

/* --all-pairs: every device -d or --hca names is a rail. */
/* The run's wake-ups close the table in --event mode, whether the sweep completed or not. */
static bool teardown(void *t, const struct rb_run *r)
{
	struct lat *l = t;

	(void)r;
	if (l->text && l->opt.event)
		print_wakeups(&l->run);
	rb_pp_free(&l->pp);
	if (l->acct)
		lat_acct_free(l->acct);
	l->acct = NULL;
	lat_load_free(l->load);
	l->load = NULL;
	rb_verbs_teardown(&l->v);
	return true;
}

static void defaults(void *t)
{
	struct lat *l = t;

	lat_opts_default(&l->opt);
	rb_verbs_default(&l->v);
}

static const struct rb_tool rc_write_lat_tool = {
    .id = {.name = TOOL, .usage = USAGE},
    .cli = {.intervals = true,
            .defaults = defaults,
            .opt_tables = opt_tables,
            .check = check,
            .sizes_at = offsetof(struct lat, opt.sizes),
            .len_at = offsetof(struct lat, opt.len)},
    .link = {.hello = hello,
             .setup = setup,
             .mem_need = mem_need,
             .connect = connect_qp,
             .verbs = true,
             .round_trip = true,
             .victim = "rc_write_lat",
             .verbs_at = offsetof(struct lat, v),
             .teardown = teardown},
    .measure = {.prepare = prepare, .step = step, .partial = partial},
    .out = {.header = header, .meta = meta, .columns = lat_columns, .after_row = after_row},
};

int main(int argc, char **argv)
{
	static struct lat l;

	return rb_main(&rc_write_lat_tool, &l, argc, argv);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rc_write_bw: RDMA WRITE bandwidth over RC QPs between two nodes, run the way
 * ib_write_bw is run: a server with no host argument, a client naming it. This
 * file is the tool's face (options, header, rows); engine.h does the measuring.
 */
#include "bw_opts.h"
#include "engine.h"
#include "msg.h"
#include "base/base.h"
#include "run/run.h"
#include "rb_config.h"
#include "report/report.h"
#include "fabric/fabric.h"
#include "measure/measure.h"

#include <errno.h>
#include <stddef.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define TOOL  "rc_write_bw"
#define USAGE TOOL " [options]            (server)\n       " TOOL " [options] SERVER     (client)"

/*
 * Receives posted per QP with WRITE_WITH_IMM: -r, else the TX depth and a refill's
 * worth more, so that a sender meets an RNR NAK only when the receiver falls that
 * far behind (an ACK does not wait for the repost).
 */
static uint32_t rx_depth(const struct bw_opts *o)
{
	return o->rx_depth ? o->rx_depth : bw_rx_depth(o->tx_depth);
}

static unsigned verify_slots(const struct bw_opts *o)
{
	uint64_t max = rb_sizes_max(&o->sizes);
	uint64_t slots = VERIFY_WINDOW_BYTES / max;

	if (!o->verify)
		return 1;
	if (slots > o->tx_depth)
		slots = o->tx_depth;
	return slots ? (unsigned)slots : 1;
}

static void hello_params(const struct bw_opts *o, struct rb_hello *h)
{
	rb_hello_sweep(h, TOOL, &o->sizes, o->len.iters, o->len.duration_s);
	rb_hello_add(h, "qps", "%u", o->qps);
	rb_hello_add(h, "bidirectional", "%d", o->bidir);
	rb_hello_add(h, "reversed", "%d", o->reversed);
	rb_hello_add(h, "run_infinitely", "%d", o->len.forever);
	/* Each side's DONE carries its peak, or none with -N. */
	rb_hello_add(h, "no_peak", "%d", o->no_peak);
	rb_hello_add(h, "write_with_imm", "%d", o->imm);
	/* The receiver sizes its receive queues from the sender's depth. */
	if (o->imm) {
		rb_hello_add(h, "tx_depth", "%u", o->tx_depth);
		rb_hello_add(h, "rx_depth", "%u", rx_depth(o));
	}
	rb_hello_add(h, "verify", "%d", o->verify);
	rb_hello_add(h, "verify_slots", "%u", verify_slots(o));
}

/*
 * Send completions that can be pending at once: per QP, the planner's bound at the
 * lowest CQ moderation of the sweep (sendq.h), times the QPs. rb_conn_setup sizes
 * the send CQ to this and refuses it, with the numbers, past the device's max_cqe.
 */
static uint32_t send_cq_entries(const struct bw_opts *o)
{
	uint32_t sig = bw_sig_every(o->cq_mod, rb_sizes_max(&o->sizes));
	uint64_t n = (uint64_t)o->qps * rb_sendq_max_signaled(bw_sq_depth(o->tx_depth, o->len.iters), sig);

	return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

/* WRITE_WITH_IMM: every posted receive of every QP can complete before it is polled. */
static uint32_t recv_cq_entries(const struct bw_opts *o)
{
	uint64_t n = (uint64_t)o->qps * rx_depth(o);

	return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

static void print_header(const struct bw_opts *o, const struct rb_conn *c, const struct rb_qp_opts *qo,
                         bool client, const char *peer)
{
	char sizes[256], list[48], api[160];

	printf("---------------------------------------------------------------------------------------\n");
	printf("                    RDMA_Write%s BW Test (rdmabench %s %s)\n", o->imm ? "_with_imm" : "",
	       TOOL, RB_VERSION);
	printf(" Role           : %s, peer %s\n",
	       o->bidir                ? (client ? "client" : "server")
	       : client != o->reversed ? (client ? "client (sends)" : "server (sends, --reversed)")
	                               : (client ? "client (receives, --reversed)" : "server (receives)"),
	       peer);
	rb_device_describe(&c->dev, stdout);
	printf(" Sizes          : %s\n", rb_sizes_fmt(&o->sizes, sizes, sizeof(sizes)));
	if (o->len.forever)
		printf(" Duration       : until SIGINT/SIGTERM\n");
	else if (o->len.duration_s > 0)
		printf(
		    " Duration       : %g s per size; in flight at most %g s of data at the step's rate so "
		    "far (%u MiB before its first completion, a message per QP at least)\n",
		    o->len.duration_s, (double)BW_INFLIGHT_NS / 1e9, BW_INFLIGHT_FIRST_MIB);
	else
		printf(" Iterations     : %u per QP per size\n", o->len.iters);
	if (o->post_list)
		snprintf(list, sizeof(list), "%u", o->post_list);
	else
		snprintf(list, sizeof(list), "%u to %u KiB, 1 above", bw_post_list(0, o->tx_depth, 1),
		         BW_AUTO_LIST_BYTES / 1024);
	printf(" QPs            : %u  TX depth: %u  post list: %s  CQ moderation: %u  inline: %u B\n", o->qps,
	       o->tx_depth, list, o->cq_mod, o->inline_bytes);
	printf(" Mode           : %s", o->bidir ? "bidirectional" : "unidirectional");
	if (o->imm)
		printf(", WRITE_WITH_IMM, RX depth %u", rx_depth(o));
	printf("%s%s\n", o->verify ? ", verify (payload checked; not a speed run)" : "",
	       o->reg_per_iter ? ", source MR registered anew every -t messages per QP (timed in the step)"
	                       : "");
	if (client != o->reversed || o->bidir) /* the sending sides */
		printf(" Post API       : %s\n", bw_post_api(c, o->old_post, api, sizeof(api)));
	if (o->pace.rate > 0)
		printf(" Rate limit     : %g %s, bursts of %u message(s), paced in software\n", o->pace.rate,
		       o->pace.unit == RB_PACE_PPS     ? "messages/s"
		       : o->pace.unit == RB_PACE_MIBPS ? "MiB/s"
		                                       : "Gb/s",
		       o->pace.burst ? o->pace.burst : 1);
	rb_conn_describe(c, qo, stdout);
	printf("---------------------------------------------------------------------------------------\n");
	fflush(stdout);
}

/* After the driver's system, role and peer fields. */
static void build_meta(struct rb_row *m, const struct bw_opts *o, const struct rb_verbs *v, bool sending)
{
	char sizes[512];

	rb_verbs_meta(v, m);
	rb_row_str(m, "perftest_test", NULL, "RDMA_Write_BW_Test"); /* --out_json's test_info.test */
	rb_row_str(m, "sizes", NULL, rb_sizes_fmt(&o->sizes, sizes, sizeof(sizes)));
	rb_row_u64(m, "iterations", NULL, o->len.iters);
	rb_row_dbl(m, "duration_s", NULL, 3, o->len.duration_s > 0 ? o->len.duration_s : NAN);
	rb_row_bool(m, "run_infinitely", NULL, o->len.forever);
	rb_row_bool(m, "peak", NULL, !o->no_peak);
	rb_row_u64(m, "qps", NULL, o->qps);
	rb_row_u64(m, "tx_depth", NULL, o->tx_depth);
	if (o->imm)
		rb_row_u64(m, "rx_depth", NULL, rx_depth(o));
	rb_row_u64(m, "post_list", NULL, o->post_list);
	rb_row_u64(m, "cq_mod", NULL, o->cq_mod);
	rb_row_u64(m, "inline_bytes", NULL, o->inline_bytes);
	if (sending) /* how this side posts its WRITEs */
		rb_row_str(m, "post_api", NULL, bw_post_api_key(&v->conn));
	rb_row_bool(m, "bidirectional", NULL, o->bidir);
	rb_row_bool(m, "reversed", NULL, o->reversed);
	rb_row_bool(m, "write_with_imm", NULL, o->imm);
	rb_row_bool(m, "verify", NULL, o->verify);
	rb_row_bool(m, "reg_per_iter", NULL, o->reg_per_iter);
	rb_row_bool(m, "mr_per_qp", NULL, o->mr_per_qp || o->verify);
}

/*
 * The rows' columns (rdmabench-documents(7)), declared once: the documents list them
 * in this order, with the library's between (columns below), and rows put them.
 */
enum {
	C_TOOL,
	C_OP,
	C_DIRECTION,
	C_DEVICE,
	C_SIZE,
	C_ITERS,
	C_QPS,
	C_TX_DEPTH,
	C_POST_LIST,
	C_CQ_MOD,
	C_INLINE,
	C_MTU,
	C_VERIFY,
	C_MSGS,
	C_BYTES,
	C_ELAPSED,
	C_BW_PEAK,
	C_BW_AVG,
	C_MSG_RATE,
	/* the wire's columns */
	C_CPU,
	C_REGS,
	C_REG_P50,
	C_REG_P99,
	C_REG_MAX,
	C_DEREG_P50,
	C_DEREG_P99,
	C_BYTES_TX,
	C_BW_PEAK_TX,
	C_BW_AVG_TX,
	C_MSG_RATE_TX,
	C_BYTES_RX,
	C_BW_PEAK_RX,
	C_BW_AVG_RX,
	C_MSG_RATE_RX,
	/* the threads' columns */
	C_BY,
	C_N
};
static const struct rb_col cols[C_N] = {
    [C_TOOL] = {"tool", NULL, NULL, 0},
    [C_OP] = {"op", NULL, NULL, 0},
    [C_DIRECTION] = {"direction", NULL, NULL, 0},
    [C_DEVICE] = {"device", NULL, NULL, 0},
    [C_SIZE] = {"size_bytes", "#bytes", NULL, 0},
    [C_ITERS] = {"iterations", NULL, NULL, 0}, /* per QP and direction, as -n counts */
    [C_QPS] = {"qps", NULL, NULL, 0},
    [C_TX_DEPTH] = {"tx_depth", NULL, NULL, 0},
    [C_POST_LIST] = {"post_list", NULL, NULL, 0},
    [C_CQ_MOD] = {"cq_mod", NULL, NULL, 0},
    [C_INLINE] = {"inline_bytes", NULL, NULL, 0},
    [C_MTU] = {"mtu_bytes", NULL, NULL, 0},
    [C_VERIFY] = {"verify", NULL, NULL, 0},
    /* perftest's #iterations: every QP's messages (-q 4 -n 50 is 200), both directions' with -b */
    [C_MSGS] = {"msgs", "#iterations", NULL, 0},
    [C_BYTES] = {"bytes", NULL, NULL, 0},
    [C_ELAPSED] = {"elapsed_s", NULL, NULL, 6},
    [C_BW_PEAK] = {"bw_peak_gbps", "BW peak", "Gb/s", 3},
    [C_BW_AVG] = {"bw_avg_gbps", "BW average", "Gb/s", 3},
    [C_MSG_RATE] = {"msg_rate_mpps", "MsgRate", "Mpps", 6},
    [C_CPU] = {"cpu_util_pct", "CPU util", "%", 1},
    [C_REGS] = {"registrations", NULL, NULL, 0},
    [C_REG_P50] = {"reg_us_p50", "Reg p50", "us", 1},
    [C_REG_P99] = {"reg_us_p99", "Reg p99", "us", 1},
    [C_REG_MAX] = {"reg_us_max", NULL, NULL, 1},
    [C_DEREG_P50] = {"dereg_us_p50", "Dereg p50", "us", 1},
    [C_DEREG_P99] = {"dereg_us_p99", NULL, NULL, 1},
    [C_BYTES_TX] = {"bytes_tx", NULL, NULL, 0},
    [C_BW_PEAK_TX] = {"bw_peak_tx_gbps", NULL, NULL, 3},
    [C_BW_AVG_TX] = {"bw_avg_tx_gbps", "BW TX", "Gb/s", 3},
    [C_MSG_RATE_TX] = {"msg_rate_tx_mpps", NULL, NULL, 6},
    [C_BYTES_RX] = {"bytes_rx", NULL, NULL, 0},
    [C_BW_PEAK_RX] = {"bw_peak_rx_gbps", NULL, NULL, 3},
    [C_BW_AVG_RX] = {"bw_avg_rx_gbps", "BW RX", "Gb/s", 3},
    [C_MSG_RATE_RX] = {"msg_rate_rx_mpps", NULL, NULL, 6},
    [C_BY] = {"measured_by", NULL, NULL, 0},
};
static const struct rb_cols columns[] = {RB_COLS_SLICE(cols, C_TOOL, C_CPU), RB_COLS(rb_wire_cols),
                                         RB_COLS_SLICE(cols, C_CPU, C_BY),   RB_COLS(rb_thread_cols),
                                         RB_COLS_SLICE(cols, C_BY, C_N),     RB_COLS(rb_counters_cols),
                                         RB_COLS(rb_repeat_bw_cols),         {0}};

/* --reg-per-iter: how long this side's registrations and deregistrations took. */
static void reg_fields(struct rb_row *r, const struct bw_result *res)
{
	bool have = res->reg.count > 0;

	rb_row_put_u64(r, &cols[C_REGS], res->reg.count);
	rb_row_put_dbl(r, &cols[C_REG_P50], have ? res->reg.p50 : NAN);
	rb_row_put_dbl(r, &cols[C_REG_P99], have ? res->reg.p99 : NAN);
	rb_row_put_dbl(r, &cols[C_REG_MAX], have ? res->reg.max : NAN);
	rb_row_put_dbl(r, &cols[C_DEREG_P50], have ? res->dereg.p50 : NAN);
	rb_row_put_dbl(r, &cols[C_DEREG_P99], have ? res->dereg.p99 : NAN);
}

/* --report-both: one direction's figures, measured on its sender's clock. */
static void direction_fields(struct rb_row *r, bool tx, const struct rb_stepend *d)
{
	const struct rb_col *c = &cols[tx ? C_BYTES_TX : C_BYTES_RX]; /* bytes, peak, average, rate */

	rb_row_put_u64(r, &c[0], d->bytes);
	rb_row_put_dbl(r, &c[1], d->peak_gbps);
	rb_row_put_dbl(r, &c[2], rb_gbps(d->bytes, d->elapsed_ns));
	rb_row_put_dbl(r, &c[3], rb_mpps(d->msgs, d->elapsed_ns));
}

/* A size's row, or one interval's (--interval). */
/*
 * --threads: how many posted, the slowest and fastest thread's Gb/s (its sends, from
 * the step's first post to its own last completion) and, where it fits a field, each
 * thread's in thread order.
 */
/*
 * by: whose sends the figures are. A WRITE lands without telling its target, so a side
 * that only receives reports its peer's, held to the port's rate and its own window
 * (stepend.h): "peer"; "self" for a sender's own, "both" with -b.
 */
static void build_row(struct rb_row *r, const struct bw_opts *o, const struct rb_conn *c, uint64_t size,
                      const struct bw_result *res, const char *by)
{
	double secs = (double)res->elapsed_ns / 1e9;
	uint64_t per_qp_msgs = res->msgs / (o->bidir ? 2u * o->qps : o->qps);

	memset(r, 0, sizeof(*r));
	rb_row_put_str(r, &cols[C_TOOL], TOOL);
	rb_row_put_str(r, &cols[C_OP], o->imm ? "write_with_imm" : "write");
	rb_row_put_str(r, &cols[C_DIRECTION], o->bidir ? "bidirectional" : "unidirectional");
	rb_row_put_str(r, &cols[C_DEVICE], c->dev.name);
	rb_row_put_u64(r, &cols[C_SIZE], size);
	rb_row_put_u64(r, &cols[C_MSGS], res->msgs); /* the table's second column, as perftest's */
	rb_row_put_u64(r, &cols[C_ITERS], per_qp_msgs);
	rb_row_put_u64(r, &cols[C_QPS], o->qps);
	rb_row_put_u64(r, &cols[C_TX_DEPTH], o->tx_depth);
	rb_row_put_u64(r, &cols[C_POST_LIST], res->post_list);
	rb_row_put_u64(r, &cols[C_CQ_MOD], res->cq_mod);
	rb_row_put_u64(r, &cols[C_INLINE], size <= o->inline_bytes ? o->inline_bytes : 0);
	rb_row_put_u64(r, &cols[C_MTU], rb_mtu_bytes(rb_conn_path_mtu(c)));
	rb_row_put_bool(r, &cols[C_VERIFY], o->verify);
	rb_row_put_u64(r, &cols[C_BYTES], res->bytes);
	rb_row_put_dbl(r, &cols[C_ELAPSED], secs);
	rb_row_put_dbl(r, &cols[C_BW_PEAK], res->peak_gbps);
	rb_row_put_dbl(r, &cols[C_BW_AVG], rb_gbps(res->bytes, res->elapsed_ns));
	rb_row_put_dbl(r, &cols[C_MSG_RATE], rb_mpps(res->msgs, res->elapsed_ns));
	rb_conn_wire_row(c, r, rb_gbps(res->bytes, res->elapsed_ns), size, o->imm, o->bidir ? 2 : 1);
	rb_row_put_dbl(r, &cols[C_CPU], o->cpu_util ? res->cpu_pct : NAN);
	if (!o->cpu_util)
		rb_row_untable(r, &cols[C_CPU]);
	rb_row_threads(r, res->threads < BW_MAX_THREADS ? res->threads : BW_MAX_THREADS, res->thread_msgs,
	               res->thread_ns, size);
	if (o->reg_per_iter)
		reg_fields(r, res);
	if (o->report_both && o->bidir) {
		direction_fields(r, true, &res->own);
		direction_fields(r, false, &res->peer);
	}
	rb_row_put_str(r, &cols[C_BY], by);
}

/* ---------------------------------------------------------------- the tool */

struct bw_tool {
	struct bw_opts o;
	struct rb_verbs v;
	struct bw_engine *eng;
	bool sending, receiving; /* this side's roles */
	struct rb_step *step;    /* the step in progress: where --interval's rows go */
};

/* Bytes of source (sender) and target (receiver) per QP: one slot per message in flight. */
static size_t region_per_qp(const struct bw_opts *o)
{
	return (size_t)rb_sizes_max(&o->sizes) * verify_slots(o);
}

static unsigned opt_tables(void *t, struct rb_opt_table *out, unsigned max)
{
	struct bw_tool *bt = t;

	(void)max;
	out[0] = rb_size_opt_table(&bt->o.size, "64K");
	out[1] = rb_runlen_opt_table(&bt->o.len, &bw_runlen_help);
	out[2] = bw_opt_table(&bt->o);
	out[3] = rb_pace_opt_table(&bt->o.pace);
	return 4 + rb_verbs_opt_tables(&bt->v, out + 4);
}

static int check(void *t, struct rb_run *r)
{
	struct bw_tool *bt = t;

	bt->sending = r->client != bt->o.reversed || bt->o.bidir;
	bt->receiving = r->client == bt->o.reversed || bt->o.bidir;
	if (bw_opts_finish(&bt->o, r->client) || rb_verbs_check(&bt->v, bt->sending ? bt->o.inline_bytes : 0))
		return -EINVAL;
	if (bt->o.reg_per_iter && bt->o.verify) {
		rb_usage_err("--reg-per-iter measures registration; --verify checks payloads in windows of "
		             "its own: give one");
		return -EINVAL;
	}
	/* The client decides: a server takes -b from it (and writes no interval rows). */
	if (r->client && bt->o.report_both && !bt->o.bidir) {
		rb_usage_err("--report-both without -b: it reports each direction of a bidirectional run");
		return -EINVAL;
	}
	/* The client asks for the rows; the sender measures them, and with --reversed that is the server. */
	if (bt->o.reversed && ((r->client && r->out_opts.interval_s > 0) || bt->o.len.forever)) {
		rb_usage_err("%s with --reversed: the server sends, and the client that asks for rows "
		             "within a size would only receive",
		             bt->o.len.forever ? "--run-infinitely" : "--interval");
		return -EINVAL;
	}
	/* Mid-size, a side knows only its own sends: the peer's come in its DONE. */
	if (bt->o.bidir && ((r->client && r->out_opts.interval_s > 0) || bt->o.len.forever)) {
		rb_usage_err("%s with -b: a bidirectional run knows the peer's sends only when a size ends",
		             bt->o.len.forever ? "--run-infinitely" : "--interval");
		return -EINVAL;
	}
	return 0;
}

static void hello(void *t, struct rb_hello *h)
{
	hello_params(&((struct bw_tool *)t)->o, h);
}

/* What setup asks of the verbs layer for these options. */
static struct rb_conn_cfg conn_cfg(const struct bw_tool *bt)
{
	const struct bw_opts *o = &bt->o;
	bool sending = bt->sending, receiving = bt->receiving;
	size_t region = region_per_qp(o);

	return (struct rb_conn_cfg){
	    .nqps = o->qps,
	    /* A side that only receives posts no send WR. */
	    .caps = {.send_wr = sending ? bw_sq_depth(o->tx_depth, o->len.iters) : 1,
	             .recv_wr = o->imm && receiving ? rx_depth(o) : 0,
	             .inline_bytes = o->inline_bytes,
	             .send_ops = sending && !o->old_post ? BW_SEND_OPS(o->imm) : 0},
	    .send_depth = sending ? o->tx_depth : 0,
	    .src_per_qp = sending ? region : 0,
	    .dst_per_qp = receiving ? region : 0,
	    /* One region for all QPs unless payloads are checked, or perftest's --mr_per_qp. */
	    .shared_buf = !o->verify && !o->mr_per_qp,
	    .dst_checked = o->verify && receiving,
	    .recv_cq = o->imm && receiving,
	    .send_cqe = sending ? send_cq_entries(o) : 1,
	    .recv_cqe = o->imm && receiving ? recv_cq_entries(o) : 0,
	    .send_cqs = sending ? o->threads : 1,
	};
}

static uint64_t mem_need(void *t)
{
	struct rb_conn_cfg cfg = conn_cfg(t);

	return rb_conn_cfg_bytes(&cfg);
}

static int setup(void *t, const struct rb_run *r)
{
	struct bw_tool *bt = t;
	struct rb_conn_cfg cfg = conn_cfg(bt);

	(void)r;
	return rb_verbs_setup(&bt->v, &cfg);
}

/* --interval: the client's sends over one interval, as a row of its own. */
static void interval_row(void *arg, const struct bw_interval *iv)
{
	struct bw_tool *bt = arg;
	struct bw_result res = {.msgs = iv->msgs,
	                        .bytes = iv->bytes,
	                        .elapsed_ns = iv->to_ns - iv->from_ns,
	                        .peak_gbps = NAN,
	                        .cpu_pct = NAN,
	                        .cq_mod = bw_sig_every(bt->o.cq_mod, bt->step->size),
	                        .post_list = bw_post_list(bt->o.post_list, bt->o.tx_depth, bt->step->size),
	                        .threads = bt->o.threads};
	struct rb_row row;

	build_row(&row, &bt->o, &bt->v.conn, bt->step->size, &res, "self");
	rb_step_row(bt->step, &row, (double)iv->from_ns / 1e9, (double)iv->to_ns / 1e9);
}

static int connect_qps(void *t, const struct rb_run *r)
{
	struct bw_tool *bt = t;
	const struct bw_opts *o = &bt->o;
	struct bw_cfg ecfg = {
	    .iters = o->len.iters,
	    .duration_s = o->len.duration_s,
	    .tx_depth = o->tx_depth,
	    .post_list = o->post_list,
	    .cq_mod = o->cq_mod,
	    .inline_bytes = o->inline_bytes,
	    .rx_depth = rx_depth(o),
	    .sending = bt->sending,
	    .receiving = bt->receiving,
	    .imm = o->imm,
	    .verify = o->verify,
	    .reg_per_iter = o->reg_per_iter,
	    .slots = verify_slots(o),
	    .timeout_s = o->timeout_s,
	    .forever = o->len.forever,
	    .no_peak = o->no_peak,
	    .threads = o->threads,
	    .pace = o->pace,
	    /* The client measures; its interval rows count its sends. */
	    .interval_ns = r->client ? (uint64_t)(r->out_opts.interval_s * 1e9) : 0,
	    .interval = interval_row,
	    .arg = bt,
	};
	int ret = rb_verbs_connect(&bt->v, r, bt->sending ? region_per_qp(o) : 0);

	if (ret)
		return ret;
	bt->eng = bw_engine_new(&bt->v.conn, r->oob, &ecfg);
	return bt->eng ? 0 : -ENOMEM;
}

static void header(void *t, const struct rb_run *r)
{
	struct bw_tool *bt = t;

	print_header(&bt->o, &bt->v.conn, &bt->v.qp, r->client, r->oob->peer);
}

static void meta(void *t, const struct rb_run *r, struct rb_row *m)
{
	struct bw_tool *bt = t;

	(void)r;
	build_meta(m, &bt->o, &bt->v, bt->sending);
}

static int step(void *t, const struct rb_run *r, struct rb_step *s, struct rb_row *row)
{
	struct bw_tool *bt = t;
	struct bw_result res;
	int ret;

	(void)r;
	bt->step = s;
	ret = bw_engine_step(bt->eng, s->size, &res);
	bt->step = NULL;
	if (!ret)
		build_row(row, &bt->o, &bt->v.conn, s->size, &res,
		          bt->o.bidir   ? "both"
		          : bt->sending ? "self"
		                        : "peer");
	return ret;
}

/* SIGINT mid-size (or --run-infinitely's end): the sender's sends so far. */
static bool partial(void *t, const struct rb_run *r, const struct rb_step *s, struct rb_row *row)
{
	struct bw_tool *bt = t;
	struct bw_result res;

	/* -b: the peer's sends are known only from its DONE, when the size ends. */
	if (!bt->sending || bt->o.bidir || !bt->eng || !bw_engine_partial(bt->eng, &res))
		return false;
	build_row(row, &bt->o, &bt->v.conn, s->size, &res, "self");
	return true;
}

/* --all-pairs: every device -d or --hca names is a rail. */
static bool teardown(void *t, const struct rb_run *r)
{
	struct bw_tool *bt = t;

	(void)r;
	if (bw_engine_abandoned(bt->eng))
		return false; /* its QPs and CQs stay with the thread left behind */
	bw_engine_free(bt->eng);
	bt->eng = NULL;
	rb_verbs_teardown(&bt->v);
	return true;
}

static void defaults(void *t)
{
	struct bw_tool *bt = t;

	bw_opts_default(&bt->o);
	rb_verbs_default(&bt->v);
}

static const struct rb_tool rc_write_bw_tool = {
    .id = {.name = TOOL, .msgs = bw_msgs, .nmsgs = BW_NMSGS, .usage = USAGE},
    .cli = {.intervals = true,

            .defaults = defaults,
            .opt_tables = opt_tables,
            .check = check,
            .sizes_at = offsetof(struct bw_tool, o.sizes),
            .len_at = offsetof(struct bw_tool, o.len)},
    .link = {.hello = hello,
             .setup = setup,
             .mem_need = mem_need,
             .connect = connect_qps,
             .verbs = true,
             .verbs_at = offsetof(struct bw_tool, v),
             .victim = "rc_write_lat",
             .teardown = teardown},
    .measure = {.partial = partial, .step = step},
    /* ib_write_bw's table: MB/sec (MiB/s) unless --report_gbits or --units. */
    .out = {.columns = columns, .header = header, .meta = meta, .units = RB_UNITS_MBSEC},
};

int main(int argc, char **argv)
{
	static struct bw_tool bt;

	return rb_main(&rc_write_bw_tool, &bt, argc, argv);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* fifo_pingpong's output: the header, and the rows of a size or of an interval. */
#include "output.h"
#include "account.h"

#include "measure/measure.h"
#include "rb_config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const char *ar_name(const struct fp *f)
{
	return f->ar ? "on" : "off";
}

void fp_print_header(const struct fp *f, const struct rb_run *r)
{
	const struct fp_opts *o = &f->opt;
	char sizes[256], tc[32];

	printf("---------------------------------------------------------------------------------------\n");
	printf("                    CTS-FIFO %s Test (rdmabench %s %s)\n",
	       o->window == 1 ? "ping-pong latency" : "pipelined bandwidth", TOOL, RB_VERSION);
	printf(" Role           : %s, peer %s\n",
	       o->window == 1 ? (r->client ? "client (measures)" : "server (echoes)")
	                      : (r->client ? "client (sends)" : "server (receives, posts CTS)"),
	       r->oob->peer);
	rb_device_describe(&f->c->dev, stdout);
	printf(" Sizes          : %s\n", rb_sizes_fmt(&o->sizes, sizes, sizeof(sizes)));
	if (o->len.duration_s > 0)
		printf(" Duration       : %g s per size\n", o->len.duration_s);
	else
		printf(" Iterations     : %u per %ssize%s\n", o->len.iters,
		       o->threads > 1 ? "channel per " : "", o->window == 1 ? " after the warm-up" : "");
	if (o->threads > 1)
		printf(
		    " Channels       : %u (--threads), each %u data QP(s) + a CTS QP, a send and a receive "
		    "CQ and a thread of its own\n",
		    o->threads, o->qps);
	printf(" Protocol       : window %u, %u data QP(s), split %s, adaptive routing %s (> %llu B), "
	       "%u request(s) per slot\n",
	       o->window, o->qps, o->split ? "on" : "off", ar_name(f), (unsigned long long)o->ar_threshold,
	       o->multi_recv);
	if (f->c->path_ctl.grh)
		snprintf(tc, sizeof(tc), "TC %u", f->c->path_ctl.tclass);
	else
		snprintf(tc, sizeof(tc), "no GRH: no TC");
	printf(" CTS            : FIFO of %u slot(s) x %u x %u B (the window, to a power of two), on its "
	       "own QP (%s)%s, one in %u signaled\n",
	       f->slots, o->multi_recv, FIFO_ELEM_BYTES, tc, o->cts_inline ? ", inline" : "", CTS_SIGNAL);
	printf(" Flush          : %s\n",
	       o->flush ? "1-byte RDMA READ on a loopback QP after each receive" : "off");
	if (o->verify)
		printf(" Verify         : every payload and received size checked by its receiver\n");
	printf(" NCCL env       :");
	for (unsigned i = 0; i < r->env.n; i++)
		printf(" %s", r->env.set[i]);
	printf("%s\n", r->env.n ? "" : " none applied");
	rb_conn_describe(f->c, &f->v.qp, stdout);
	printf("---------------------------------------------------------------------------------------\n");
}

/*
 * The rows' columns (rdmabench-documents(7)), declared once: both modes' rows have them
 * all in the documents, in this order, with the library's between (fp_columns).
 */
enum {
	C_TOOL,
	C_MODE,
	C_DEVICE,
	C_SIZE,
	C_WINDOW,
	C_QPS,
	C_SPLIT,
	C_AR,
	C_MULTI_RECV,
	C_FLUSH,
	C_VERIFY,
	C_ITERS,
	C_WARMUP,
	C_METHOD,
	/* the latency's columns */
	C_ELAPSED,
	C_TPS,
	C_MSGS,
	C_BYTES,
	C_BW_AVG,
	C_MSG_RATE,
	/* the wire's columns */
	C_CTS_WAIT,
	C_POST_CQE,
	/* --account's (account.h): per segment p50, p99 and mean, then the closure */
	C_ACCT_MSGS,
	C_ACCT_CLOCK_ERR,
	C_ACCT_SEG,
	C_ACCT_SUM = C_ACCT_SEG + 3 * SEG_N,
	C_ACCT_UNEXPLAINED,
	C_ACCT_LOOP, /* pipelined: the credit loop's p50 and p99 */
	C_ACCT_LOOP_P99,
	/* the threads' columns */
	C_N
};
static const struct rb_col cols[C_N] = {
    [C_TOOL] = {"tool", NULL, NULL, 0},
    [C_MODE] = {"mode", NULL, NULL, 0},
    [C_DEVICE] = {"device", NULL, NULL, 0},
    [C_SIZE] = {"size_bytes", "#bytes", NULL, 0},
    [C_WINDOW] = {"window", NULL, NULL, 0},
    [C_QPS] = {"qps", NULL, NULL, 0},
    [C_SPLIT] = {"split", NULL, NULL, 0},
    [C_AR] = {"adaptive_routing", NULL, NULL, 0},
    [C_MULTI_RECV] = {"multi_recv", NULL, NULL, 0},
    [C_FLUSH] = {"flush", NULL, NULL, 0},
    [C_VERIFY] = {"verify", NULL, NULL, 0},
    [C_ITERS] = {"iterations", "#iterations", NULL, 0},
    [C_WARMUP] = {"warmup", NULL, NULL, 0},
    [C_METHOD] = {"percentile_method", NULL, NULL, 0},
    [C_ELAPSED] = {"elapsed_s", NULL, NULL, 9},
    [C_TPS] = {"tps", NULL, NULL, 1},
    [C_MSGS] = {"msgs", "#messages", NULL, 0},
    [C_BYTES] = {"bytes", NULL, NULL, 0},
    [C_BW_AVG] = {"bw_avg_gbps", "BW average", "Gb/s", 3},
    [C_MSG_RATE] = {"msg_rate_mpps", "MsgRate", "Mpps", 6},
    [C_CTS_WAIT] = {"cts_wait_pct", "CTS wait", "%", 3},
    [C_POST_CQE] = {"post_to_cqe_us", "post->CQE", "usec", 3},
    [C_ACCT_MSGS] = {"acct_messages", NULL, NULL, 0},
    [C_ACCT_CLOCK_ERR] = {"acct_clock_err_us", NULL, NULL, 3},
    [C_ACCT_SEG + 0] = {"acct_peer_busy_p50_us", NULL, NULL, 3},
    [C_ACCT_SEG + 1] = {"acct_peer_busy_p99_us", NULL, NULL, 3},
    [C_ACCT_SEG + 2] = {"acct_peer_busy_mean_us", NULL, NULL, 3},
    [C_ACCT_SEG + 3] = {"acct_cts_post_p50_us", NULL, NULL, 3},
    [C_ACCT_SEG + 4] = {"acct_cts_post_p99_us", NULL, NULL, 3},
    [C_ACCT_SEG + 5] = {"acct_cts_post_mean_us", NULL, NULL, 3},
    [C_ACCT_SEG + 6] = {"acct_cts_flight_p50_us", NULL, NULL, 3},
    [C_ACCT_SEG + 7] = {"acct_cts_flight_p99_us", NULL, NULL, 3},
    [C_ACCT_SEG + 8] = {"acct_cts_flight_mean_us", NULL, NULL, 3},
    [C_ACCT_SEG + 9] = {"acct_sender_post_p50_us", NULL, NULL, 3},
    [C_ACCT_SEG + 10] = {"acct_sender_post_p99_us", NULL, NULL, 3},
    [C_ACCT_SEG + 11] = {"acct_sender_post_mean_us", NULL, NULL, 3},
    [C_ACCT_SEG + 12] = {"acct_data_flight_p50_us", NULL, NULL, 3},
    [C_ACCT_SEG + 13] = {"acct_data_flight_p99_us", NULL, NULL, 3},
    [C_ACCT_SEG + 14] = {"acct_data_flight_mean_us", NULL, NULL, 3},
    [C_ACCT_SEG + 15] = {"acct_rx_completion_p50_us", NULL, NULL, 3},
    [C_ACCT_SEG + 16] = {"acct_rx_completion_p99_us", NULL, NULL, 3},
    [C_ACCT_SEG + 17] = {"acct_rx_completion_mean_us", NULL, NULL, 3},
    [C_ACCT_SEG + 18] = {"acct_sender_posting_p50_us", NULL, NULL, 3},
    [C_ACCT_SEG + 19] = {"acct_sender_posting_p99_us", NULL, NULL, 3},
    [C_ACCT_SEG + 20] = {"acct_sender_posting_mean_us", NULL, NULL, 3},
    [C_ACCT_SEG + 21] = {"acct_sender_busy_p50_us", NULL, NULL, 3},
    [C_ACCT_SEG + 22] = {"acct_sender_busy_p99_us", NULL, NULL, 3},
    [C_ACCT_SEG + 23] = {"acct_sender_busy_mean_us", NULL, NULL, 3},
    [C_ACCT_SUM] = {"acct_sum_of_means_us", NULL, NULL, 3},
    [C_ACCT_UNEXPLAINED] = {"acct_unexplained_us", NULL, NULL, 3},
    [C_ACCT_LOOP] = {"acct_loop_p50_us", NULL, NULL, 3},
    [C_ACCT_LOOP_P99] = {"acct_loop_p99_us", NULL, NULL, 3},
};
const struct rb_cols fp_columns[] = {RB_COLS_SLICE(cols, C_TOOL, C_ELAPSED),
                                     RB_COLS(rb_lat_cols),
                                     RB_COLS_SLICE(cols, C_ELAPSED, C_CTS_WAIT),
                                     RB_COLS(rb_wire_cols),
                                     RB_COLS_SLICE(cols, C_CTS_WAIT, C_N),
                                     RB_COLS(rb_thread_cols),
                                     RB_COLS(rb_counters_cols),
                                     RB_COLS(rb_repeat_bw_cols),
                                     RB_COLS(rb_repeat_lat_cols),
                                     {0}};

static void common_fields(struct rb_row *r, const struct fp *f, uint64_t size)
{
	rb_row_put_str(r, &cols[C_TOOL], TOOL);
	rb_row_put_str(r, &cols[C_MODE], f->opt.window == 1 ? "ping_pong" : "pipelined");
	rb_row_put_str(r, &cols[C_DEVICE], f->c->dev.name);
	rb_row_put_u64(r, &cols[C_SIZE], size);
	rb_row_put_u64(r, &cols[C_WINDOW], f->opt.window);
	rb_row_put_u64(r, &cols[C_QPS], f->opt.qps);
	rb_row_put_bool(r, &cols[C_SPLIT], f->opt.split);
	rb_row_put_bool(r, &cols[C_AR], f->ar);
	rb_row_put_u64(r, &cols[C_MULTI_RECV], f->opt.multi_recv);
	rb_row_put_bool(r, &cols[C_FLUSH], f->opt.flush);
	rb_row_put_bool(r, &cols[C_VERIFY], f->opt.verify);
}

/* --account's, the client's size row only: a segment not this mode's is left empty. */
static void acct_fields(struct rb_row *r, const struct fp *f)
{
	const struct fp_acct_result *a = f->acct ? &f->acct->res : NULL;

	if (!a || !a->valid)
		return;
	rb_row_put_u64(r, &cols[C_ACCT_MSGS], a->messages);
	rb_row_put_dbl(r, &cols[C_ACCT_CLOCK_ERR], a->clock_err_us);
	for (unsigned s = 0; s < SEG_N; s++) {
		if (isnan(a->mean[s]))
			continue;
		rb_row_put_dbl(r, &cols[C_ACCT_SEG + 3 * s], a->p50[s]);
		rb_row_put_dbl(r, &cols[C_ACCT_SEG + 3 * s + 1], a->p99[s]);
		rb_row_put_dbl(r, &cols[C_ACCT_SEG + 3 * s + 2], a->mean[s]);
	}
	rb_row_put_dbl(r, &cols[C_ACCT_SUM], a->sum_us);
	rb_row_put_dbl(r, &cols[C_ACCT_UNEXPLAINED], a->lat_mean_us - a->sum_us);
	if (a->pipelined) {
		rb_row_put_dbl(r, &cols[C_ACCT_LOOP], a->loop_p50);
		rb_row_put_dbl(r, &cols[C_ACCT_LOOP_P99], a->loop_p99);
	}
}

void fp_lat_row(struct rb_row *r, const struct fp *f, uint64_t size, const struct rb_pp_result *res)
{
	memset(r, 0, sizeof(*r));
	common_fields(r, f, size);
	rb_row_put_u64(r, &cols[C_ITERS], res->sum.count);
	rb_row_put_u64(r, &cols[C_WARMUP], res->sum.warmup);
	rb_row_put_str(r, &cols[C_METHOD], rb_pp_method(res));
	rb_lat_row(r, &res->sum);
	rb_row_put_dbl(r, &cols[C_ELAPSED], res->sum.elapsed_s);
	rb_row_put_dbl(r, &cols[C_TPS], rb_lat_tps(&res->sum));
	rb_row_put_u64(r, &rb_thread_cols[0], 1);
	/* An interval's stretch has no account of its own. */
	if (!f->step)
		acct_fields(r, f);
}

int fp_interval_row(void *arg, const struct rb_pp_result *res, double from_s, double to_s)
{
	struct fp *f = arg;
	struct rb_row row;

	fp_lat_row(&row, f, f->step->size, res);
	rb_step_row(f->step, &row, from_s, to_s);
	return 0;
}

void fp_bw_row(struct rb_row *r, const struct fp *f, uint64_t size, const struct fp_bw *b, bool client)
{
	memset(r, 0, sizeof(*r));
	common_fields(r, f, size);
	rb_row_put_u64(r, &cols[C_MSGS], b->msgs);
	rb_row_put_u64(r, &cols[C_BYTES], b->bytes);
	rb_row_put_dbl(r, &cols[C_ELAPSED], (double)b->elapsed_ns / 1e9);
	rb_row_put_dbl(r, &cols[C_BW_AVG], rb_gbps(b->bytes, b->elapsed_ns));
	rb_row_put_dbl(r, &cols[C_MSG_RATE], rb_mpps(b->msgs, b->elapsed_ns));
	/* Each message is WRITEs (the last with immediate data), as NCCL posts them. */
	rb_conn_wire_row(f->c, r, rb_gbps(b->bytes, b->elapsed_ns), size, true, 1);
	/* The sender's own: the receiver leaves them empty. */
	/* The CTS wait is a share of each channel's own sending time, over all channels. */
	rb_row_put_dbl(r, &cols[C_CTS_WAIT],
	               client && b->send_ns ? 100.0 * (double)b->cts_wait_ns / (double)b->send_ns : NAN);
	rb_row_put_dbl(r, &cols[C_POST_CQE],
	               client && b->msgs ? (double)b->post_cqe_ns / (double)b->msgs / 1e3 : NAN);
	/* Each channel's Gb/s, from the step's first post to its own last completion: the sender's. */
	if (client)
		rb_row_threads(r, b->threads, b->thread_msgs, b->thread_ns, f->opt.multi_recv * size);
	else
		rb_row_put_u64(r, &rb_thread_cols[0], b->threads);
	if (client)
		acct_fields(r, f);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* rc_write_lat's rows: their columns, declared once, and what puts them. */
#include "rows.h"

#include "load.h"

#include "measure/measure.h"
#include "base/base.h"

#include <math.h>
#include <string.h>

#define TOOL "rc_write_lat"

/*
 * The rows' columns (rdmabench-documents(7)), declared once: the documents list them
 * in this order, with the library's between (columns below), and rows put them.
 */
enum {
	C_TOOL,
	C_OP,
	C_ARRIVAL,
	C_DEVICE,
	C_SIZE,
	C_ITERS,
	C_WARMUP,
	C_INLINE,
	C_MTU,
	C_VERIFY,
	C_METHOD,
	/* the latency's columns */
	C_IDLE_P50,
	C_IDLE_P99,
	C_IDLE_P999,
	C_IDLE_MAX,
	C_IDLE_ITERS,
	C_LOAD_QPS,
	C_LOAD_SIZE,
	C_LOAD_WINDOW,
	C_LOAD_MSGS,
	C_LOAD_BW,
	C_ELAPSED,
	C_TPS,
	C_WOKE,
	C_EMPTY,
	C_LATE,
	/* --account's (account.h): the columns fifo_pingpong --account's of the same name are */
	C_ACCT_MSGS,
	C_ACCT_CLOCK_ERR,
	C_ACCT_SEG,
	C_ACCT_SUM = C_ACCT_SEG + 3 * LA_SEG_N,
	C_ACCT_UNEXPLAINED,
	C_N
};
static const struct rb_col cols[C_N] = {
    [C_TOOL] = {"tool", NULL, NULL, 0},
    [C_OP] = {"op", NULL, NULL, 0},
    [C_ARRIVAL] = {"arrival", NULL, NULL, 0},
    [C_DEVICE] = {"device", NULL, NULL, 0},
    [C_SIZE] = {"size_bytes", "#bytes", NULL, 0},
    [C_ITERS] = {"iterations", "#iterations", NULL, 0},
    [C_WARMUP] = {"warmup", NULL, NULL, 0},
    [C_INLINE] = {"inline_bytes", NULL, NULL, 0},
    [C_MTU] = {"mtu_bytes", NULL, NULL, 0},
    [C_VERIFY] = {"verify", NULL, NULL, 0},
    [C_METHOD] = {"percentile_method", NULL, NULL, 0},
    [C_IDLE_P50] = {"idle_lat_p50_us", NULL, NULL, 3},
    [C_IDLE_P99] = {"idle_lat_p99_us", "idle_99%", "usec", 3},
    [C_IDLE_P999] = {"idle_lat_p999_us", NULL, NULL, 3},
    [C_IDLE_MAX] = {"idle_lat_max_us", NULL, NULL, 3},
    [C_IDLE_ITERS] = {"idle_iterations", NULL, NULL, 0},
    [C_LOAD_QPS] = {"load_qps", NULL, NULL, 0},
    [C_LOAD_SIZE] = {"load_size_bytes", NULL, NULL, 0},
    [C_LOAD_WINDOW] = {"load_window", NULL, NULL, 0},
    [C_LOAD_MSGS] = {"load_msgs", NULL, NULL, 0},
    [C_LOAD_BW] = {"load_bw_gbps", "load", "Gb/s", 3},
    [C_ELAPSED] = {"elapsed_s", NULL, NULL, 6},
    [C_TPS] = {"tps", "trans/s", NULL, 1},
    [C_WOKE] = {"event_wakeups", NULL, NULL, 0},
    [C_EMPTY] = {"empty_wakeups", NULL, NULL, 0},
    [C_LATE] = {"late_wakeups", NULL, NULL, 0},
    [C_ACCT_MSGS] = {"acct_messages", NULL, NULL, 0},
    [C_ACCT_CLOCK_ERR] = {"acct_clock_err_us", NULL, NULL, 3},
    [C_ACCT_SEG + 0] = {"acct_sender_post_p50_us", NULL, NULL, 3},
    [C_ACCT_SEG + 1] = {"acct_sender_post_p99_us", NULL, NULL, 3},
    [C_ACCT_SEG + 2] = {"acct_sender_post_mean_us", NULL, NULL, 3},
    [C_ACCT_SEG + 3] = {"acct_data_flight_p50_us", NULL, NULL, 3},
    [C_ACCT_SEG + 4] = {"acct_data_flight_p99_us", NULL, NULL, 3},
    [C_ACCT_SEG + 5] = {"acct_data_flight_mean_us", NULL, NULL, 3},
    [C_ACCT_SUM] = {"acct_sum_of_means_us", NULL, NULL, 3},
    [C_ACCT_UNEXPLAINED] = {"acct_unexplained_us", NULL, NULL, 3},
};
const struct rb_cols lat_columns[] = {RB_COLS_SLICE(cols, C_TOOL, C_IDLE_P50),
                                      RB_COLS(rb_lat_cols),
                                      RB_COLS_SLICE(cols, C_IDLE_P50, C_N),
                                      RB_COLS(rb_counters_cols),
                                      RB_COLS(rb_repeat_lat_cols),
                                      {0}};

/* --load: the size's idle figures beside the loaded ones, and what the load moved meanwhile. */
static void load_cols(struct rb_row *r, const struct lat *l, const struct rb_pp_result *idle,
                      const struct rb_stepend *fig)
{
	const struct lat_load_spec *s = &l->opt.load;

	rb_row_put_dbl(r, &cols[C_IDLE_P50], idle->sum.p50);
	rb_row_put_dbl(r, &cols[C_IDLE_P99], idle->sum.p99);
	rb_row_put_dbl(r, &cols[C_IDLE_P999], idle->sum.p999);
	rb_row_put_dbl(r, &cols[C_IDLE_MAX], idle->sum.max);
	rb_row_put_u64(r, &cols[C_IDLE_ITERS], idle->sum.count);
	rb_row_put_u64(r, &cols[C_LOAD_QPS], s->qps);
	rb_row_put_u64(r, &cols[C_LOAD_SIZE], s->size);
	rb_row_put_u64(r, &cols[C_LOAD_WINDOW], lat_load_window(s->size, s->qps));
	rb_row_put_u64(r, &cols[C_LOAD_MSGS], fig->msgs);
	rb_row_put_dbl(r, &cols[C_LOAD_BW], rb_gbps(fig->bytes, fig->elapsed_ns));
}

/* --account's, the client's size row only. */
static void acct_cols(struct rb_row *r, const struct lat_acct_result *a)
{
	rb_row_put_u64(r, &cols[C_ACCT_MSGS], a->messages);
	rb_row_put_dbl(r, &cols[C_ACCT_CLOCK_ERR], a->clock_err_us);
	for (unsigned s = 0; s < LA_SEG_N; s++) {
		rb_row_put_dbl(r, &cols[C_ACCT_SEG + 3 * s], a->p50[s]);
		rb_row_put_dbl(r, &cols[C_ACCT_SEG + 3 * s + 1], a->p99[s]);
		rb_row_put_dbl(r, &cols[C_ACCT_SEG + 3 * s + 2], a->mean[s]);
	}
	rb_row_put_dbl(r, &cols[C_ACCT_SUM], a->sum_us);
	rb_row_put_dbl(r, &cols[C_ACCT_UNEXPLAINED], a->lat_mean_us - a->sum_us);
}

/* idle: --load's idle measurement of the size (NULL: none), fig the load's figures. */
void lat_row(struct rb_row *r, const struct lat *l, uint64_t size, const struct rb_pp_result *res,
             const struct rb_pp_result *idle, const struct rb_stepend *fig, bool total)
{
	const struct lat_opts *o = &l->opt;
	const struct rb_lat_summary *m = &res->sum;

	memset(r, 0, sizeof(*r));
	rb_row_put_str(r, &cols[C_TOOL], TOOL);
	rb_row_put_str(r, &cols[C_OP], o->imm ? "write_with_imm" : "write");
	rb_row_put_str(r, &cols[C_ARRIVAL], o->event ? "event" : o->imm ? "cq_poll" : "memory_poll");
	rb_row_put_str(r, &cols[C_DEVICE], l->c->dev.name);
	rb_row_put_u64(r, &cols[C_SIZE], size);
	rb_row_put_u64(r, &cols[C_ITERS], m->count);
	rb_row_put_u64(r, &cols[C_WARMUP], m->warmup);
	rb_row_put_u64(r, &cols[C_INLINE], size <= o->inline_bytes ? o->inline_bytes : 0);
	rb_row_put_u64(r, &cols[C_MTU], rb_mtu_bytes(rb_conn_path_mtu(l->c)));
	rb_row_put_bool(r, &cols[C_VERIFY], o->verify);
	rb_row_put_str(r, &cols[C_METHOD], rb_pp_method(res));
	rb_lat_row(r, m);
	if (idle)
		load_cols(r, l, idle, fig);
	rb_row_put_dbl(r, &cols[C_ELAPSED], m->elapsed_s);
	rb_row_put_dbl(r, &cols[C_TPS], rb_lat_tps(m));
	if (!(o->len.duration_s > 0))
		rb_row_untable(r, &cols[C_TPS]);
	/* This side's own wake-ups (each side sleeps on its own channel); an interval's own. */
	rb_row_put_u64(r, &cols[C_WOKE], l->step.woke - (total ? 0 : l->ivl_base.woke));
	rb_row_put_u64(r, &cols[C_EMPTY], l->step.empty - (total ? 0 : l->ivl_base.empty));
	rb_row_put_u64(r, &cols[C_LATE], l->step.late - (total ? 0 : l->ivl_base.late));
	if (total && l->acct && l->acct->res.valid)
		acct_cols(r, &l->acct->res);
}

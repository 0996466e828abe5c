/* SPDX-License-Identifier: BSD-2-Clause */
/* socket_bw's rows: their columns, declared once, and the rows of each kind of step. */
#include "rows.h"

#include "measure/measure.h"
#include "run/run.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define TOOL "socket_bw"

/*
 * The rows' columns (rdmabench-documents(7)), declared once: both modes' rows have them
 * all in the documents, in this order, with the library's between (columns below).
 */
enum {
	C_TOOL,
	C_MODE,
	C_IFACE,
	C_NSOCKS,
	C_NTHREADS,
	C_STREAMS,
	C_NODELAY,
	C_ZEROCOPY,
	C_VERIFY,
	C_STREAM,
	C_SIZE,
	C_ITERS,
	C_MSGS,
	C_BYTES,
	C_ELAPSED,
	C_BW_AVG,
	C_MSG_RATE,
	C_BYTES_TX,
	C_BW_TX,
	C_BYTES_RX,
	C_BW_RX,
	C_CPU_CLIENT,
	C_CPU_SERVER,
	C_METHOD,
	C_WARMUP,
	/* the latency's columns */
	C_TPS,
	C_RETRANS,
	C_RTT,
	C_CWND,
	C_CC,
	C_TCP_BY,
	C_N
};
static const struct rb_col cols[C_N] = {
    [C_TOOL] = {"tool", NULL, NULL, 0},
    [C_MODE] = {"mode", NULL, NULL, 0},
    [C_IFACE] = {"interface", NULL, NULL, 0},
    [C_NSOCKS] = {"nsocks", NULL, NULL, 0},
    [C_NTHREADS] = {"nthreads", NULL, NULL, 0},
    [C_STREAMS] = {"streams", NULL, NULL, 0},
    [C_NODELAY] = {"nodelay", NULL, NULL, 0},
    [C_ZEROCOPY] = {"zerocopy", NULL, NULL, 0},
    [C_VERIFY] = {"verify", NULL, NULL, 0},
    /* --streams: which stream a row is (1..N), or their sum; empty without it. */
    [C_STREAM] = {"stream", "stream", NULL, 0},
    [C_SIZE] = {"size_bytes", "#bytes", NULL, 0},
    [C_ITERS] = {"iterations", "#iterations", NULL, 0},
    [C_MSGS] = {"msgs", NULL, NULL, 0},
    [C_BYTES] = {"bytes", NULL, NULL, 0},
    [C_ELAPSED] = {"elapsed_s", NULL, NULL, 6},
    [C_BW_AVG] = {"bw_avg_gbps", "BW average", "Gb/s", 3},
    [C_MSG_RATE] = {"msg_rate_mpps", "MsgRate", "Mpps", 6}, /* the verbs tools' names for them */
    [C_CPU_CLIENT] = {"cpu_client_pct", "CPU client", "%", 1},
    [C_CPU_SERVER] = {"cpu_server_pct", "CPU server", "%", 1},
    /* -b: each direction on this side's clock (iperf3's TX and RX lines) */
    [C_BYTES_TX] = {"bytes_tx", NULL, NULL, 0},
    [C_BW_TX] = {"bw_avg_tx_gbps", "BW TX", "Gb/s", 3},
    [C_BYTES_RX] = {"bytes_rx", NULL, NULL, 0},
    [C_BW_RX] = {"bw_avg_rx_gbps", "BW RX", "Gb/s", 3},
    [C_METHOD] = {"percentile_method", NULL, NULL, 0},
    [C_WARMUP] = {"warmup", NULL, NULL, 0},
    [C_TPS] = {"tps", "trans/s", NULL, 1},
    [C_RETRANS] = {"tcp_retrans", NULL, NULL, 0},
    [C_RTT] = {"tcp_rtt_us", NULL, NULL, 1},
    [C_CWND] = {"tcp_cwnd", NULL, NULL, 0},
    [C_CC] = {"tcp_cc", NULL, NULL, 0},
    [C_TCP_BY] = {"tcp_reported_by", NULL, NULL, 0},
};
const struct rb_cols sock_columns[] = {RB_COLS_SLICE(cols, C_TOOL, C_TPS), RB_COLS(rb_lat_cols),
                                       RB_COLS_SLICE(cols, C_TPS, C_N),    RB_COLS(rb_repeat_bw_cols),
                                       RB_COLS(rb_repeat_lat_cols),        {0}};

/* stream: --streams' "1".."N" for a stream's row; NULL for the size's own (their sum). */
static void common_fields(struct rb_row *r, const struct sock_run *run, uint64_t size, const char *stream)
{
	const struct sock_opts *o = run->opt;

	memset(r, 0, sizeof(*r));
	rb_row_put_str(r, &cols[C_TOOL], TOOL);
	rb_row_put_str(r, &cols[C_MODE],
	               o->pingpong  ? "ping_pong"
	               : o->bidir   ? "bidirectional"
	               : o->reverse ? "reverse"
	                            : "unidirectional");
	rb_row_put_str(r, &cols[C_IFACE], run->nif.name);
	rb_row_put_u64(r, &cols[C_NSOCKS], o->nsocks);
	rb_row_put_u64(r, &cols[C_NTHREADS], o->nthreads);
	rb_row_put_u64(r, &cols[C_STREAMS], o->streams);
	rb_row_put_bool(r, &cols[C_NODELAY], !o->no_nodelay);
	rb_row_put_bool(r, &cols[C_ZEROCOPY], o->zerocopy);
	rb_row_put_bool(r, &cols[C_VERIFY], o->verify);
	rb_row_put_str(r, &cols[C_STREAM], stream ? stream : o->streams > 1 && !o->pingpong ? "sum" : "");
	if (!(o->streams > 1))
		rb_row_untable(r, &cols[C_STREAM]);
	rb_row_put_u64(r, &cols[C_SIZE], size);
}

/*
 * The kernel's figures of the senders' data sockets (guard.h's struct sock_tcp): empty
 * cells in a row that has none (an interval's: TCP_INFO is read outside the clock).
 */
static void tcp_fields(struct rb_row *r, const struct sock_tcp *t, const char *by)
{
	bool have = t && t->nsocks;

	if (have) {
		rb_row_put_u64(r, &cols[C_RETRANS], t->retrans);
		rb_row_put_dbl(r, &cols[C_RTT], t->rtt_us);
		rb_row_put_u64(r, &cols[C_CWND], t->cwnd);
	} else {
		rb_row_put_dbl(r, &cols[C_RETRANS], NAN);
		rb_row_put_dbl(r, &cols[C_RTT], NAN);
		rb_row_put_dbl(r, &cols[C_CWND], NAN);
	}
	rb_row_put_str(r, &cols[C_CC], have ? t->cc : "");
	/* Whose kernel: a receiver's figures are its peer's word, held to what arrived here (bw.c). */
	rb_row_put_str(r, &cols[C_TCP_BY], have ? by : "");
}

/* A size's row (total), or one interval's (--interval: then rows say which stretch they cover). */
void sock_bw_row(struct rb_row *r, const struct sock_run *run, uint64_t size, const struct bw_step *s)
{
	const struct rb_stepend *cl = run->client ? &s->own : &s->peer,
	                        *sv = run->client ? &s->peer : &s->own;
	uint64_t msgs = s->own.msgs + s->peer.msgs, bytes = s->own.bytes + s->peer.bytes;
	/* This side's clock: the peer's figure was only checked against it (bw_step). */
	uint64_t ns = s->own.elapsed_ns;

	common_fields(r, run, size, NULL);
	rb_row_put_u64(r, &cols[C_ITERS], run->opt->bidir ? msgs / 2 : msgs);
	rb_row_put_u64(r, &cols[C_MSGS], msgs);
	rb_row_put_u64(r, &cols[C_BYTES], bytes);
	rb_row_put_dbl(r, &cols[C_ELAPSED], (double)ns / 1e9);
	rb_row_put_dbl(r, &cols[C_BW_AVG], rb_gbps(bytes, ns));
	rb_row_put_dbl(r, &cols[C_MSG_RATE], rb_mpps(msgs, ns));
	/* -b: this side's sends until the peer had them all, and the peer's until the last landed here. */
	if (run->opt->bidir && s->tx_ns && s->rx_ns) {
		rb_row_put_u64(r, &cols[C_BYTES_TX], s->own.bytes);
		rb_row_put_dbl(r, &cols[C_BW_TX], rb_gbps(s->own.bytes, s->tx_ns));
		rb_row_put_u64(r, &cols[C_BYTES_RX], s->rx_bytes);
		rb_row_put_dbl(r, &cols[C_BW_RX], rb_gbps(s->rx_bytes, s->rx_ns));
	}
	rb_row_put_dbl(r, &cols[C_CPU_CLIENT], cl->cpu_pct);
	rb_row_put_dbl(r, &cols[C_CPU_SERVER], sv->cpu_pct);
	tcp_fields(r, &s->tcp, s->tcp_by);
}

/*
 * --streams: each stream's row before the size's, which is their sum (as iperf3 prints
 * its streams, then [SUM]): this side's figures of it (what it sent; what arrived when
 * it only receives), on its clock, which ends when its last message was written (or had
 * arrived).
 */
void sock_stream_rows(const struct sock_run *run, uint64_t size, const struct bw_step *s)
{
	for (unsigned i = 0; i < s->nstreams; i++) {
		const struct bw_stream *x = &s->stream[i];
		char id[16];
		struct rb_row row;

		snprintf(id, sizeof(id), "%u", i + 1);
		common_fields(&row, run, size, id);
		rb_row_put_u64(&row, &cols[C_ITERS], x->msgs);
		rb_row_put_u64(&row, &cols[C_MSGS], x->msgs);
		rb_row_put_u64(&row, &cols[C_BYTES], x->bytes);
		rb_row_put_dbl(&row, &cols[C_ELAPSED], (double)x->elapsed_ns / 1e9);
		rb_row_put_dbl(&row, &cols[C_BW_AVG], rb_gbps(x->bytes, x->elapsed_ns));
		rb_row_put_dbl(&row, &cols[C_MSG_RATE], rb_mpps(x->msgs, x->elapsed_ns));
		rb_row_put_dbl(&row, &cols[C_CPU_CLIENT], NAN);
		rb_row_put_dbl(&row, &cols[C_CPU_SERVER], NAN);
		tcp_fields(&row, NULL, "");
		rb_step_row(run->step, &row, 0, (double)x->elapsed_ns / 1e9);
	}
}

/* --interval (client): one stretch of a bandwidth size (run->bw_interval_row). */
void sock_bw_interval_row(void *arg, uint64_t size, uint64_t msgs, uint64_t bytes, uint64_t from_ns,
                          uint64_t to_ns)
{
	struct sock_run *run = arg;
	/* This side's count of both directions, on its own clock; no CPU figure. */
	struct bw_step s = {
	    .own = {msgs, bytes, to_ns - from_ns, NAN, NAN}, .peer = {0, 0, 0, NAN, NAN}, .cpu_local = NAN};
	struct rb_row row;

	sock_bw_row(&row, run, size, &s);
	rb_step_row(run->step, &row, (double)from_ns / 1e9, (double)to_ns / 1e9);
}

void sock_pp_row(struct rb_row *r, const struct sock_run *run, uint64_t size, const struct rb_pp_result *res,
                 const struct sock_tcp *tcp)
{
	const struct rb_lat_summary *m = &res->sum;

	common_fields(r, run, size, NULL);
	rb_row_put_str(r, &cols[C_METHOD], rb_pp_method(res));
	rb_row_put_u64(r, &cols[C_ITERS], m->count);
	rb_row_put_u64(r, &cols[C_WARMUP], m->warmup);
	rb_lat_row(r, m);
	rb_row_put_dbl(r, &cols[C_ELAPSED], m->elapsed_s);
	rb_row_put_dbl(r, &cols[C_TPS], rb_lat_tps(m));
	if (!(run->opt->len.duration_s > 0))
		rb_row_untable(r, &cols[C_TPS]);
	tcp_fields(r, tcp, "self");
}

/* --interval: one interval of a ping-pong size (run->pp_interval_row). */
int sock_pp_interval_row(void *arg, uint64_t size, const struct rb_pp_result *res, double from_s, double to_s)
{
	struct sock_run *run = arg;
	struct rb_row row;

	sock_pp_row(&row, run, size, res, NULL);
	rb_step_row(run->step, &row, from_s, to_s);
	return 0;
}

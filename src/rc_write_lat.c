/*
 * rc_write_lat: RDMA WRITE latency over one RC QP, run the way ib_write_lat is run.
 *
 * Ping-pong with exactly one message in flight: the client writes into the server's
 * buffer, the server sees it arrive and writes back, the client sees that arrive.
 * Arrival is seen by polling the last byte of the buffer (it carries a per-iteration
 * marker), or with --write-with-imm by the receive completion, busy-polled or, with
 * --event, waited for on a completion channel. A sample is half the round trip.
 */
#include "cq.h"
#include "latency.h"
#include "log.h"
#include "rb_config.h"
#include "session.h"
#include "sizes.h"
#include "timeutil.h"

#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#define TOOL        "rc_write_lat"
#define USAGE       TOOL " [options]            (server)\n       " TOOL " [options] SERVER     (client)"
#define SEND_WR     64
#define SIG_EVERY   32
#define RX_DEPTH    64
#define STOP_MARKER 0xff /* duration mode: "no reply, the step is over" */
#define STOP_IMM    0xffffffffu
#define MAX_SAMPLES (64u << 20)
#define NS_PER_S    1000000000ull

struct lat_opts {
	struct rb_size_opts size;
	uint32_t iters, warmup, inline_bytes, timeout_s;
	double duration_s;
	bool imm, event, histogram, ignored;
	struct rb_sizes sizes;
};

struct lat {
	struct rb_conn *c;
	struct rb_oob *o;
	const struct lat_opts *opt;
	uint64_t size;
	uint64_t posted, reaped;
	uint64_t rposted, rgot;
	uint64_t iter, total; /* current iteration; total = 0 in duration mode */
	struct rb_samples samples;
	char err[320];
};

/* 1..254, never 0 (a cleared buffer) and never the stop marker. */
static uint8_t marker(uint64_t i)
{
	return (uint8_t)(i % 254 + 1);
}

static void lat_opts_default(struct lat_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->warmup = 100;
	o->timeout_s = 5;
}

static const struct rb_opt_table *lat_opt_table(struct lat_opts *o)
{
	static struct rb_opt rows[16];
	static struct rb_opt_table table = {"Test", rows};
	struct rb_opt r[] = {
	    {"iters", 'n', RB_OPT_U32, &o->iters, "N", "measured round trips per size (default 1000)", 1,
	     1u << 26, NULL, NULL},
	    {"duration", 'D', RB_OPT_DOUBLE, &o->duration_s, "SEC",
	     "measure for SEC seconds per size instead of -n", 0, 86400, NULL, NULL},
	    {"warmup", 0, RB_OPT_U32, &o->warmup, "N", "round trips run first and not measured (default 100)",
	     0, 1u << 24, NULL, NULL},
	    {"inline", 'I', RB_OPT_U32, &o->inline_bytes, "BYTES",
	     "send messages up to BYTES inline (default 0)", 0, 1u << 20, NULL, NULL},
	    {"write-with-imm", 0, RB_OPT_FLAG, &o->imm, NULL,
	     "use RDMA_WRITE_WITH_IMM; arrival is the receive completion", 0, 0, NULL, NULL},
	    {"event", 0, RB_OPT_FLAG, &o->event, NULL,
	     "wait for receive completions on a completion channel (implies --write-with-imm)", 0, 0, NULL,
	     NULL},
	    {"histogram", 0, RB_OPT_FLAG, &o->histogram, NULL, "print a log2 histogram of the samples", 0, 0,
	     NULL, NULL},
	    {"timeout", 0, RB_OPT_U32, &o->timeout_s, "SEC",
	     "fail when the peer sends nothing for SEC s (default 5)", 1, 3600, NULL, NULL},
	    {"cpu-freq-ignore", 'F', RB_OPT_IGNORE, &o->ignored, NULL,
	     "accepted for perftest compatibility; no effect", 0, 0, NULL, NULL},
	    {0},
	};
	rb_size_opt_rows(&o->size, rows);
	memcpy(rows + 3, r, sizeof(r));
	return &table;
}

static int lat_opts_finish(struct lat_opts *o)
{
	if (rb_size_opts_resolve(&o->size, 2, &o->sizes))
		return -EINVAL;
	if (rb_iters_or_duration(&o->iters, o->duration_s, 1000))
		return -EINVAL;
	if (o->event)
		o->imm = true;
	return 0;
}

/* ---------------------------------------------------------------- data path */

static int post_recvs(struct lat *l, unsigned n)
{
	struct ibv_recv_wr wr[RX_DEPTH], *bad;
	int ret;

	for (unsigned i = 0; i < n; i++) {
		memset(&wr[i], 0, sizeof(wr[i]));
		wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
	}
	ret = ibv_post_recv(l->c->qp[0], wr, &bad);
	if (ret) {
		rb_err("ibv_post_recv failed: %s", strerror(ret));
		return -ret;
	}
	l->rposted += n;
	return 0;
}

/*
 * Reaps send completions; blocks (bounded) only when the send queue is nearly full.
 * Called once per round trip, never between the two timestamps of a sample.
 */
static int reap_sends(struct lat *l)
{
	struct ibv_wc wc[4];
	uint64_t start = 0;

	for (;;) {
		int n = rb_cq_poll(l->c->scq, wc, 4, l->opt->imm ? "RDMA_WRITE_WITH_IMM" : "RDMA_WRITE",
		                   l->err, sizeof(l->err));
		if (n < 0)
			return n;
		for (int i = 0; i < n; i++)
			l->reaped = wc[i].wr_id;
		if (l->posted - l->reaped < SEND_WR - 1)
			return 0;
		if (!start)
			start = rb_now_ns();
		else if (rb_now_ns() - start > l->opt->timeout_s * NS_PER_S) {
			rb_err("no send completion for %u s at iteration %llu (--timeout)", l->opt->timeout_s,
			       (unsigned long long)l->iter);
			return -ETIMEDOUT;
		}
	}
}

static int post_write(struct lat *l, uint8_t mark, uint32_t imm)
{
	uint8_t *src = l->c->src.addr;
	struct ibv_sge sge = {(uintptr_t)src, (uint32_t)l->size, l->c->src_mr.mr->lkey};
	struct ibv_send_wr wr, *bad;
	int ret;

	src[l->size - 1] = mark;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = l->posted + 1;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = l->opt->imm ? IBV_WR_RDMA_WRITE_WITH_IMM : IBV_WR_RDMA_WRITE;
	wr.imm_data = htonl(imm);
	wr.send_flags = ((l->posted + 1) % SIG_EVERY == 0 ? IBV_SEND_SIGNALED : 0) |
	                (l->size <= l->opt->inline_bytes ? IBV_SEND_INLINE : 0);
	wr.wr.rdma.remote_addr = l->c->remote.qp[0].addr;
	wr.wr.rdma.rkey = l->c->remote.qp[0].rkey;
	ret = ibv_post_send(l->c->qp[0], &wr, &bad);
	if (ret) {
		rb_err("ibv_post_send failed at iteration %llu: %s", (unsigned long long)l->iter,
		       strerror(ret));
		return -ret;
	}
	l->posted++;
	return 0;
}

static int peer_silent(struct lat *l)
{
	char of[32] = "";

	if (l->total)
		snprintf(of, sizeof(of), " of %llu", (unsigned long long)l->total);
	rb_err("no message from the peer for %u s at iteration %llu%s, %llu-byte messages (--timeout)",
	       l->opt->timeout_s, (unsigned long long)l->iter, of, (unsigned long long)l->size);
	return -ETIMEDOUT;
}

/* Anything on the channel mid-step means the peer failed or left. */
static int check_peer(struct lat *l)
{
	struct rb_frame f;
	uint8_t byte;
	int ret = rb_oob_readable(l->o, 0);

	if (ret <= 0)
		return ret;
	if (recv(l->o->fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT) == 0) {
		char of[32] = "";
		if (l->total)
			snprintf(of, sizeof(of), " of %llu", (unsigned long long)l->total);
		rb_err("peer %s closed the connection at iteration %llu%s, %llu-byte messages", l->o->peer,
		       (unsigned long long)l->iter, of, (unsigned long long)l->size);
		return -ECONNRESET;
	}
	ret = rb_oob_recv(l->o, &f, 1000);
	if (!ret) {
		rb_err("protocol error: %s frame from %s in the middle of iteration %llu", rb_msg_name(f.type),
		       l->o->peer, (unsigned long long)l->iter);
		ret = -EPROTO;
	}
	return ret;
}

/* One receive completion (WRITE_WITH_IMM); returns 1, 0 when none, -errno. */
static int poll_recv(struct lat *l, uint32_t *imm)
{
	struct ibv_wc wc;
	int n = rb_cq_poll(l->c->rcq, &wc, 1, "RECV_RDMA_WITH_IMM", l->err, sizeof(l->err));

	if (n <= 0)
		return n;
	if (wc.opcode != IBV_WC_RECV_RDMA_WITH_IMM || wc.byte_len != l->size) {
		rb_err("unexpected %s completion of %u bytes at iteration %llu (expected %llu bytes)",
		       rb_wc_opcode_name(wc.opcode), wc.byte_len, (unsigned long long)l->iter,
		       (unsigned long long)l->size);
		return -EPROTO;
	}
	*imm = ntohl(wc.imm_data);
	l->rgot++;
	if (l->rposted - l->rgot <= RX_DEPTH / 2) {
		int ret = post_recvs(l, RX_DEPTH / 2);
		if (ret)
			return ret;
	}
	return 1;
}

/* Sleeps on the completion channel (and the out-of-band socket) until ms pass. */
static int wait_event(struct lat *l, int ms)
{
	struct pollfd pfd[2] = {{l->c->chan->fd, POLLIN, 0}, {l->o->fd, POLLIN, 0}};
	struct ibv_cq *cq;
	void *ctx;
	int ret = ibv_req_notify_cq(l->c->rcq, 0);

	if (ret) {
		rb_err("ibv_req_notify_cq failed: %s", strerror(ret));
		return -ret;
	}
	/* A completion that landed before the request would raise no event: look first. */
	{
		struct ibv_wc wc;
		if (ibv_poll_cq(l->c->rcq, 0, &wc) < 0)
			return -EIO;
	}
	ret = poll(pfd, 2, ms);
	if (ret < 0)
		return errno == EINTR ? 0 : -errno;
	if (pfd[1].revents)
		return check_peer(l) ? -ECONNRESET : 0;
	if (pfd[0].revents) {
		if (ibv_get_cq_event(l->c->chan, &cq, &ctx)) {
			rb_err("ibv_get_cq_event failed");
			return -EIO;
		}
		ibv_ack_cq_events(cq, 1);
	}
	return 0;
}

/*
 * Waits for the peer's message of iteration i. Returns 0, 1 when it was the stop
 * message (duration mode), or -errno.
 */
static int wait_arrival(struct lat *l, uint64_t i)
{
	volatile uint8_t *last = (volatile uint8_t *)l->c->dst.addr + l->size - 1;
	uint64_t start = 0;
	unsigned spins = 0;

	for (;;) {
		int ret;
		if (l->opt->imm) {
			uint32_t imm;
			ret = poll_recv(l, &imm);
			if (ret < 0)
				return ret;
			if (ret == 1) {
				if (imm == STOP_IMM)
					return 1;
				if (imm != (uint32_t)i) {
					rb_err("immediate %u arrived at iteration %llu (message lost or "
					       "reordered)",
					       imm, (unsigned long long)i);
					return -EPROTO;
				}
				return 0;
			}
		} else {
			uint8_t v = *last;
			if (v == marker(i))
				return 0;
			if (v == STOP_MARKER)
				return 1;
		}
		if (l->opt->event) {
			ret = wait_event(l, 100);
			if (ret)
				return ret;
		} else if ((++spins & 1023) != 0) {
			continue;
		}
		/* Every ~1000 spins (or wake-up): the clock, and every ~64k the peer. */
		if (!start)
			start = rb_now_ns();
		else if (rb_now_ns() - start > l->opt->timeout_s * NS_PER_S)
			return peer_silent(l);
		if ((spins & 0xffff) == 0 && (ret = check_peer(l)) != 0)
			return ret < 0 ? ret : -EPROTO;
	}
}

/* ---------------------------------------------------------------- one size */

static int client_step(struct lat *l, struct rb_lat_summary *sum)
{
	const struct lat_opts *o = l->opt;
	uint64_t t_meas = 0, t_end = 0;
	int ret;

	l->samples.n = 0;
	for (uint64_t i = 1;; i++) {
		uint64_t t0, t1;

		l->iter = i;
		if (l->total && i > l->total)
			break;
		if (!l->total && i > o->warmup + 1 &&
		    rb_now_ns() - t_meas >= (uint64_t)(o->duration_s * 1e9)) {
			ret = post_write(l, STOP_MARKER, STOP_IMM);
			if (ret)
				return ret;
			break;
		}
		t0 = rb_now_ns();
		ret = post_write(l, marker(i), (uint32_t)i);
		if (!ret)
			ret = wait_arrival(l, i);
		if (ret)
			return ret < 0 ? ret : -EPROTO;
		t1 = rb_now_ns();
		/* Send completions are reaped outside the timed round trip. */
		ret = reap_sends(l);
		if (ret)
			return ret;
		if (i == o->warmup + 1 || (o->warmup == 0 && i == 1))
			t_meas = t0;
		if (i > o->warmup) {
			ret = rb_samples_push(&l->samples, t1 - t0);
			if (ret) {
				rb_err("more than %u samples in one size; shorten -D", MAX_SAMPLES);
				return ret;
			}
		}
		t_end = t1;
	}
	rb_lat_summarize(l->samples.v, l->samples.n, sum);
	rb_lat_scale(sum, 0.5); /* samples are round trips; report one way */
	sum->warmup = o->warmup;
	sum->elapsed_s = t_meas ? (double)(t_end - t_meas) / 1e9 : 0;
	return 0;
}

static int server_step(struct lat *l)
{
	for (uint64_t i = 1; !l->total || i <= l->total; i++) {
		int ret;
		l->iter = i;
		ret = wait_arrival(l, i);
		if (ret == 1)
			return 0; /* the client's stop message */
		if (!ret)
			ret = post_write(l, marker(i), (uint32_t)i);
		if (!ret)
			ret = reap_sends(l); /* while the reply is in flight */
		if (ret)
			return ret;
	}
	return 0;
}

static int lat_step(struct lat *l, uint64_t size, uint64_t seq, bool client, struct rb_lat_summary *sum)
{
	uint8_t buf[128];
	struct rb_wbuf w = {buf, 0, sizeof(buf), false};
	struct rb_frame f;
	int ret;

	l->size = size;
	l->total = l->opt->iters ? l->opt->iters + l->opt->warmup : 0;
	/* The last step's final marker must not look like this step's first. */
	memset(l->c->dst.addr, 0, size);
	ret = rb_oob_barrier(l->o, seq);
	if (ret)
		return ret;
	if (!client) {
		ret = server_step(l);
		if (!ret)
			ret = rb_oob_expect(l->o, RB_MSG_LATSTATS, &f, (int)l->opt->timeout_s * 1000);
		if (ret)
			return ret;
		if (rb_latstats_decode(f.p, f.len, sum)) {
			rb_err("malformed LATSTATS from %s", l->o->peer);
			return -EPROTO;
		}
		return 0;
	}
	ret = client_step(l, sum);
	if (ret)
		return ret;
	rb_latstats_encode(&w, sum);
	return rb_oob_send_w(l->o, RB_MSG_LATSTATS, &w);
}

/* ---------------------------------------------------------------- output */

static void hello_params(const struct lat_opts *o, struct rb_hello *h)
{
	rb_hello_sweep(h, TOOL, &o->sizes, o->iters, o->duration_s);
	rb_hello_add(h, "warmup", "%u", o->warmup);
	rb_hello_add(h, "write_with_imm", "%d", o->imm);
}

static void print_header(const struct lat_opts *o, const struct rb_session *s, const struct rb_qp_opts *qo)
{
	char sizes[256];

	printf("---------------------------------------------------------------------------------------\n");
	printf("                    RDMA_Write%s Latency Test (rdmabench %s %s)\n", o->imm ? "_with_imm" : "",
	       TOOL, RB_VERSION);
	printf(" Role           : %s, peer %s\n", s->client ? "client (measures)" : "server (echoes)",
	       s->oob.peer);
	rb_device_describe(&s->conn.dev, stdout);
	printf(" Sizes          : %s\n", rb_sizes_fmt(&o->sizes, sizes, sizeof(sizes)));
	if (o->duration_s > 0)
		printf(" Duration       : %g s per size after %u warm-up round trips\n", o->duration_s,
		       o->warmup);
	else
		printf(" Iterations     : %u per size after %u warm-up round trips\n", o->iters, o->warmup);
	printf(" Arrival        : %s\n", o->event ? "receive completion, completion channel (event)"
	                                 : o->imm ? "receive completion, busy-polled CQ"
	                                          : "last byte of the buffer, busy-polled");
	printf(" Inline         : %u B\n", o->inline_bytes);
	rb_conn_describe(&s->conn, qo, stdout);
	printf(" Latency        : half round trip; percentiles by nearest rank\n");
	printf("---------------------------------------------------------------------------------------\n");
	fflush(stdout);
}

static void build_row(struct rb_row *r, const struct lat_opts *o, const struct rb_conn *c, uint64_t size,
                      const struct rb_lat_summary *m)
{
	memset(r, 0, sizeof(*r));
	rb_row_str(r, "tool", NULL, TOOL);
	rb_row_str(r, "op", NULL, o->imm ? "write_with_imm" : "write");
	rb_row_str(r, "arrival", NULL, o->event ? "event" : o->imm ? "cq_poll" : "memory_poll");
	rb_row_str(r, "device", NULL, c->dev.name);
	rb_row_u64(r, "size_bytes", "#bytes", size);
	rb_row_u64(r, "iterations", "#iterations", m->count);
	rb_row_u64(r, "warmup", NULL, m->warmup);
	rb_row_u64(r, "inline_bytes", NULL, size <= o->inline_bytes ? o->inline_bytes : 0);
	rb_row_u64(r, "mtu_bytes", NULL, rb_mtu_bytes(rb_conn_path_mtu(c)));
	rb_lat_row(r, m);
	rb_row_dbl(r, "elapsed_s", NULL, 6, m->elapsed_s);
	rb_row_dbl(r, "tps", o->duration_s > 0 ? "trans/s" : NULL, 1, rb_lat_tps(m));
}

int main(int argc, char **argv)
{
	struct lat_opts lo;
	struct rb_session_opts so;
	struct rb_session s;
	struct rb_hello mine;
	struct rb_row meta, row;
	struct lat l;
	int ret;

	rb_log_init(argv[0]);
	lat_opts_default(&lo);
	rb_session_opts_default(&so);
	ret = rb_session_parse(&s, &so, lat_opt_table(&lo), argc, argv, USAGE);
	if (ret >= 0)
		return ret;
	if (lat_opts_finish(&lo))
		return RB_EXIT_USAGE;
	memset(&l, 0, sizeof(l));
	l.opt = &lo;
	if (rb_samples_init(&l.samples, lo.iters ? lo.iters : 1u << 16, MAX_SAMPLES)) {
		rb_err("out of memory for %u samples", lo.iters);
		return RB_EXIT_RUNTIME;
	}
	{
		size_t region = rb_sizes_max(&lo.sizes);
		struct rb_conn_cfg cfg = {
		    .nqps = 1,
		    .caps = {.send_wr = SEND_WR,
		             .recv_wr = lo.imm ? RX_DEPTH : 0,
		             .inline_bytes = lo.inline_bytes},
		    .src_per_qp = region,
		    .dst_per_qp = region,
		    .recv_cq = lo.imm,
		    .event_cq = lo.event,
		};
		hello_params(&lo, &mine);
		ret = rb_session_open(&s, &so, &cfg, &mine, region);
	}
	l.c = &s.conn;
	l.o = &s.oob;
	if (!ret && lo.imm)
		ret = post_recvs(&l, RX_DEPTH);
	if (ret)
		goto done;
	if (rb_reports_text(&s.reps))
		print_header(&lo, &s, &so.qp);
	rb_session_meta(&s, &meta, TOOL);
	rb_row_u64(&meta, "iterations", NULL, lo.iters);
	rb_row_u64(&meta, "warmup", NULL, lo.warmup);
	rb_row_dbl(&meta, "duration_s", NULL, 3, lo.duration_s > 0 ? lo.duration_s : NAN);
	rb_row_u64(&meta, "inline_bytes", NULL, lo.inline_bytes);
	rb_row_bool(&meta, "write_with_imm", NULL, lo.imm);
	rb_row_bool(&meta, "event", NULL, lo.event);
	rb_row_str(&meta, "percentile_method", NULL, "nearest rank");
	rb_reports_begin(&s.reps, &meta);
	for (unsigned i = 0; i < lo.sizes.n; i++) {
		struct rb_lat_summary sum;

		ret = lat_step(&l, lo.sizes.v[i], i + 1, s.client, &sum);
		if (ret)
			break;
		build_row(&row, &lo, &s.conn, lo.sizes.v[i], &sum);
		rb_reports_row(&s.reps, &row);
		if (lo.histogram && s.client && rb_reports_text(&s.reps))
			rb_lat_histogram(stdout, l.samples.v, l.samples.n, 2);
	}
	if (rb_reports_text(&s.reps) && !ret)
		printf("-------------------------------------------------------------------------------------"
		       "--\n");
done:
	rb_samples_free(&l.samples);
	return rb_session_close(&s, ret);
}

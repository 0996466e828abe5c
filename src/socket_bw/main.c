/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * socket_bw: the TCP baseline, shaped like NCCL's socket transport. A control
 * connection carries every message's size; the payload moves over nsocks sockets
 * per thread x nthreads threads, split into chunks of at least 64 KiB. Also a
 * --ping-pong latency mode with rc_write_lat's statistics.
 */
#include "bw.h"
#include "iperf3.h"
#include "opts.h"
#include "data.h"
#include "pp.h"
#include "rows.h"

#include "measure/measure.h"
#include "base/base.h"
#include "host/host.h"
#include "oob/oob.h"
#include "rb_config.h"
#include "report/report.h"
#include "xfer.h"
#include "fabric/fabric.h"
#include "run/run.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stddef.h>
#include <math.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define TOOL  "socket_bw"
#define USAGE TOOL " [options]            (server)\n       " TOOL " [options] SERVER     (client)"

/* ---------------------------------------------------------------- output */

static void hello_params(const struct sock_opts *o, struct rb_hello *h)
{
	rb_hello_sweep(h, TOOL, &o->sizes, o->len.iters, o->len.duration_s);
	rb_hello_add(h, "nsocks", "%u", o->nsocks);
	rb_hello_add(h, "nthreads", "%u", o->nthreads);
	rb_hello_add(h, "streams", "%u", o->streams);
	rb_hello_add(h, "bidirectional", "%d", o->bidir);
	rb_hello_add(h, "reverse", "%d", o->reverse);
	rb_hello_add(h, "run_infinitely", "%d", o->len.forever);
	rb_hello_add(h, "ping_pong", "%d", o->pingpong);
	rb_hello_add(h, "warmup", "%u", o->warmup);
	rb_hello_add(h, "verify", "%d", o->verify);
}

/* A socket buffer in the header: what the kernel gave for what was asked, or autotuning. */
static const char *buf_fmt(int got, uint64_t asked, char *buf, size_t len)
{
	if (!asked)
		return "auto";
	snprintf(buf, len, "%d (asked %llu; the kernel doubles it)", got, (unsigned long long)asked);
	return buf;
}

static void print_header(const struct sock_run *r, const struct rb_opts_env *env)
{
	const struct sock_opts *o = r->opt;
	char sizes[256], snd[64], rcv[64];

	printf("---------------------------------------------------------------------------------------\n");
	printf("                    TCP %s Test (rdmabench %s %s)\n",
	       o->pingpong ? "ping-pong latency" : "BW", TOOL, RB_VERSION);
	printf(" Role           : %s, peer %s\n", r->client ? "client" : "server", r->oob->peer);
	printf(" Interface      : %s %s%s\n", r->nif.name[0] ? r->nif.name : "?", r->nif.addr_str,
	       o->ifname ? "" : " (routed; --ifname not set)");
	if (o->ifname)
		printf(" Interface list : %s\n", o->ifname);
	for (unsigned i = 0; i < env->n; i++)
		printf(" From env       : %s\n", env->set[i]);
	printf(" Sizes          : %s\n", rb_sizes_fmt(&o->sizes, sizes, sizeof(sizes)));
	if (o->len.forever)
		printf(" Duration       : until SIGINT/SIGTERM\n");
	else if (o->len.duration_s > 0)
		printf(" Duration       : %g s per size\n", o->len.duration_s);
	else
		printf(" Iterations     : %u per size\n", o->len.iters);
	if (o->pingpong)
		printf(" Mode           : ping-pong over one socket, %u warm-up round trips%s\n", o->warmup,
		       o->verify ? ", verify" : "");
	else if (o->streams > 1)
		printf(
		    " Streams        : %u independent TCP streams (iperf3's -P): each its socket, thread and "
		    "messages\n",
		    o->streams);
	else
		printf(
		    " Sockets        : %u per thread x %u threads = %u per direction, each message in chunks "
		    ">= 64 KiB over them (NCCL's; iperf3's -P is --streams)\n",
		    o->nsocks, o->nthreads, r->total);
	if (!o->pingpong)
		printf(" Mode           : %s%s%s\n",
		       o->bidir     ? "bidirectional"
		       : o->reverse ? "unidirectional (server sends: -R)"
		                    : "unidirectional (client sends)",
		       o->verify ? ", verify" : "", o->zerocopy ? ", MSG_ZEROCOPY" : "");
	printf(" Socket options : TCP_NODELAY %s, SO_SNDBUF %s, SO_RCVBUF %s\n", o->no_nodelay ? "off" : "on",
	       buf_fmt(r->sndbuf_got, sock_sndbuf(o), snd, sizeof(snd)),
	       buf_fmt(r->rcvbuf_got, sock_rcvbuf(o), rcv, sizeof(rcv)));
	printf("---------------------------------------------------------------------------------------\n");
	fflush(stdout);
}

/* ---------------------------------------------------------------- main */

/* A dual-stack listener sees IPv4 peers as ::ffff:a.b.c.d; interfaces list the IPv4 address. */
static const struct sockaddr *unmapped(struct sockaddr_storage *ss)
{
	const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)ss;

	if (ss->ss_family == AF_INET6 && IN6_IS_ADDR_V4MAPPED(&s6->sin6_addr)) {
		struct sockaddr_in s4 = {.sin_family = AF_INET, .sin_port = s6->sin6_port};
		memcpy(&s4.sin_addr, &s6->sin6_addr.s6_addr[12], sizeof(s4.sin_addr));
		memcpy(ss, &s4, sizeof(s4));
	}
	return (const struct sockaddr *)ss;
}

/* ---------------------------------------------------------------- the tool */

struct sock_tool {
	struct sock_opts o;
	struct sock_run run;
	bool warned; /* the huge-run warning: once, not per --all-pairs pair or --persist run */
};

static unsigned opt_tables(void *t, struct rb_opt_table *out, unsigned max)
{
	struct sock_tool *st = t;

	(void)max;
	out[0] = rb_size_opt_table(&st->o.size, "1M; 8 with --ping-pong");
	out[1] = rb_runlen_opt_table(&st->o.len, &sock_runlen_help);
	out[2] = sock_opt_table(&st->o);
	out[3] = sock_iperf3_opt_table(&st->o);
	return 4;
}

static int check(void *t, struct rb_run *r)
{
	struct sock_tool *st = t;
	struct sock_run *run = &st->run;

	if (st->o.client_host) {
		rb_usage_err("-c %s inside a cluster of letters: give -c HOST as a word of its own",
		             st->o.client_host);
		return -EINVAL;
	}
	if (sock_opts_finish(&st->o, rb_opts_given(&r->given, &st->o.warmup)))
		return -EINVAL;
	/* -J: iperf3's layout on stdout, which holds one test; --json - is ours. */
	if (st->o.json_stdout) {
		if (st->o.sizes.n > 1 || st->o.pingpong || rb_run_repeats(r) > 1) {
			rb_usage_err("-J writes iperf3's layout, one TCP test: %s (--json - writes ours)",
			             st->o.pingpong      ? "not with --ping-pong"
			             : st->o.sizes.n > 1 ? "give one size (-l SIZE)"
			                                 : "not with --repeat (its summary is ours)");
			return -EINVAL;
		}
		r->out_opts.iperf3_json = "-";
	}
	if (r->client && !st->warned)
		st->warned = sock_huge_run_warning(&st->o, &r->given);
	run->opt = &st->o;
	run->client = r->client;
	run->oob = r->oob;
	run->bw_interval_row = sock_bw_interval_row;
	run->pp_interval_row = sock_pp_interval_row;
	run->row_arg = run;
	run->total = st->o.streams > 1 ? st->o.streams : st->o.nsocks * st->o.nthreads;
	if (run->total > MAX_SOCKETS) {
		rb_usage_err("--nsocks %u x --nthreads %u is more than %d sockets per direction",
		             st->o.nsocks, st->o.nthreads, MAX_SOCKETS);
		return -EINVAL;
	}
	if (rb_pp_samples_check(&st->o.samples, st->o.unsorted, r->client, &r->out_opts))
		return -EINVAL;
	/* A name that matches nothing is an error now, never a silent fallback. */
	if (st->o.ifname || st->o.family) {
		if (rb_netif_find(st->o.ifname, (int)st->o.family, &run->nif))
			return -EINVAL;
		if (!run->client && !r->oob_opts.bind)
			r->oob_opts.bind = run->nif.addr_str;
	}
	return 0;
}

static void hello(void *t, struct rb_hello *h)
{
	hello_params(&((struct sock_tool *)t)->o, h);
}

static int setup(void *t, const struct rb_run *r)
{
	struct sock_tool *st = t;
	struct rb_pp_cfg cfg = {.iters = st->o.len.iters, .interval_s = r->out_opts.interval_s};
	int ret;

	if (!st->o.pingpong)
		return 0;
	ret = rb_pp_init(&st->run.pp, &cfg, r->client);
	if (!ret && st->o.samples)
		ret = rb_pp_samples_open(&st->run.pp, st->o.samples);
	return ret;
}

static int connect_run(void *t, const struct rb_run *r)
{
	struct sock_run *run = &((struct sock_tool *)t)->run;

	/* A persistent server's former run set its buffers, and had its figures: not this one's. */
	run->sndbuf_got = run->rcvbuf_got = 0;
	memset(&run->tcp, 0, sizeof(run->tcp));
	if (!run->opt->ifname && !run->opt->family) {
		struct sockaddr_storage ss;
		socklen_t sl = sizeof(ss);
		if (!getsockname(r->oob->fd, (struct sockaddr *)&ss, &sl))
			rb_netif_of_addr(unmapped(&ss), &run->nif);
	}
	return run->client ? connect_data(run) : serve_data(run);
}

static void header(void *t, const struct rb_run *r)
{
	print_header(&((struct sock_tool *)t)->run, &r->env);
}

static void meta(void *t, const struct rb_run *r, struct rb_row *m)
{
	const struct sock_tool *st = t;

	(void)r;
	rb_row_str(m, "interface", NULL, st->run.nif.name);
	rb_row_str(m, "address", NULL, st->run.nif.addr_str);
	rb_row_u64(m, "iterations", NULL, st->o.len.iters);
	rb_row_dbl(m, "duration_s", NULL, 3, st->o.len.duration_s > 0 ? st->o.len.duration_s : NAN);
	rb_row_u64(m, "nsocks", NULL, st->o.nsocks);
	rb_row_u64(m, "nthreads", NULL, st->o.nthreads);
	rb_row_u64(m, "streams", NULL, st->o.streams);
	/* -w, --sndbuf, --rcvbuf: what the kernel gave this side's data sockets (twice what was asked). */
	if (st->run.sndbuf_got)
		rb_row_u64(m, "sndbuf_bytes", NULL, (uint64_t)st->run.sndbuf_got);
	if (st->run.rcvbuf_got)
		rb_row_u64(m, "rcvbuf_bytes", NULL, (uint64_t)st->run.rcvbuf_got);
}

/* The largest step's worker buffers, each direction this side takes part in (bw_prepare). */
static uint64_t mem_need(void *t)
{
	const struct sock_tool *st = t;
	const struct sock_opts *o = &st->o;
	uint64_t max = rb_sizes_max(&o->sizes);
	bool streams = o->streams > 1;
	struct xfer_cfg xc = {.verify = o->verify,
	                      .zerocopy = o->zerocopy,
	                      .nthreads = streams ? 1 : o->nthreads,
	                      .nsocks = streams ? 1 : o->nsocks,
	                      .max_size = max};
	uint64_t rx, tx;

	if (o->pingpong)
		return max;
	/* --streams: a transfer state per stream. */
	rx = xfer_bytes(&xc) * o->streams;
	xc.tx = true;
	tx = xfer_bytes(&xc) * o->streams;
	return o->bidir ? rx + tx : st->run.client != o->reverse ? tx : rx;
}

static int prepare(void *t, const struct rb_run *r, uint64_t size)
{
	struct sock_tool *st = t;

	(void)r;
	if (!st->o.pingpong)
		return bw_prepare(&st->run, size);
	sock_tcp_mark(&st->run);
	return 0;
}

static int step(void *t, const struct rb_run *r, struct rb_step *s, struct rb_row *row)
{
	struct sock_tool *st = t;
	uint64_t size = s->size;
	int ret;

	(void)r;
	st->run.step = s;
	if (st->o.pingpong) {
		struct rb_pp_result res;
		ret = pp_step(&st->run, size, &res);
		/* Its one socket, both ways: this side's figures (the peer's stay its own). */
		if (!ret)
			ret = sock_tcp_read(&st->run, &st->run.tcp);
		if (!ret)
			sock_pp_row(row, &st->run, size, &res, &st->run.tcp);
	} else {
		struct bw_step res;
		ret = bw_step(&st->run, size, &res);
		if (!ret) {
			st->run.tcp = res.tcp;
			sock_stream_rows(&st->run, size, &res);
			sock_bw_row(row, &st->run, size, &res);
		}
	}
	st->run.step = NULL;
	return ret;
}

/* SIGINT mid-size: the client's own figures so far, as the size's row (the driver marks it partial). */
static bool partial(void *t, const struct rb_run *r, const struct rb_step *step, struct rb_row *row)
{
	struct sock_tool *st = t;
	uint64_t size = step->size;
	struct rb_pp_result res;

	if (!r->client)
		return false;
	if (st->o.pingpong) {
		if (!rb_pp_partial(&st->run.pp, &res))
			return false;
		sock_pp_row(row, &st->run, size, &res, NULL);
		return true;
	}
	if (!st->run.cut.valid || !st->run.cut.bytes || !size)
		return false;
	struct bw_step s = {.own = {st->run.cut.bytes / size, st->run.cut.bytes, st->run.cut.ns, NAN, NAN},
	                    .peer = {0, 0, 0, NAN, NAN}};
	sock_bw_row(row, &st->run, size, &s);
	return true;
}

/* Whose data sockets a row's tcp_* fields describe. */
static const char *tcp_whose(const struct sock_run *r)
{
	if (r->opt->pingpong)
		return "this side's socket";
	return r->opt->bidir     ? "both sides' senders"
	       : r->opt->reverse ? "the server's senders"
	                         : "the client's senders";
}

/* --histogram: the client's buckets under their row; retransmits, when there were any. */
static void after_row(void *t, const struct rb_run *r)
{
	struct sock_tool *st = t;
	const struct sock_tcp *tcp = &st->run.tcp;

	if (st->o.histogram && r->client)
		rb_pp_print_histogram(&st->run.pp, stdout, 2);
	if (tcp->nsocks && tcp->retrans)
		printf("  TCP (%s): %llu segments retransmitted, RTT %.1f us (mean), "
		       "cwnd %llu segments (smallest), %s\n",
		       tcp_whose(&st->run), (unsigned long long)tcp->retrans, tcp->rtt_us,
		       (unsigned long long)tcp->cwnd, tcp->cc);
}

static bool teardown(void *t, const struct rb_run *r)
{
	struct sock_run *run = &((struct sock_tool *)t)->run;

	(void)r;
	bw_abandon(run);
	rb_pp_free(&run->pp);
	for (int i = 0; i < MAX_SOCKETS; i++) {
		if (run->c2s[i] >= 0)
			close(run->c2s[i]);
		if (run->s2c[i] >= 0)
			close(run->s2c[i]);
		run->c2s[i] = run->s2c[i] = -1;
	}
	return true;
}

static void defaults(void *t)
{
	sock_opts_default(&((struct sock_tool *)t)->o);
}

static const struct rb_tool socket_bw_tool = {
    .id = {.name = TOOL, .usage = USAGE, .msgs = sock_msgs, .nmsgs = SOCK_NMSGS},
    .cli = {.intervals = true,
            .defaults = defaults,
            .opt_tables = opt_tables,
            .check = check,
            .sizes_at = offsetof(struct sock_tool, o.sizes),
            .len_at = offsetof(struct sock_tool, o.len)},
    .link = {.hello = hello,
             .setup = setup,
             .mem_need = mem_need,
             .connect = connect_run,
             .teardown = teardown,
             .victim = TOOL,
             .victim_arg = "--ping-pong"},
    .measure = {.prepare = prepare, .step = step, .partial = partial},
    .out = {.header = header, .meta = meta, .columns = sock_columns, .after_row = after_row},
};

int main(int argc, char **argv)
{
	static struct sock_tool st;

	pthread_mutex_init(&st.run.send_lock, NULL);
	for (int i = 0; i < MAX_SOCKETS; i++)
		st.run.c2s[i] = st.run.s2c[i] = -1;
	return rb_main(&socket_bw_tool, &st, argc, argv);
}

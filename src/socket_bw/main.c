/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * socket_bw: the TCP baseline, shaped like NCCL's socket transport. A control
 * connection carries every message's size; the payload moves over nsocks sockets
 * per thread x nthreads threads, split into chunks of at least 64 KiB. Also a
 * --ping-pong latency mode with rc_write_lat's statistics.
 */
#include "bw.h"
#include "data.h"
#include "pp.h"

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

#define TOOL                       "socket_bw"
#define USAGE                      TOOL " [options]            (server)\n       " TOOL " [options] SERVER     (client)"
#define DEFAULT_FOREVER_INTERVAL_S 5.0 /* --run-infinitely without --interval, as perftest */

/* ---------------------------------------------------------------- options */

static int parse_family(const char *arg, void *dst)
{
	if (!strcmp(arg, "4") || !strcmp(arg, "AF_INET"))
		*(uint32_t *)dst = 4;
	else if (!strcmp(arg, "6") || !strcmp(arg, "AF_INET6"))
		*(uint32_t *)dst = 6;
	else
		return -EINVAL;
	return 0;
}

/* NCCL's environment sets the defaults; flags parsed later override them. */
static void sock_opts_default(struct sock_opts *o)
{
	const char *e;
	uint64_t v;

	memset(o, 0, sizeof(*o));
	o->nsocks = o->nthreads = 1;
	o->timeout_s = 10;
	if ((e = getenv("NCCL_NSOCKS_PERTHREAD")) && !rb_parse_u64_range(e, 1, 16, &v)) {
		o->nsocks = (uint32_t)v;
		o->env_applied[o->nenv++] = "NCCL_NSOCKS_PERTHREAD";
	}
	if ((e = getenv("NCCL_SOCKET_NTHREADS")) && !rb_parse_u64_range(e, 1, 16, &v)) {
		o->nthreads = (uint32_t)v;
		o->env_applied[o->nenv++] = "NCCL_SOCKET_NTHREADS";
	}
	if ((e = getenv("NCCL_SOCKET_IFNAME")) && *e) {
		o->ifname = e;
		o->env_applied[o->nenv++] = "NCCL_SOCKET_IFNAME";
	}
	if ((e = getenv("NCCL_SOCKET_FAMILY")) && !parse_family(e, &o->family))
		o->env_applied[o->nenv++] = "NCCL_SOCKET_FAMILY";
}

/* -n, -D and --run-infinitely: measure's table, in this tool's words. */
static const struct rb_runlen_help sock_runlen_help = {
    .iters =
        "messages (round trips with --ping-pong) per size (default 1000; a run planned above 1 TiB or an "
        "hour is warned of)",
    .forever = "bandwidth: run one size until SIGINT/SIGTERM, a row every --interval (default 5 s)",
};

static struct rb_opt_table sock_opt_table(struct sock_opts *o)
{
	static const struct rb_opt rows[] = {
	    {.name = "nsocks",
	     .type = RB_OPT_U32,
	     .off = offsetof(struct sock_opts, nsocks),
	     .arg = "N",
	     .help = "sockets per thread (default $NCCL_NSOCKS_PERTHREAD or 1)",
	     .min = 1,
	     .max = 16},
	    {.name = "nthreads",
	     .type = RB_OPT_U32,
	     .off = offsetof(struct sock_opts, nthreads),
	     .arg = "N",
	     .help = "threads (default $NCCL_SOCKET_NTHREADS or 1)",
	     .min = 1,
	     .max = 16},
	    {.name = "bidirectional",
	     .key = 'b',
	     .type = RB_OPT_FLAG,
	     .off = offsetof(struct sock_opts, bidir),
	     .help = "both sides send at once; reports the sum"},
	    {.name = "reverse",
	     .key = 'R',
	     .type = RB_OPT_FLAG,
	     .off = offsetof(struct sock_opts, reverse),
	     .help = "the server sends, the client receives (iperf3's -R)"},
	    {.name = "ping-pong",
	     .type = RB_OPT_FLAG,
	     .off = offsetof(struct sock_opts, pingpong),
	     .help = "latency: one message each way per round trip"},
	    {.name = "warmup",
	     .type = RB_OPT_U32,
	     .off = offsetof(struct sock_opts, warmup),
	     .arg = "N",
	     .help = "--ping-pong round trips not measured (default 100)",
	     .max = 1u << 24},
	    {.name = "ifname",
	     .type = RB_OPT_STR,
	     .off = offsetof(struct sock_opts, ifname),
	     .arg = "LIST",
	     .help = "interfaces, NCCL_SOCKET_IFNAME syntax: prefixes, '=' exact, '^' exclude",
	     .flags = RB_OPT_LOCAL},
	    {.name = "family",
	     .type = RB_OPT_FN,
	     .off = offsetof(struct sock_opts, family),
	     .arg = "4|6",
	     .help = "address family of the interface (default: either)",
	     .fn = parse_family,
	     .allowed = "4, 6, AF_INET or AF_INET6",
	     .flags = RB_OPT_LOCAL},
	    {.name = "verify",
	     .type = RB_OPT_FLAG,
	     .off = offsetof(struct sock_opts, verify),
	     .help = "the receiver checks every byte of every message"},
	    {.name = "no-nodelay",
	     .type = RB_OPT_FLAG,
	     .off = offsetof(struct sock_opts, no_nodelay),
	     .help = "leave Nagle on (TCP_NODELAY is set by default)",
	     .flags = RB_OPT_LOCAL},
	    {.name = "sndbuf",
	     .type = RB_OPT_U64,
	     .off = offsetof(struct sock_opts, sndbuf),
	     .arg = "BYTES",
	     .help = "SO_SNDBUF of data sockets (default: kernel autotuning)",
	     .min = 4096,
	     .max = 1ull << 30,
	     .flags = RB_OPT_LOCAL},
	    {.name = "rcvbuf",
	     .type = RB_OPT_U64,
	     .off = offsetof(struct sock_opts, rcvbuf),
	     .arg = "BYTES",
	     .help = "SO_RCVBUF of data sockets (default: kernel autotuning)",
	     .min = 4096,
	     .max = 1ull << 30,
	     .flags = RB_OPT_LOCAL},
	    /* Shared, as iperf3's -w: the server's data sockets get it too, unless it was given its own. */
	    {.name = "window",
	     .key = 'w',
	     .type = RB_OPT_U64,
	     .off = offsetof(struct sock_opts, window),
	     .arg = "BYTES",
	     .help =
	         "SO_SNDBUF and SO_RCVBUF of both sides' data sockets, where --sndbuf/--rcvbuf do not say "
	         "otherwise (iperf3's -w); the header shows what the kernel gave",
	     .min = 4096,
	     .max = 1ull << 30},
	    {.name = "zerocopy",
	     .key = 'Z',
	     .type = RB_OPT_FLAG,
	     .off = offsetof(struct sock_opts, zerocopy),
	     .help = "send with MSG_ZEROCOPY",
	     .flags = RB_OPT_LOCAL},
	    {.name = "timeout",
	     .type = RB_OPT_U32,
	     .off = offsetof(struct sock_opts, timeout_s),
	     .arg = "SEC",
	     .help = "fail when nothing moves for SEC s (default 10)",
	     .min = 1,
	     .max = 3600,
	     .flags = RB_OPT_LOCAL},
	    {.name = "histogram",
	     .type = RB_OPT_FLAG,
	     .off = offsetof(struct sock_opts, histogram),
	     .help = "--ping-pong: print a log2 histogram of each size's samples",
	     .flags = RB_OPT_LOCAL},
	    {.name = "samples",
	     .type = RB_OPT_STR,
	     .off = offsetof(struct sock_opts, samples),
	     .arg = "FILE",
	     .help = "--ping-pong client: every one-way latency to FILE (CSV: "
	             "size_bytes,iteration,latency_us; '-' = stdout)",
	     .flags = RB_OPT_LOCAL},
	    {.name = "report-unsorted",
	     .key = 'U',
	     .type = RB_OPT_FLAG,
	     .off = offsetof(struct sock_opts, unsorted),
	     .help = "--ping-pong client: every one-way latency on stdout, in the order measured (as "
	             "--samples -)",
	     .flags = RB_OPT_LOCAL},
	    {0},
	};
	return (struct rb_opt_table){"Test", rows, o, true};
}

/*
 * iperf3's spellings of what socket_bw has (socket_bw(1), IPERF3 USERS). Each row sets
 * the field of the option it spells, so that option's own row sends it to the server;
 * none goes there under iperf3's name (local). -c HOST is moved to the SERVER argument
 * before parsing (iperf3_words); its row is --help's, and catches it inside a cluster.
 */
static struct rb_opt_table iperf3_opt_table(struct sock_opts *o)
{
	static const struct rb_opt rows[] = {
	    {.name = "client",
	     .key = 'c',
	     .type = RB_OPT_STR,
	     .off = offsetof(struct sock_opts, client_host),
	     .arg = "HOST",
	     .help = "be the client of HOST: the SERVER argument",
	     .flags = RB_OPT_LOCAL},
	    /* iperf3's --time would be --timeout's near miss here: -t is -D's letter, under -D's name. */
	    {.name = "duration",
	     .key = 't',
	     .type = RB_OPT_FN,
	     .off = offsetof(struct sock_opts, len.duration_s),
	     .arg = "SEC",
	     .help = "-D SEC: seconds per size (iperf3's default is 10 s, socket_bw's -n 1000)",
	     .fn = rb_parse_duration,
	     .allowed = RB_DURATION_ALLOWED "; --run-infinitely runs until SIGINT",
	     .flags = RB_OPT_LOCAL},
	    {.name = "parallel",
	     .key = 'P',
	     .type = RB_OPT_U32,
	     .off = offsetof(struct sock_opts, nsocks),
	     .arg = "N",
	     .help = "--nsocks N: parallel streams (more than 16: add --nthreads)",
	     .min = 1,
	     .max = 16,
	     .allowed = "an integer from 1 to 16; more streams: --nthreads, -P 16 --nthreads 4 is 64",
	     .flags = RB_OPT_LOCAL},
	    {.name = "length",
	     .key = 'l',
	     .type = RB_OPT_STR,
	     .off = offsetof(struct sock_opts, size.list),
	     .arg = "SIZE",
	     .help = "-s SIZE: the message (buffer) length",
	     .flags = RB_OPT_LOCAL},
	    {.name = "blockcount",
	     .key = 'k',
	     .type = RB_OPT_U32,
	     .off = offsetof(struct sock_opts, len.iters),
	     .arg = "N",
	     .help = "-n N: messages (blocks) per size",
	     .min = 1,
	     .max = RB_RUNLEN_ITERS_MAX,
	     .flags = RB_OPT_LOCAL},
	    {.name = "json-stdout",
	     .key = 'J',
	     .type = RB_OPT_FLAG,
	     .off = offsetof(struct sock_opts, json_stdout),
	     .help = "--json -: the JSON document on stdout, no text table",
	     .flags = RB_OPT_LOCAL},
	    {.name = "bidir",
	     .type = RB_OPT_FLAG,
	     .off = offsetof(struct sock_opts, bidir),
	     .help = "-b: both sides send at once",
	     .flags = RB_OPT_LOCAL},
	    {.name = "no-delay",
	     .key = 'N',
	     .type = RB_OPT_IGNORE,
	     .help = "nothing to do: TCP_NODELAY is on unless --no-nodelay"},
	    {.name = "one-off",
	     .key = '1',
	     .type = RB_OPT_IGNORE,
	     .help = "nothing to do: a server serves one client unless --persist"},
	    {0},
	};
	return (struct rb_opt_table){
	    "iperf3's spellings (socket_bw(1), IPERF3 USERS; -s, -b, -n, -D, -V and -v mean "
	    "other things here)",
	    rows, o, true};
}

static int sock_opts_finish(struct sock_opts *o, bool warmup_given)
{
	if (rb_size_opts_resolve(&o->size, o->pingpong ? 8 : 1u << 20, &o->sizes))
		return -EINVAL;
	if (rb_runlen_resolve(&o->len, &o->sizes, 1000))
		return -EINVAL;
	if (o->len.forever && o->pingpong) {
		rb_usage_err(
		    "--run-infinitely with --ping-pong: it is for bandwidth runs (-D for a long latency "
		    "run)");
		return -EINVAL;
	}
	if (o->pingpong && o->bidir) {
		rb_usage_err("--ping-pong and -b exclude each other");
		return -EINVAL;
	}
	if (o->reverse && (o->pingpong || o->bidir)) {
		rb_usage_err("-R and %s exclude each other (%s)", o->bidir ? "-b" : "--ping-pong",
		             o->bidir ? "-b has the server send as well" : "a round trip crosses both ways");
		return -EINVAL;
	}
	if (!o->pingpong && (o->histogram || o->samples || o->unsorted)) {
		rb_usage_err("%s needs --ping-pong", o->histogram ? "--histogram"
		                                     : o->samples ? "--samples"
		                                                  : "-U");
		return -EINVAL;
	}
	if (warmup_given && !o->pingpong) {
		rb_usage_err("--warmup %u needs --ping-pong (a bandwidth run has no warm-up round trips)",
		             o->warmup);
		return -EINVAL;
	}
	if (!warmup_given)
		o->warmup = o->pingpong ? 100 : 0;
	return 0;
}

/* ---------------------------------------------------------------- output */

static void hello_params(const struct sock_opts *o, struct rb_hello *h)
{
	rb_hello_sweep(h, TOOL, &o->sizes, o->len.iters, o->len.duration_s);
	rb_hello_add(h, "nsocks", "%u", o->nsocks);
	rb_hello_add(h, "nthreads", "%u", o->nthreads);
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

static void print_header(const struct sock_run *r)
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
	for (unsigned i = 0; i < o->nenv; i++)
		printf(" From env       : %s\n", o->env_applied[i]);
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
	else
		printf(" Sockets        : %u per thread x %u threads = %u per direction, chunks >= 64 KiB\n",
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

static void common_fields(struct rb_row *r, const struct sock_run *run, uint64_t size)
{
	const struct sock_opts *o = run->opt;

	memset(r, 0, sizeof(*r));
	rb_row_str(r, "tool", NULL, TOOL);
	rb_row_str(r, "mode", NULL,
	           o->pingpong  ? "ping_pong"
	           : o->bidir   ? "bidirectional"
	           : o->reverse ? "reverse"
	                        : "unidirectional");
	rb_row_str(r, "interface", NULL, run->nif.name);
	rb_row_u64(r, "nsocks", NULL, o->nsocks);
	rb_row_u64(r, "nthreads", NULL, o->nthreads);
	rb_row_bool(r, "nodelay", NULL, !o->no_nodelay);
	rb_row_bool(r, "zerocopy", NULL, o->zerocopy);
	rb_row_bool(r, "verify", NULL, o->verify);
	rb_row_u64(r, "size_bytes", "#bytes", size);
}

/*
 * The kernel's figures of the senders' data sockets (guard.h's struct sock_tcp): empty
 * cells in a row that has none (an interval's: TCP_INFO is read outside the clock).
 */
static void tcp_fields(struct rb_row *r, const struct sock_tcp *t, const char *by)
{
	bool have = t && t->nsocks;

	if (have) {
		rb_row_u64(r, "tcp_retrans", NULL, t->retrans);
		rb_row_dbl(r, "tcp_rtt_us", NULL, 1, t->rtt_us);
		rb_row_u64(r, "tcp_cwnd", NULL, t->cwnd);
	} else {
		rb_row_dbl(r, "tcp_retrans", NULL, 0, NAN);
		rb_row_dbl(r, "tcp_rtt_us", NULL, 1, NAN);
		rb_row_dbl(r, "tcp_cwnd", NULL, 0, NAN);
	}
	rb_row_str(r, "tcp_cc", NULL, have ? t->cc : "");
	/* Whose kernel: a receiver's figures are its peer's word, held to what arrived here (bw.c). */
	rb_row_str(r, "tcp_reported_by", NULL, have ? by : "");
}

/* A size's row (total), or one interval's (--interval: then rows say which stretch they cover). */
static void bw_row(struct rb_row *r, const struct sock_run *run, uint64_t size, const struct bw_step *s,
                   bool total, double from_s, double to_s)
{
	const struct rb_stepend *cl = run->client ? &s->own : &s->peer,
	                        *sv = run->client ? &s->peer : &s->own;
	uint64_t msgs = s->own.msgs + s->peer.msgs, bytes = s->own.bytes + s->peer.bytes;
	/* This side's clock: the peer's figure was only checked against it (bw_step). */
	uint64_t ns = s->own.elapsed_ns;

	common_fields(r, run, size);
	rb_row_u64(r, "iterations", "#iterations", run->opt->bidir ? msgs / 2 : msgs);
	rb_row_u64(r, "msgs", NULL, msgs);
	rb_row_u64(r, "bytes", NULL, bytes);
	rb_row_dbl(r, "elapsed_s", NULL, 6, (double)ns / 1e9);
	rb_row_dbl(r, "bw_avg_gbps", "BW average[Gb/s]", 3, rb_gbps(bytes, ns));
	/* The verbs tools' names for the same quantities. */
	rb_row_dbl(r, "msg_rate_mpps", "MsgRate[Mpps]", 6, rb_mpps(msgs, ns));
	rb_row_dbl(r, "cpu_client_pct", "CPU client[%]", 1, cl->cpu_pct);
	rb_row_dbl(r, "cpu_server_pct", "CPU server[%]", 1, sv->cpu_pct);
	rb_pp_row_interval(r, run->run->out_opts.interval_s, total, from_s, to_s);
	tcp_fields(r, &s->tcp, s->tcp_by);
}

/* --interval (client): one stretch of a bandwidth size (run->bw_interval_row). */
static void bw_interval_row(void *arg, uint64_t size, uint64_t msgs, uint64_t bytes, uint64_t from_ns,
                            uint64_t to_ns)
{
	struct sock_run *run = arg;
	/* This side's count of both directions, on its own clock; no CPU figure. */
	struct bw_step s = {
	    .own = {msgs, bytes, to_ns - from_ns, NAN, NAN}, .peer = {0, 0, 0, NAN, NAN}, .cpu_local = NAN};
	struct rb_row row;

	bw_row(&row, run, size, &s, false, (double)from_ns / 1e9, (double)to_ns / 1e9);
	rb_run_row(run->run, &row);
}

static void pp_row(struct rb_row *r, const struct sock_run *run, uint64_t size,
                   const struct rb_pp_result *res, bool total, double from_s, double to_s,
                   const struct sock_tcp *tcp)
{
	const struct rb_lat_summary *m = &res->sum;

	common_fields(r, run, size);
	rb_row_str(r, "percentile_method", NULL, rb_pp_method(res));
	rb_row_u64(r, "iterations", "#iterations", m->count);
	rb_row_u64(r, "warmup", NULL, m->warmup);
	rb_lat_row(r, m);
	rb_row_dbl(r, "elapsed_s", NULL, 6, m->elapsed_s);
	rb_row_dbl(r, "tps", run->opt->len.duration_s > 0 ? "trans/s" : NULL, 1, rb_lat_tps(m));
	rb_pp_row_interval(r, run->run->out_opts.interval_s, total, from_s, to_s);
	tcp_fields(r, tcp, "self");
}

/* --interval: one interval of a ping-pong size (run->pp_interval_row). */
static int pp_interval_row(void *arg, uint64_t size, const struct rb_pp_result *res, double from_s,
                           double to_s)
{
	struct sock_run *run = arg;
	struct rb_row row;

	pp_row(&row, run, size, res, false, from_s, to_s, NULL);
	rb_run_row(run->run, &row);
	return 0;
}

/* ---------------------------------------------------------------- a run too long for -n */

#define HUGE_BYTES  (1ull << 40) /* 1 TiB */
#define HUGE_S      3600.0
#define EST_GBPS    30.0 /* what the estimate assumes: a fast TCP path ... */
#define EST_MSG_S   1e-6 /* ... and a message a microsecond at best */
#define EST_ROUND_S 1e-5 /* a ping-pong round trip: 10 us at best */

/* Binary units: one decimal, none for a whole number of them (a message size). */
static const char *bytes_fmt(double b, char *buf, size_t len)
{
	static const char *const unit[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
	unsigned u = 0;

	while (b >= 1024 && u < 6) {
		b /= 1024;
		u++;
	}
	snprintf(buf, len, b == floor(b) && b < 1000 && u < 4 ? "%.0f %s" : "%.1f %s", b, unit[u]);
	return buf;
}

static const char *secs_fmt(double s, char *buf, size_t len)
{
	if (s < 120)
		snprintf(buf, len, "%.0f s", s);
	else if (s < 7200)
		snprintf(buf, len, "%.0f min", s / 60);
	else if (s < 2 * 86400)
		snprintf(buf, len, "%.1f hours", s / 3600);
	else if (s < 730 * 86400)
		snprintf(buf, len, "%.1f days", s / 86400);
	else
		snprintf(buf, len, "%.1f years", s / (365.25 * 86400));
	return buf;
}

/* The value the command line gave the field at dst, as typed; NULL when not given. */
static const char *given_val(const struct rb_opts_given *g, const void *dst)
{
	for (unsigned i = 0; i < g->n; i++)
		if (g->dst[i] == dst)
			return g->val[i];
	return NULL;
}

/*
 * -n without -D that would move more than 1 TiB or take more than an hour at EST_GBPS
 * (and a message per EST_MSG_S at best): one line before the run, which goes on. It
 * names iperf3's -n, bytes, since that is how -n 1G at 1 MiB messages comes about.
 * Returns whether it warned.
 */
static bool huge_run_warning(const struct sock_opts *o, const struct rb_opts_given *g)
{
	const char *what = o->pingpong ? "round trips" : "messages", *typed = given_val(g, &o->len.iters);
	double bytes = 0, secs = 0, ways = o->pingpong || o->bidir ? 2 : 1;
	uint64_t big = rb_sizes_max(&o->sizes);
	char b[32], t[32], sz[32], one[256], iperf3[160] = "", s1[24], rate[32];

	if (!o->len.iters || o->len.duration_s > 0 || o->len.forever)
		return false;
	for (unsigned i = 0; i < o->sizes.n; i++) {
		double wire = (double)o->sizes.v[i] * 8 / (EST_GBPS * 1e9) * (o->pingpong ? 2 : 1),
		       floor = o->pingpong ? EST_ROUND_S : EST_MSG_S;
		bytes += (double)o->len.iters * (double)o->sizes.v[i] * ways;
		secs += (double)o->len.iters * (wire > floor ? wire : floor);
	}
	if (bytes <= (double)HUGE_BYTES && secs <= HUGE_S)
		return false;
	if (o->sizes.n == 1)
		snprintf(one, sizeof(one), "-n %u x %s %s moves %s", o->len.iters,
		         bytes_fmt((double)big, sz, sizeof(sz)), what, bytes_fmt(bytes, b, sizeof(b)));
	else
		snprintf(one, sizeof(one), "-n %u %s of each of %u sizes (up to %s) move %s in all",
		         o->len.iters, what, o->sizes.n, bytes_fmt((double)big, sz, sizeof(sz)),
		         bytes_fmt(bytes, b, sizeof(b)));
	if (!o->pingpong)
		snprintf(iperf3, sizeof(iperf3),
		         " (-n counts messages here: iperf3's -n %s, bytes, is -n %llu at -s %s)",
		         typed ? typed : "N", (unsigned long long)((o->len.iters + big - 1) / big),
		         rb_fmt_size(big, s1, sizeof(s1)));
	if (o->pingpong)
		snprintf(rate, sizeof(rate), "%g us a round trip", EST_ROUND_S * 1e6);
	else
		snprintf(rate, sizeof(rate), "%g M messages/s", 1e-6 / EST_MSG_S);
	rb_warn("%s (about %s at %g Gb/s, %s at best); give -D SEC for a timed run%s", one,
	        secs_fmt(secs, t, sizeof(t)), EST_GBPS, rate, iperf3);
	return true;
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
	out[3] = iperf3_opt_table(&st->o);
	return 4;
}

static int check(void *t, struct rb_run *r)
{
	struct sock_tool *st = t;
	struct sock_run *run = &st->run;

	if (st->o.len.forever && r->fab.all_pairs) {
		rb_usage_err("--run-infinitely with --all-pairs: a round would never end (use -D or -n)");
		return -EINVAL;
	}
	if (st->o.client_host) {
		rb_usage_err("-c %s inside a cluster of letters: give -c HOST as a word of its own",
		             st->o.client_host);
		return -EINVAL;
	}
	if (st->o.json_stdout) {
		if (r->out_opts.json && strcmp(r->out_opts.json, "-")) {
			rb_usage_err("-J and --json %s: -J is --json - (the document on stdout); choose one",
			             r->out_opts.json);
			return -EINVAL;
		}
		r->out_opts.json = "-";
	}
	if (sock_opts_finish(&st->o, rb_opts_given(&r->given, &st->o.warmup)))
		return -EINVAL;
	if (r->client && !st->warned)
		st->warned = huge_run_warning(&st->o, &r->given);
	run->opt = &st->o;
	run->client = r->client;
	run->oob = &r->oob;
	run->run = r;
	run->bw_interval_row = bw_interval_row;
	run->pp_interval_row = pp_interval_row;
	run->row_arg = run;
	if (st->o.len.forever && r->client && !(r->out_opts.interval_s > 0))
		r->out_opts.interval_s = DEFAULT_FOREVER_INTERVAL_S;
	run->total = st->o.nsocks * st->o.nthreads;
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

static int setup(void *t, struct rb_run *r)
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

static int connect_run(void *t, struct rb_run *r)
{
	struct sock_run *run = &((struct sock_tool *)t)->run;

	/* A persistent server's former run set its buffers, and had its figures: not this one's. */
	run->sndbuf_got = run->rcvbuf_got = 0;
	memset(&run->tcp, 0, sizeof(run->tcp));
	if (!run->opt->ifname && !run->opt->family) {
		struct sockaddr_storage ss;
		socklen_t sl = sizeof(ss);
		if (!getsockname(r->oob.fd, (struct sockaddr *)&ss, &sl))
			rb_netif_of_addr(unmapped(&ss), &run->nif);
	}
	return run->client ? connect_data(run) : serve_data(run);
}

static void header(void *t, struct rb_run *r)
{
	(void)r;
	print_header(&((struct sock_tool *)t)->run);
}

static void meta(void *t, struct rb_run *r, struct rb_row *m)
{
	const struct sock_tool *st = t;

	(void)r;
	rb_row_str(m, "interface", NULL, st->run.nif.name);
	rb_row_str(m, "address", NULL, st->run.nif.addr_str);
	rb_row_u64(m, "iterations", NULL, st->o.len.iters);
	rb_row_dbl(m, "duration_s", NULL, 3, st->o.len.duration_s > 0 ? st->o.len.duration_s : NAN);
	rb_row_u64(m, "nsocks", NULL, st->o.nsocks);
	rb_row_u64(m, "nthreads", NULL, st->o.nthreads);
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
	struct xfer_cfg xc = {.verify = o->verify,
	                      .zerocopy = o->zerocopy,
	                      .nthreads = o->nthreads,
	                      .nsocks = o->nsocks,
	                      .max_size = max};
	uint64_t rx, tx;

	if (o->pingpong)
		return max;
	rx = xfer_bytes(&xc);
	xc.tx = true;
	tx = xfer_bytes(&xc);
	return o->bidir ? rx + tx : st->run.client != o->reverse ? tx : rx;
}

static int prepare(void *t, struct rb_run *r, uint64_t size)
{
	struct sock_tool *st = t;

	(void)r;
	if (!st->o.pingpong)
		return bw_prepare(&st->run, size);
	sock_tcp_mark(&st->run);
	return 0;
}

static int step(void *t, struct rb_run *r, uint64_t size, uint64_t seq, struct rb_row *row)
{
	struct sock_tool *st = t;
	int ret;

	(void)r;
	(void)seq;
	if (st->o.pingpong) {
		struct rb_pp_result res;
		ret = pp_step(&st->run, size, &res);
		/* Its one socket, both ways: this side's figures (the peer's stay its own). */
		if (!ret)
			ret = sock_tcp_read(&st->run, &st->run.tcp);
		if (!ret)
			pp_row(row, &st->run, size, &res, true, 0, res.sum.elapsed_s, &st->run.tcp);
	} else {
		struct bw_step res;
		ret = bw_step(&st->run, size, &res);
		if (!ret) {
			st->run.tcp = res.tcp;
			bw_row(row, &st->run, size, &res, true, 0, (double)res.own.elapsed_ns / 1e9);
		}
	}
	return ret;
}

/* SIGINT mid-size: the client's own figures so far, as the size's row (the driver marks it partial). */
static bool partial(void *t, struct rb_run *r, uint64_t size, struct rb_row *row)
{
	struct sock_tool *st = t;
	struct rb_pp_result res;

	if (!r->client)
		return false;
	if (st->o.pingpong) {
		if (!rb_pp_partial(&st->run.pp, &res))
			return false;
		pp_row(row, &st->run, size, &res, true, 0, res.sum.elapsed_s, NULL);
		return true;
	}
	if (!st->run.cut.valid || !st->run.cut.bytes || !size)
		return false;
	struct bw_step s = {.own = {st->run.cut.bytes / size, st->run.cut.bytes, st->run.cut.ns, NAN, NAN},
	                    .peer = {0, 0, 0, NAN, NAN}};
	bw_row(row, &st->run, size, &s, true, 0, (double)st->run.cut.ns / 1e9);
	return true;
}

/* -D: how long each size lasts, for the progress line. */
static double size_seconds(const void *t)
{
	return ((const struct sock_tool *)t)->o.len.duration_s;
}

/* The documents' columns (rdmabench-documents(7)): both modes' rows have them all, in this order. */
static const char *const own_cols[] = {
    "tool",      "mode",        "interface",     "nsocks",         "nthreads",       "nodelay",
    "zerocopy",  "verify",      "size_bytes",    "iterations",     "msgs",           "bytes",
    "elapsed_s", "bw_avg_gbps", "msg_rate_mpps", "cpu_client_pct", "cpu_server_pct", "percentile_method",
    "warmup",    NULL};
static const char *const more_cols[] = {"tps",    "tcp_retrans",     "tcp_rtt_us", "tcp_cwnd",
                                        "tcp_cc", "tcp_reported_by", NULL};
static const char *const *const columns[] = {
    own_cols, rb_lat_columns, more_cols, rb_repeat_bw_columns, rb_repeat_lat_columns, NULL};

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
static void after_row(void *t, struct rb_run *r)
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

static bool teardown(void *t, struct rb_run *r)
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
    .name = TOOL,
    .usage = USAGE,
    .intervals = true,
    .msgs = sock_msgs,
    .nmsgs = SOCK_NMSGS,
    .defaults = defaults,
    .opt_tables = opt_tables,
    .check = check,
    .sizes_at = offsetof(struct sock_tool, o.sizes),
    .hello = hello,
    .setup = setup,
    .mem_need = mem_need,
    .connect = connect_run,
    .header = header,
    .meta = meta,
    .prepare = prepare,
    .step = step,
    .partial = partial,
    .size_seconds = size_seconds,
    .columns = columns,
    .after_row = after_row,
    .teardown = teardown,
};

/* ---------------------------------------------------------------- iperf3's command lines */

/*
 * iperf3's options socket_bw has none of (none is a letter of its own), and what to do
 * instead: a command line written for iperf3 learns it from the error. NULL: nothing.
 */
static const struct {
	char letter;
	const char *name, *hint;
} iperf3_only[] = {
    {'u', "udp", "socket_bw measures TCP only"},
    {'i', NULL, "use --interval SEC"},
    {'f', "format", "every row is in Gb/s (bw_avg_gbps); --output bandwidth prints one number a row"},
    {'O', "omit",
     "each size's clock starts after a barrier, buffers and threads ready; a longer -D dilutes slow start"},
    {'C', "congestion", "the kernel's default is used, named in each row's tcp_cc"},
    {'M', "set-mss", NULL},
    {'T', "title", NULL},
    {'F', "file", NULL},
    {'A', "affinity", "pin the process with taskset(1) or numactl(8)"},
    {'B', NULL, "use --bind ADDR (server) or --ifname NAME (the data sockets' interface)"},
    {'d', "debug", "use -v"},
    {'I', "pidfile", NULL},
    {'4', "version4", "use --family 4"},
    {'6', "version6", "use --family 6"},
    {'S', "tos", NULL},
    {'L', "flowlabel", NULL},
    {0, "server", "a server is socket_bw without SERVER"},
    {0, "daemon", "run it under nohup(1) or a service manager; --persist serves one client after another"},
    {0, "bitrate", "socket_bw always sends as fast as it can"},
    {0, "bandwidth", "socket_bw always sends as fast as it can"},
    {0, "bytes", "-n counts messages of -s SIZE here: -n BYTES/SIZE"},
    {0, "logfile", "use --csv FILE or --json FILE (messages go to stderr)"},
    {0, "get-server-output", "the client's rows carry the server's CPU and, with -R, its TCP figures"},
    {0, "connect-timeout", "use --oob-timeout SEC"},
    {0, "username", "use --auth-key FILE"},
    {0, "cport", NULL},
};

/* The word iperf3's -b takes: a rate such as 10G, 100M/100 or 0 (not an address). */
static bool looks_like_rate(const char *w)
{
	size_t n = strspn(w, "0123456789.");
	const char *dot = strchr(w, '.');

	if (!n || (dot && strchr(dot + 1, '.')))
		return false;
	w += n;
	if (*w && strchr("KMGTkmgt", *w))
		w++;
	if (*w == '/' && strspn(w + 1, "0123456789"))
		w += 1 + strspn(w + 1, "0123456789");
	return !*w;
}

/* An iperf3 option word that is none of socket_bw's: the hint, said; false when it is not one. */
static bool iperf3_unknown(const char *w)
{
	for (size_t i = 0; i < sizeof(iperf3_only) / sizeof(iperf3_only[0]); i++) {
		const char *name = iperf3_only[i].name, *hint = iperf3_only[i].hint;
		size_t len = name ? strlen(name) : 0;
		bool hit = w[1] == '-'
		               ? name && !strncmp(w + 2, name, len) && (!w[2 + len] || w[2 + len] == '=')
		               : iperf3_only[i].letter && w[1] == iperf3_only[i].letter;

		/* A letter's value may follow it in the word (-fm): the letter is the option. */
		if (hit) {
			rb_usage_err("unknown option '%.*s' (iperf3's; %s)",
			             w[1] == '-' ? (int)strcspn(w, "=") : 2, w,
			             hint ? hint : "socket_bw has no such thing");
			return true;
		}
	}
	return false;
}

/*
 * iperf3's command lines, before the options are parsed: -c HOST becomes the SERVER
 * argument where it stood; an iperf3 option socket_bw lacks, or a letter iperf3 uses
 * for something else (-s, -b, -D, -V, --json) used as iperf3 uses it, is said in
 * iperf3's words. Updates *argc. Returns -1 to go on, else the exit code.
 */
static int iperf3_words(int *argc, char **argv)
{
	int w = 1, n = *argc;
	bool version = false;

	for (int k = 1; k < n; k++) {
		char *a = argv[k], *next = k + 1 < n ? argv[k + 1] : NULL;
		/* No value follows: the end, or another option ("-" alone is stdout, a value). */
		bool bare = !next || (next[0] == '-' && next[1]);

		if (!strcmp(a, "--")) {
			while (k < n)
				argv[w++] = argv[k++];
			break;
		}
		if (a[0] != '-' || !a[1]) {
			argv[w++] = a;
			continue;
		}
		/* -c HOST, -cHOST, --client HOST, --client=HOST. */
		if (!strncmp(a, "-c", 2) || (!strncmp(a, "--client", 8) && (!a[8] || a[8] == '='))) {
			bool lng = a[1] == '-', eq = lng && a[8] == '=';
			char *host = lng ? a + 8 + eq : a + 2;

			if (!*host && !eq && !bare)
				host = argv[++k];
			if (!*host) {
				rb_usage_err("%s needs HOST, the server to connect to", a);
				return RB_EXIT_USAGE;
			}
			argv[w++] = host;
			continue;
		}
		if (!strcmp(a, "-b") && next && looks_like_rate(next)) {
			rb_usage_err(
			    "-b %s: -b is --bidirectional here and takes no value (iperf3's -b, a target "
			    "bitrate: socket_bw always sends as fast as it can)",
			    next);
			return RB_EXIT_USAGE;
		}
		if (!strcmp(a, "-s") && bare) {
			rb_usage_err(
			    "-s needs SIZES here: it is the message size (iperf3's -s, the server, is "
			    "socket_bw without a SERVER argument; drop -s)");
			return RB_EXIT_USAGE;
		}
		if (!strcmp(a, "-D") && bare) {
			rb_usage_err(
			    "-D needs SEC here: it is the duration of each size (iperf3's -D, a daemon: run "
			    "socket_bw under nohup(1); --persist serves one client after another)");
			return RB_EXIT_USAGE;
		}
		if (!strcmp(a, "--json") && bare) {
			rb_usage_err("--json needs FILE here ('-' = stdout; iperf3's --json is -J)");
			return RB_EXIT_USAGE;
		}
		if (iperf3_unknown(a))
			return RB_EXIT_USAGE;
		version |= !strcmp(a, "-V");
		argv[w++] = a;
	}
	argv[w] = NULL;
	*argc = w;
	/* Kept: -V prints the version and exits; with a run's options it was iperf3's -V. */
	if (version && w > 2)
		rb_warn("-V is --version here (iperf3's -V, more output, is -v): nothing runs");
	return -1;
}

int main(int argc, char **argv)
{
	static struct sock_tool st;
	int code;

	rb_log_init(argv[0]);
	code = iperf3_words(&argc, argv);
	if (code >= 0)
		return code;

	pthread_mutex_init(&st.run.send_lock, NULL);
	for (int i = 0; i < MAX_SOCKETS; i++)
		st.run.c2s[i] = st.run.s2c[i] = -1;
	return rb_main(&socket_bw_tool, &st, argc, argv);
}

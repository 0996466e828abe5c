/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * socket_bw's options: its own table, iperf3's spellings of them, the checks once
 * they are parsed, and the warning for a run too long for -n.
 */
#include "opts.h"
#include "iperf3.h"

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

/* The defaults; NCCL's environment (the rows' env) and then the flags override them. */
void sock_opts_default(struct sock_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->nsocks = o->nthreads = o->streams = 1;
	o->timeout_s = 10;
}

/* -n, -D and --run-infinitely: measure's table, in this tool's words. */
const struct rb_runlen_help sock_runlen_help = {
    .iters =
        "messages (round trips with --ping-pong) per size (default 1000; a run planned above 1 TiB or an "
        "hour is warned of)",
    .forever = "bandwidth: run one size until SIGINT/SIGTERM, a row every --interval (default 5 s)",
};

static const struct rb_opt sock_rows[] = {
    {.name = "nsocks",
     .type = RB_OPT_U32,
     .off = offsetof(struct sock_opts, nsocks),
     .arg = "N",
     .help = "sockets per thread (default $NCCL_NSOCKS_PERTHREAD or 1)",
     .min = 1,
     .max = 16,
     .env = "NCCL_NSOCKS_PERTHREAD"},
    {.name = "nthreads",
     .type = RB_OPT_U32,
     .off = offsetof(struct sock_opts, nthreads),
     .arg = "N",
     .help = "threads (default $NCCL_SOCKET_NTHREADS or 1)",
     .min = 1,
     .max = 16,
     .env = "NCCL_SOCKET_NTHREADS"},
    {.name = "streams",
     .type = RB_OPT_U32,
     .off = offsetof(struct sock_opts, streams),
     .arg = "N",
     .help = "N independent TCP streams, as iperf3's -P: each its socket, thread and own messages, "
             "each its row and their sum (--nsocks instead splits every message over sockets, NCCL's "
             "way)",
     .min = 1,
     .max = SOCK_MAX_STREAMS},
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
     .flags = RB_OPT_LOCAL,
     .env = "NCCL_SOCKET_IFNAME"},
    {.name = "family",
     .type = RB_OPT_FN,
     .off = offsetof(struct sock_opts, family),
     .arg = "4|6",
     .help = "address family of the interface (default: either)",
     .fn = parse_family,
     .allowed = "4, 6, AF_INET or AF_INET6",
     .flags = RB_OPT_LOCAL,
     .env = "NCCL_SOCKET_FAMILY"},
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
     .help = "SO_SNDBUF and SO_RCVBUF of both sides' data sockets, where --sndbuf/--rcvbuf do not say "
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

struct rb_opt_table sock_opt_table(struct sock_opts *o)
{
	return (struct rb_opt_table){"Test", sock_rows, o, true, NULL};
}

/*
 * iperf3's spellings of what socket_bw has (socket_bw(1), IPERF3 USERS). Each row sets
 * the field of the option it spells, so that option's own row sends it to the server;
 * none goes there under iperf3's name (local). -c HOST is moved to the SERVER argument
 * before parsing (iperf3_words); its row is --help's, and catches it inside a cluster.
 */
struct rb_opt_table sock_iperf3_opt_table(struct sock_opts *o)
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
	     .off = offsetof(struct sock_opts, streams),
	     .arg = "N",
	     .help = "--streams N: N independent streams, each its row and their sum, as iperf3's",
	     .min = 1,
	     .max = SOCK_MAX_STREAMS,
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
	     .help = "iperf3's JSON layout on stdout (start, intervals, end.sum_sent, ...), no text table; "
	             "one size",
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
	/*
	 * iperf3's words that are no option here are rewritten or refused before parsing
	 * (iperf3.c); -i is --interval, as iperf3's; perftest's spellings of the options
	 * socket_bw shares with the verbs tools (--run_infinitely, --report-histogram) stay
	 * known.
	 */
	static const struct rb_opt_alias aliases[] = {
	    {NULL, 'i', "interval"},
	    {"run_infinitely", 0, "run-infinitely"},
	    {"report-histogram", 0, "histogram"},
	    {NULL, 0, NULL},
	};
	static const struct rb_dialect iperf3 = {"iperf3", aliases, NULL, sock_iperf3_words};

	return (struct rb_opt_table){
	    "iperf3's spellings (socket_bw(1), IPERF3 USERS; -s, -b, -n, -D, -V and -v mean "
	    "other things here)",
	    rows, o, true, &iperf3};
}

int sock_opts_finish(struct sock_opts *o, bool warmup_given)
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
	if (o->streams > 1 && (o->nsocks > 1 || o->nthreads > 1)) {
		rb_usage_err(
		    "--streams %u (iperf3's -P) with --%s %u: independent streams have a thread and a "
		    "socket each; --nsocks and --nthreads split every message over sockets, NCCL's way "
		    "(give one of them)",
		    o->streams, o->nsocks > 1 ? "nsocks" : "nthreads",
		    o->nsocks > 1 ? o->nsocks : o->nthreads);
		return -EINVAL;
	}
	if (o->streams > 1 && o->pingpong) {
		rb_usage_err("--streams %u with --ping-pong: a round trip runs on one socket", o->streams);
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

/* ---------------------------------------------------------------- a run too long for -n */

#define HUGE_BYTES  (1ull << 40) /* 1 TiB */
#define HUGE_S      3600.0
#define EST_GBPS    30.0 /* what the estimate assumes: a fast TCP path ... */
#define EST_MSG_S   1e-6 /* ... and a message a microsecond at best */
#define EST_ROUND_S 1e-5 /* a ping-pong round trip: 10 us at best */

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
bool sock_huge_run_warning(const struct sock_opts *o, const struct rb_opts_given *g)
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
		         rb_fmt_bytes((double)big, sz, sizeof(sz)), what, rb_fmt_bytes(bytes, b, sizeof(b)));
	else
		snprintf(one, sizeof(one), "-n %u %s of each of %u sizes (up to %s) move %s in all",
		         o->len.iters, what, o->sizes.n, rb_fmt_bytes((double)big, sz, sizeof(sz)),
		         rb_fmt_bytes(bytes, b, sizeof(b)));
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

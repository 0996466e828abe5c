/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * socket_bw's shared pieces: options and the run's state (its sockets, the step in
 * progress, the rows main.c gives the steps). Types only: the entry points are in
 * the headers of the files above: data.h (data connections), then bw.h (the
 * bandwidth step) and pp.h (the ping-pong step), then main.c.
 */
#ifndef RB_SOCKET_BW_SOCKET_BW_H
#define RB_SOCKET_BW_SOCKET_BW_H

#include "guard.h"
#include "measure/measure.h"
#include "host/host.h"
#include "oob/oob.h"
#include "run/run.h"
#include "sockio.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#define MAX_SOCKETS      64
#define SOCK_MAX_STREAMS 16 /* --streams, iperf3's -P */

struct sock_opts {
	struct rb_size_opts size;
	struct rb_runlen_opts len;
	uint32_t warmup, nsocks, nthreads, family, timeout_s;
	uint32_t streams; /* --streams (iperf3's -P): independent streams, each its socket and messages */
	uint64_t sndbuf, rcvbuf;
	uint64_t window; /* -w: both buffers, where --sndbuf/--rcvbuf do not say otherwise */
	bool bidir, pingpong, verify, no_nodelay, zerocopy, histogram;
	bool reverse; /* -R: the server sends, the client receives */
	/* iperf3's spellings that are no field of their own (main.c, check). */
	const char *client_host; /* -c HOST inside a cluster of letters: refused */
	bool json_stdout;        /* -J: --json - */
	const char *ifname;
	const char *samples; /* --samples FILE */
	bool unsorted;       /* -U: the samples on stdout */
	struct rb_sizes sizes;
};

struct sock_run {
	const struct sock_opts *opt;
	bool client;
	struct rb_oob *oob;        /* the run's control connection */
	pthread_mutex_t send_lock; /* the sender thread and the control thread both write */
	int c2s[MAX_SOCKETS], s2c[MAX_SOCKETS];
	/* MSG_ZEROCOPY ids run per socket for its whole life, across steps. */
	struct sock_zc zc_c2s[MAX_SOCKETS], zc_s2c[MAX_SOCKETS];
	unsigned total; /* data sockets per direction */
	int sndbuf_got,
	    rcvbuf_got; /* what the kernel gave the data sockets for -w/--sndbuf/--rcvbuf; 0: not set */
	/* The sockets this side sends on: their retransmit counters when the step began. */
	uint32_t retrans0[MAX_SOCKETS];
	/* The sockets this side receives on: segments that had arrived when the step began (segs_known). */
	uint32_t segs0[MAX_SOCKETS];
	bool segs_known;
	struct sock_tcp tcp; /* the last step's senders' figures (nsocks 0: none) */
	/* This run's data-port token: the server draws it, DATAPORT carries it to the client. */
	uint8_t token[SOCK_TOKEN_LEN];
	struct rb_netif nif;
	struct bw_live *live; /* the bandwidth step in progress */
	/* A bandwidth step cut short by a stop signal: this side's bytes and time so far (bw_step). */
	struct {
		bool valid;
		uint64_t bytes, ns;
	} cut;
	struct rb_pp pp;      /* --ping-pong: the latency engine */
	struct rb_step *step; /* the step in progress: --interval, and where its rows go */
	/*
	 * --interval: the rows of the size in progress, main.c's (row_arg: this sock_run).
	 * Bandwidth (client): one stretch, [from, to) ns from the step's start, with what
	 * moved in both directions then. Ping-pong: one interval of the engine's.
	 */
	void (*bw_interval_row)(void *arg, uint64_t size, uint64_t msgs, uint64_t bytes, uint64_t from_ns,
	                        uint64_t to_ns);
	int (*pp_interval_row)(void *arg, uint64_t size, const struct rb_pp_result *res, double from_s,
	                       double to_s);
	void *row_arg;
};

/* The socket buffers asked for: --sndbuf/--rcvbuf, else -w (0: the kernel's autotuning). */
static inline uint64_t sock_sndbuf(const struct sock_opts *o)
{
	return o->sndbuf ? o->sndbuf : o->window;
}

static inline uint64_t sock_rcvbuf(const struct sock_opts *o)
{
	return o->rcvbuf ? o->rcvbuf : o->window;
}

/* Whether this side sends data in a bandwidth step, and whether it receives. */
static inline bool sock_sends(const struct sock_run *r)
{
	return r->opt->bidir || r->client != r->opt->reverse;
}

static inline bool sock_receives(const struct sock_run *r)
{
	return r->opt->bidir || r->client == r->opt->reverse;
}

#endif

/* socket_bw's shared pieces: options, the run's sockets, and the steps' entry points. */
#ifndef RB_SOCKET_BW_H
#define RB_SOCKET_BW_H

#include "guard.h"
#include "latency.h"
#include "netif.h"
#include "oob.h"
#include "pingpong.h"
#include "run.h"
#include "sizes.h"
#include "stepend.h"
#include "xfer.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#define MAX_SOCKETS 64

struct sock_opts {
	struct rb_size_opts size;
	uint32_t iters, warmup, nsocks, nthreads, family, timeout_s;
	double duration_s;
	uint64_t sndbuf, rcvbuf;
	bool bidir, pingpong, verify, no_nodelay, zerocopy, histogram;
	bool forever; /* --run-infinitely */
	const char *ifname;
	const char *samples; /* --samples FILE */
	bool unsorted;       /* -U: the samples on stdout */
	const char *env_applied[4];
	unsigned nenv;
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
	/* This run's data-port token: the server draws it, DATAPORT carries it to the client. */
	uint8_t token[SOCK_TOKEN_LEN];
	struct rb_netif nif;
	struct bw_live *live; /* the bandwidth step in progress */
	struct rb_pp pp;      /* --ping-pong: the latency engine */
	struct rb_run *run;   /* the driver's: documents, --interval */
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

/*
 * A step's end-of-step figures, ours and the peer's. own.elapsed_ns is this side's
 * clock: from its start after the barrier to the end of the last direction it takes
 * part in; the peer's (its own clock) is only cross-checked against it.
 */
struct bw_step {
	struct rb_stepend own, peer;
	double cpu_local;
};

/* Buffers and threads of one bandwidth size, made before the step's barrier. */
int bw_prepare(struct sock_run *r, uint64_t size);
/* The transfer, after the barrier: the control loop until both directions are done. */
int bw_step(struct sock_run *r, uint64_t size, struct bw_step *res);
/* Stops and frees what bw_prepare made when the step never ran. */
void bw_abandon(struct sock_run *r);

/* Data connections: the server listens where the control connection arrived. */
int serve_data(struct sock_run *r);
int connect_data(struct sock_run *r);

/*
 * After a data connection closed under us: the peer usually failed and says why on
 * the control connection. Waits up to a second for that; returns its error (logged:
 * the peer's message, or the control connection closing too), or 0 when nothing came.
 */
int sock_hear_peer(struct sock_run *r);

/* One --ping-pong size, after the barrier: the client measures, the server echoes. */
int pp_step(struct sock_run *r, uint64_t size, struct rb_pp_result *res);

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A bandwidth step's pipelines (pipes.c): each the workers of each direction (xfer.h)
 * and a sender thread that publishes its messages and announces them to the peer. One
 * pipeline moves the step over every data socket (NCCL's chunks); with --streams each
 * stream is a pipeline of its own. bw.c's control loop drives them.
 */
#ifndef RB_SOCKET_BW_PIPES_H
#define RB_SOCKET_BW_PIPES_H

#include "socket_bw.h"
#include "xfer.h"

struct sender {
	struct sock_run *r;
	struct xfer *x;
	unsigned stream; /* --streams: the stream it posts (announced in SRUN), else 0 (SIZE) */
	bool tagged;
	uint64_t size, msgs;
	uint64_t t0;
	_Atomic int go;          /* 0 until the clock starts, then 1; -1: give up */
	struct rb_seqwait go_wq; /* bumped when go is set */
	_Atomic int ret;         /* set when the thread ends */
	pthread_t thread;
	atomic_uint ready; /* the thread runs, its stack in place (run/window.h) */
};

/*
 * A pipeline: the workers of each direction and the sender thread. One moves the step
 * over every data socket (NCCL's chunks); with --streams each stream is a pipeline of
 * its own (one socket, one worker a direction), whose messages are its own.
 */
struct pipe {
	struct xfer *tx, *rx;
	struct sender snd;
	bool rx_on, tx_on, snd_on;
	bool rx_ended;    /* the peer's end of this pipeline's messages came */
	uint64_t rx_msgs; /* the peer's messages announced on it */
};

/* A size between bw_prepare and the end of bw_step. */
struct bw_live {
	unsigned n;
	struct pipe p[SOCK_MAX_STREAMS];
};

/* The control connection, shared by the control thread and the senders. */
int pipes_send_ctl(struct sock_run *r, uint16_t type, const struct rb_wbuf *w);
/* Starts a pipeline's sender thread (it waits for go); 0 or -errno (said). */
int pipes_sender_start(struct sender *s);
/* r->live with n pipelines for messages of size (tagged: --streams' SRUN frames); -ENOMEM (said). */
int pipes_alloc(struct sock_run *r, unsigned n, uint64_t size, bool tagged);
/* Frees r->live (nothing of it may run). */
void pipes_free(struct sock_run *r);
/* Bytes the workers moved so far this step, both directions, every pipeline. */
uint64_t pipes_moved(const struct bw_live *l);
/* Messages this side's senders posted, every pipeline. */
uint64_t pipes_sent(const struct bw_live *l);

#endif

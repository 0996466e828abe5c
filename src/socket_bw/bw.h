/* SPDX-License-Identifier: BSD-2-Clause */
/* socket_bw's bandwidth step (bw.c): the control loop, the sender thread, the counts. */
#ifndef RB_SOCKET_BW_BW_H
#define RB_SOCKET_BW_BW_H

#include "socket_bw.h"

/*
 * A step's end-of-step figures, ours and the peer's. own.elapsed_ns is this side's
 * clock: from its start after the barrier to the end of the last direction it takes
 * part in; the peer's (its own clock) is only cross-checked against it.
 */
/* --streams: one stream's figures on this side (what it sent, or what arrived), on its clock. */
struct bw_stream {
	uint64_t msgs, bytes, elapsed_ns;
};

struct bw_step {
	struct rb_stepend own, peer;
	/* Each direction on this side's clock: its sends until the peer said they all arrived, and
	 * the peer's until its last landed here (0: this side took no part in it). */
	uint64_t tx_ns, rx_ns, rx_bytes;
	unsigned nstreams; /* --streams N > 1: N, each its figures; else 0 */
	struct bw_stream stream[SOCK_MAX_STREAMS];
	double cpu_local;
	struct sock_tcp tcp; /* the senders' TCP figures: this side's, the peer's (TCPINFO), or both (-b) */
	const char *tcp_by;  /* whose kernel gave them: "self", "peer", "both", or "" for none */
};

/* Buffers and threads of one bandwidth size, made before the step's barrier. */
int bw_prepare(struct sock_run *r, uint64_t size);
/* The transfer, after the barrier: the control loop until both directions are done. */
int bw_step(struct sock_run *r, uint64_t size, struct bw_step *res);
/* Stops and frees what bw_prepare made when the step never ran. */
void bw_abandon(struct sock_run *r);

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * socket_bw's data connections (data.c): made per run, identified by the run's token,
 * tuned; and what the control connection says when one of them closed under us.
 */
#ifndef RB_SOCKET_BW_DATA_H
#define RB_SOCKET_BW_DATA_H

#include "socket_bw.h"

/* Data connections: the server listens where the control connection arrived. */
int serve_data(struct sock_run *r);
int connect_data(struct sock_run *r);

/*
 * After a data connection closed under us: the peer usually failed and says why on
 * the control connection. Waits up to a second for that; returns its error (logged:
 * the peer's message, or the control connection closing too), or 0 when nothing came.
 */
int sock_hear_peer(struct sock_run *r);

/*
 * The kernel's figures of the sockets this side sends on (ping-pong: its one socket),
 * read outside the step's clock: mark takes each one's retransmit counter before the
 * step, read the step's figures after it (nsocks 0 when this side sends nothing).
 * read returns 0 or -errno (said).
 */
void sock_tcp_mark(struct sock_run *r);
/* Segments that arrived on this side's receiving data sockets since sock_tcp_mark; false when unknown. */
bool sock_segs_rcvd(const struct sock_run *r, uint64_t *segs);
int sock_tcp_read(const struct sock_run *r, struct sock_tcp *t);

#endif

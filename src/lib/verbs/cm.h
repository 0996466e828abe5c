/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rdma_cm connections (-R / --rdma_cm): the QPs the connection set created are
 * connected through librdmacm instead of by the QPINFO addressing, one CM connection
 * per QP. The client resolves the server's address and route (IPv4, IPv6, or a
 * link-local address with its scope, fe80::1%eth0), the server listens on the same
 * port number as the out-of-band channel; each side moves its own QPs through INIT,
 * RTR and RTS with the attributes the CM negotiated (rdma_init_qp_attr), adjusted
 * by the QP options given (av.h: rb_av_cm_adjust; -T is also the id's ToS, set
 * before the route is resolved), and records the path as applied in the connection
 * set. QPINFO still carries the buffers' addresses and keys. An ADDR_ERROR or
 * ROUTE_ERROR is tried again until the timeout; every wait is bounded, and a failure
 * names the CM event (ADDR_ERROR, ROUTE_ERROR, UNREACHABLE, REJECTED with its
 * reason, CONNECT_ERROR) or the step that timed out.
 */
#ifndef RB_CM_H
#define RB_CM_H

#include "conn.h"

#include <rdma/rdma_cma.h>

struct rb_cm {
	struct rdma_event_channel *ch;
	struct rdma_cm_id *listen;
	struct rdma_cm_id **ids; /* one per QP */
	unsigned n;
};

/* Server, before the QPINFO exchange: listens on bind (NULL: any) and port. */
int rb_cm_listen(struct rb_cm *cm, const char *bind, unsigned port, unsigned nqps);
/* Client: connects every QP of c to host:port. */
int rb_cm_connect(struct rb_cm *cm, struct rb_conn *c, const struct rb_qp_opts *q, const char *host,
                  unsigned port, unsigned timeout_s);
/* Server: accepts one connection for each QP of c. */
int rb_cm_accept(struct rb_cm *cm, struct rb_conn *c, const struct rb_qp_opts *q, unsigned timeout_s);
void rb_cm_close(struct rb_cm *cm);

#endif

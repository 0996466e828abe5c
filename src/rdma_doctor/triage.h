/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rdma_doctor --peer / --serve: is this pair of hosts healthy, and if not, at which
 * layer. The served side answers with its facts (facts.c) and keeps an rc_write_bw and
 * a socket_bw persistent server running beside it (serve.c); the asking side walks the
 * triage tree in order and stops at the first layer that fails (triage.c):
 *   oob        the TCP path to the peer: resolve, connect, authenticate, versions
 *   hosts      both hosts' local layers (the doctor's own verdict, each side)
 *   path       link layer, GID type and subnet, MTU of port and netdev, VLAN, both ends
 *   qp         INIT -> RTR -> RTS with the peer, and a first 64 B WRITE, verified
 *   writes     a first MTU-sized and a large WRITE, verified
 *   fabric     a short sustained run: both ports' counter deltas (retransmissions,
 *              sequence errors, RNR, CNP/ECN, link errors)
 *   bandwidth  against the link rate, the PCIe ceiling and socket_bw on the same hosts
 * Every step is bounded; the whole walk ends within dr_triage_bound() seconds.
 */
#ifndef RB_RDMA_DOCTOR_TRIAGE_H
#define RB_RDMA_DOCTOR_TRIAGE_H

#include "doctor.h"
#include "oob/oob.h"

struct dr_walk;

#include <stdbool.h>

#define DR_SERVE_PORT 18520 /* --serve; its rc_write_bw on +1, socket_bw on +2, ib_write_bw on +3 */

/* What both modes take from the command line. */
struct dr_triage_opts {
	const char *peer;        /* --peer HOST (NULL: not triage) */
	bool serve;              /* --serve */
	bool perftest;           /* --serve --perftest: an ib_write_bw server loop too */
	unsigned perftest_iters; /* its -n (0: perftest's own default) */
	const char *dev;         /* -d: the device the runs use (NULL: the first usable port's) */
	unsigned duration_s;     /* --duration: the sustained run's length */
	bool json;               /* --json */
	struct rb_oob_opts oob;  /* -p, --oob-timeout, --bind, --auth-key */
	struct dr_tclass tclass; /* --tclass, $NCCL_IB_TC: the class whose DCB both ends judge */
};

/* facts.c: the port a run on this host would use: -d's first usable port, else the first usable. */
const struct dr_port *dr_pick_port(const struct dr_host *h, const char *dev, const struct dr_dev **d);
/* This host's facts (verdict, the port, its addresses and counters) as a bounded key/value list. */
/* ports: where this serve's rc_write_bw, socket_bw and ib_write_bw listen (0: not running). */
void dr_facts(const struct dr_host *h, const char *dev, const char *sysfs, const unsigned ports[3],
              struct rb_hello *out);
/* The GID's address with its prefix on its netdev ("10.0.0.2/24"); "" when the netdev lacks it. */
void dr_gid_subnet(const struct dr_gid *g, char *out, size_t len);
/* Whether two "address/prefix" name one subnet (true when either is unknown). */
bool dr_same_subnet(const char *a, const char *b);
/* The VLAN a netdev tags with; -1: none. */
long dr_netdev_vlan(const char *ndev);
/* The HELLO both sides of a triage send: the tool, its version and the protocol. */
void dr_triage_hello(struct rb_hello *h);
/* A fact's value; "" when absent. */
const char *dr_fact(const struct rb_hello *f, const char *key);
long dr_fact_long(const struct rb_hello *f, const char *key, long dflt);

/* serve.c: --serve; returns the exit code. */
int dr_serve(const struct dr_triage_opts *o, const struct dr_roots *r, const struct rb_hca_filter *filt,
             const struct rb_addr_range *range, const char *hca);
/* triage.c: --peer; returns the exit code. */
int dr_triage(const struct dr_triage_opts *o, const struct dr_roots *r, const struct rb_hca_filter *filt,
              const struct rb_addr_range *range, const char *hca);
/* lossless.c: the class whose DCB the peer's serve is to judge, as an argument of the asker's HELLO. */
void dr_lossless_ask(struct rb_hello *h, int tclass);
/* lossless.c: the walk's RoCE step: where tclass lands at this end (dev) and the peer's (its facts). */
void dr_dcb_walk(struct dr_walk *w, const struct dr_dev *dev, const struct rb_hello *peer, int tclass);
/* The longest a --peer walk can take: every step's bound added. */
unsigned dr_triage_bound(const struct dr_triage_opts *o);

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/* RC queue pairs: create, and RESET -> INIT -> RTR -> RTS with every attribute settable. */
#ifndef RB_QP_H
#define RB_QP_H

#include "device.h"
#include "base/base.h"
#include "oob/oob.h"

#include <infiniband/verbs.h>
#include <stdint.h>

/* Path and reliability attributes (the user's; the MTU is negotiated down). */
struct rb_qp_opts {
	uint32_t mtu;           /* -m: bytes, 0 = the port's active MTU */
	uint32_t sl;            /* --sl */
	uint32_t tclass;        /* --tclass (RoCE traffic class / IB GRH) */
	uint32_t hop_limit;     /* --hop-limit */
	uint32_t pkey_index;    /* --pkey-index; RB_QP_PKEY_UNSET when not given */
	uint32_t timeout;       /* --qp-timeout: 4.096 us * 2^timeout */
	uint32_t retry_cnt;     /* --retry-cnt */
	uint32_t rnr_retry;     /* --rnr-retry (7 = forever) */
	uint32_t min_rnr_timer; /* --min-rnr-timer */
	bool cm;                /* -R: connect the QPs through rdma_cm (cm.h) */
};

#define RB_QP_HOP_LIMIT_DEFAULT 64
/* --pkey-index not given: index 0, or under -R the partition rdma_cm takes. */
#define RB_QP_PKEY_UNSET UINT32_MAX

void rb_qp_opts_default(struct rb_qp_opts *o);
struct rb_opt_table rb_qp_opt_table(struct rb_qp_opts *o);

/* Seconds an ACK timeout code stands for; 0 means "wait forever". */
double rb_qp_timeout_seconds(unsigned code);

struct rb_qp_caps {
	uint32_t send_wr, recv_wr, inline_bytes;
	/*
	 * IBV_QP_EX_WITH_* operations the caller posts through ibv_wr_* (extended QP);
	 * 0: ibv_post_send only.
	 */
	uint64_t send_ops;
	/* Receives come from this shared queue, the QP has none of its own (NULL: its own, recv_wr deep). */
	struct ibv_srq *srq;
};

/*
 * Creates an RC QP; on an inline request above the device limit says so. With
 * caps->send_ops, an extended QP whose ibv_wr_* interface *qpx points to; where
 * ibv_create_qp_ex fails, a plain QP, *qpx NULL (the caller falls back to
 * ibv_post_send) and *qpx_err its errno (a warning unless the provider has no
 * extended QPs: EOPNOTSUPP). qpx and qpx_err may be NULL without send_ops.
 */
int rb_qp_create(struct ibv_pd *pd, struct ibv_cq *scq, struct ibv_cq *rcq, const struct rb_qp_caps *caps,
                 struct ibv_qp **out, struct ibv_qp_ex **qpx, int *qpx_err);

/* What a QP's path uses, as applied: the header and documents record this, not the request. */
struct rb_qp_path {
	bool grh;
	const char *grh_why;           /* why a GRH is used, or why not */
	bool via_cm;                   /* -R: rdma_cm resolved the path, the options adjusted it */
	uint8_t sl, tclass, hop_limit; /* tclass and hop_limit only mean something with grh */
	uint16_t pkey_index;
	enum ibv_mtu mtu;
};

struct rb_av_port;
/* The local port's facts the address vector depends on (av.h). */
void rb_qp_av_port(const struct rb_device *d, struct rb_av_port *out);

/* Fills the local addressing half of a QPINFO entry (buffer fields left alone). */
void rb_qp_local_info(const struct rb_device *d, struct ibv_qp *qp, uint32_t psn, enum ibv_mtu mtu,
                      struct rb_qpinfo *out);

/*
 * Brings a fresh QP to RTS against the remote entry. access: the remote access
 * the QP grants (IBV_ACCESS_REMOTE_WRITE or 0). MTU = min(local, remote). The
 * address vector is rb_av_build's; *applied (may be NULL) records the path used.
 */
int rb_qp_connect(const struct rb_device *d, const struct rb_qp_opts *o, struct ibv_qp *qp, unsigned access,
                  const struct rb_qpinfo *local, const struct rb_qpinfo *remote, struct rb_qp_path *applied);

/* The MTU this side offers: the user's, capped at the port's active MTU. */
int rb_qp_local_mtu(const struct rb_device *d, const struct rb_qp_opts *o, enum ibv_mtu *out);

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * One side of an RC connection set: device, PD, CQs, N QPs, a source buffer the
 * local HCA reads and a target buffer the peer writes, their MRs, and the QPINFO
 * exchange that brings every QP to RTS. Shared by every verbs tool.
 */
#ifndef RB_CONN_H
#define RB_CONN_H

#include "host/host.h"
#include "device.h"
#include "measure/measure.h"
#include "mem.h"
#include "oob/oob.h"
#include "qp.h"
#include "readflush.h"
#include "relaxed.h"

struct rb_conn_cfg {
	unsigned nqps;
	struct rb_qp_caps caps;
	/*
	 * The send depth asked for (-t), held against max_qp_wr even where caps.send_wr is
	 * less (a queue made for what the run can have outstanding); 0: caps.send_wr.
	 */
	uint32_t send_depth;
	size_t src_per_qp; /* bytes of source per QP; 0 = none */
	size_t dst_per_qp; /* bytes of write target per QP; 0 = none (peer cannot write) */
	bool shared_buf;   /* one source and one target region for all QPs (no --verify) */
	bool recv_cq;      /* a separate receive CQ (WRITE_WITH_IMM, SEND) */
	bool event_cq;     /* completion channel for event-driven waits */
	bool dst_read;     /* the target region also takes RDMA READs (a flush READ) */
	/*
	 * The CPU polls the target region for arrival (a message's last byte): no
	 * relaxed ordering there, which would let that byte land before the rest.
	 */
	bool dst_polled;
	/*
	 * The CPU checks what arrives in the target region (--verify): in GPU memory
	 * whose path nothing orders, each check first takes the NIC's flush READ
	 * (readflush.h; the region then grants REMOTE_READ).
	 */
	bool dst_checked;
	bool ctl_own_tclass; /* the control QPs' traffic class is ctl_tclass, not --tclass */
	uint32_t ctl_tclass;
	const char *ctl_tclass_opt; /* the tool's option that set it, for warnings */
	/*
	 * The control QPs (ctl_tclass, path_ctl): the last of every block of ctl_every
	 * QPs (a channel's QP for the receiver's flow control, beside its data QPs); 0:
	 * the last QP only.
	 */
	unsigned ctl_every;
	/*
	 * The control QPs' own queues (a deep send queue and no receives, say); send_wr
	 * 0: the same as caps.
	 */
	struct rb_qp_caps ctl_caps;
	/*
	 * Control regions in host memory whatever --mem says (the CPU polls them):
	 * ctl_dst bytes the peer writes (its rkey and address travel in QPINFO), ctl_src
	 * bytes only the local HCA reads. 0 = none.
	 */
	size_t ctl_dst, ctl_src;
	/*
	 * CQ entries the run needs at once in normal operation (only signaled WRs
	 * complete); 0 = every WR of every QP. The CQ is made to hold every WR of every
	 * QP where max_cqe allows, because a QP in error completes each outstanding WR,
	 * signaled or not, and an overrun CQ would hide the completion that says why.
	 * Past max_cqe with the need itself, the setup is refused.
	 */
	uint32_t send_cqe, recv_cqe;
	/*
	 * Send CQs (a posting thread's own each): QP i completes on CQ rb_conn_scq_of(i),
	 * contiguous blocks of QPs, each CQ sized for its share of send_cqe. 0 or 1: one.
	 */
	unsigned send_cqs;
	/* Receive CQs with recv_cq, by the same block rule (a receiving thread's own each). 0 or 1: one. */
	unsigned recv_cqs;
};

/* The most send CQs a set-up makes (rb_conn_cfg.send_cqs). */
#define RB_CONN_MAX_SCQ 64

/* The bytes of buffers (source, target, control regions) a set-up with cfg allocates. */
uint64_t rb_conn_cfg_bytes(const struct rb_conn_cfg *cfg);

struct rb_conn {
	struct rb_device dev;
	struct ibv_pd *pd;
	struct ibv_comp_channel *chan;
	struct ibv_cq *scq, *rcq; /* the first send and receive CQs, scqs[0] and rcqs[0] */
	struct ibv_cq *scqs[RB_CONN_MAX_SCQ], *rcqs[RB_CONN_MAX_SCQ];
	unsigned nscq, nrcq;
	/*
	 * QPs that take no receives (caps.recv_wr 0) share this one-WR queue instead of a
	 * receive queue each (a page of the provider's memory per QP); NULL where the
	 * device has no SRQ.
	 */
	struct ibv_srq *srq;
	unsigned nqps;
	struct ibv_qp **qp; /* nqps */
	/* nqps: each QP's ibv_wr_* interface, where caps.send_ops asked and the provider has it; else NULL */
	struct ibv_qp_ex **qpx;
	int qpx_err; /* why ibv_create_qp_ex failed, where a QP fell back (errno) */
	struct rb_buf src, dst;
	struct rb_mr src_mr, dst_mr;
	struct rb_buf ctl_src, ctl_dst; /* host memory (cfg ctl_src, ctl_dst) */
	struct rb_mr ctl_src_mr, ctl_dst_mr;
	size_t src_per_qp, dst_per_qp;
	bool shared_buf;
	enum ibv_mtu mtu;
	struct rb_qpinfo_msg local, remote; /* nqps entries each */
	bool qps_connected;                 /* some QP left RESET for the peer's QPINFO */
	unsigned src_access, dst_access;    /* the source's and target region's access flags */
	struct rb_relaxed relaxed;          /* PCIe relaxed ordering for the data buffers */
	bool dst_polled;
	struct rb_readflush rf; /* the NIC's flush before checks of GPU memory; rf.qp NULL: none */
	bool ctl_own_tclass;
	uint32_t ctl_tclass;
	const char *ctl_tclass_opt;
	unsigned ctl_every;
	/* The paths as applied (QPINFO or rdma_cm): QP 0's, and the control QPs' (ctl_tclass). */
	struct rb_qp_path path, path_ctl;
	struct rb_pin pin; /* where the process runs: the buffers' NUMA node's CPUs */
	/*
	 * Set-up by phase, seconds: create (device, PD, CQs, QPs) and register (buffers
	 * and their MRs) in rb_conn_setup, exchange (QPINFO) and rtr_rts (INIT, RTR, RTS
	 * of every QP; 0 through rdma_cm, cm.c's) in rb_conn_exchange.
	 */
	double setup_create_s, setup_register_s, setup_exchange_s, setup_rtr_rts_s;
};

/* The send CQ of QP qi among n for nqps QPs: contiguous blocks, the first ones a QP larger. */
static inline unsigned rb_conn_scq_of(unsigned qi, unsigned n, unsigned nqps)
{
	return (unsigned)((uint64_t)qi * n / nqps);
}
/* The first QP of send CQ k among n (k = n: nqps). */
static inline unsigned rb_conn_scq_first(unsigned k, unsigned n, unsigned nqps)
{
	return (unsigned)(((uint64_t)k * nqps + n - 1) / n);
}

/* QP i of nqps is a control QP (rb_conn_cfg.ctl_every): its path is path_ctl, its class ctl_tclass. */
static inline bool rb_conn_ctl_of(unsigned i, unsigned ctl_every, unsigned nqps)
{
	return ctl_every ? i % ctl_every == ctl_every - 1 : i + 1 == nqps;
}
static inline bool rb_conn_ctl_qp(const struct rb_conn *c, unsigned i)
{
	return rb_conn_ctl_of(i, c->ctl_every, c->nqps);
}

/* Where QP qi's source and target regions start in c->src and c->dst. */
static inline size_t rb_conn_src_off(const struct rb_conn *c, unsigned qi)
{
	return c->shared_buf ? 0 : qi * c->src_per_qp;
}
static inline size_t rb_conn_dst_off(const struct rb_conn *c, unsigned qi)
{
	return c->shared_buf ? 0 : qi * c->dst_per_qp;
}
/* QP qi's source and target regions as the NIC addresses them; NULL on a side that has none. */
static inline uint8_t *rb_conn_src(const struct rb_conn *c, unsigned qi)
{
	return c->src.addr ? (uint8_t *)c->src.addr + rb_conn_src_off(c, qi) : NULL;
}
static inline uint8_t *rb_conn_dst(const struct rb_conn *c, unsigned qi)
{
	return c->dst.addr ? (uint8_t *)c->dst.addr + rb_conn_dst_off(c, qi) : NULL;
}

/*
 * Makes len bytes at off of the target region readable at its host view for a
 * check: the NIC's flush READ where the connection has one, then the copy out of
 * GPU memory (free for host memory). 0 or -errno.
 */
int rb_conn_pull_dst(struct rb_conn *c, size_t off, size_t len, unsigned timeout_s);

/* Opens the device and creates every object. On error all is released. */
int rb_conn_setup(struct rb_conn *c, const struct rb_dev_opts *dopt, const struct rb_qp_opts *qopt,
                  const struct rb_mem_opts *mopt, const struct rb_conn_cfg *cfg);

/*
 * Exchanges QPINFO with the peer, validates it (QP count, MTU, that the peer's
 * buffer holds need_remote bytes per QP and its control region as many bytes as
 * ours) and moves every QP to RTS.
 */
int rb_conn_exchange(struct rb_conn *c, struct rb_oob *o, const struct rb_qp_opts *qopt, size_t need_remote);

void rb_conn_destroy(struct rb_conn *c);

/* Header lines: memory, MR timing, MTU, the path as applied, QP numbers. */
void rb_conn_describe(const struct rb_conn *c, const struct rb_qp_opts *qopt, FILE *f);
/* The "Path" header line: QPINFO or rdma_cm, SL, P_Key index, GRH and why, or why not. */
void rb_conn_describe_path(const struct rb_qp_path *p, FILE *f);
/* A warning naming --tclass / --hop-limit (and the control QPs' own class) when a path has no GRH to carry
 * them. */
void rb_conn_warn_unapplied(const struct rb_conn *c, const struct rb_qp_opts *qopt);
/* The MTU both sides settled on (rdma_cm's route may lower it). */
enum ibv_mtu rb_conn_path_mtu(const struct rb_conn *c);
/* How the connection's packets are framed on the wire (wirerate.h): link layer, GID type, GRH. */
enum rb_wire_kind rb_conn_wire_kind(const struct rb_conn *c);
/* A bandwidth row's share of the link and of the wire for WRITEs of size (rb_wire_row); links as there. */
void rb_conn_wire_row(const struct rb_conn *c, struct rb_row *row, double bw_gbps, uint64_t size, bool imm,
                      unsigned links);

#endif

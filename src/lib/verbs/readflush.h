/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The NIC's own flush of its writes into GPU memory (NCCL's flush READ): a QP
 * connected to itself reads one byte of the region through the same NIC. The READ's
 * response leaves the GPU only after the writes the NIC posted before it over that
 * path, so once it completes a copy out of the region sees them. Used before a check
 * reads GPU memory where nothing else orders the path: the driver cannot flush, or
 * the dma-buf export took the PCIe mapping type, whose path the GPU's write-order
 * attribute does not describe.
 */
#ifndef RB_READFLUSH_H
#define RB_READFLUSH_H

#include "device.h"
#include "qp.h"

#include <infiniband/verbs.h>
#include <stdint.h>

/* A QP on pd connected to itself (its CQs scq, rcq), granting access; 0 or -errno. */
int rb_qp_self(const struct rb_device *d, struct ibv_pd *pd, struct ibv_cq *scq, struct ibv_cq *rcq,
               const struct rb_qp_opts *q, enum ibv_mtu mtu, unsigned access, struct ibv_qp **qp);

struct rb_readflush {
	struct ibv_qp *qp;
	struct ibv_cq *cq;
	bool own_cq;            /* the CQ is the flush's (else the caller's) */
	struct ibv_mr *sink_mr; /* where the byte read lands */
	uint64_t sink;
	unsigned long long reads;
};

/*
 * A QP on pd connected to itself and the sink its READ lands in; cq the caller's
 * (whose poll takes the READ's completion, as NCCL's flush shares its receive CQ), or
 * NULL for one of its own. 0 or -errno (nothing left behind).
 */
int rb_readflush_open(struct rb_readflush *f, const struct rb_device *d, struct ibv_pd *pd,
                      const struct rb_qp_opts *q, enum ibv_mtu mtu, struct ibv_cq *cq);
/* Posts the READ of the byte at addr (rkey's region, REMOTE_READ granted), signaled as wr_id. */
int rb_readflush_post(struct rb_readflush *f, uint64_t addr, uint32_t rkey, uint64_t wr_id);
/* With a CQ of its own: posts the READ and waits for it, timeout_s at most. */
int rb_readflush_run(struct rb_readflush *f, uint64_t addr, uint32_t rkey, unsigned timeout_s);
void rb_readflush_close(struct rb_readflush *f);

#endif

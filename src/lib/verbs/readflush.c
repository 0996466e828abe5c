/* SPDX-License-Identifier: BSD-2-Clause */
#include "readflush.h"

#include "cq.h"

#include "base/base.h"

#include <errno.h>
#include <string.h>

int rb_qp_self(const struct rb_device *d, struct ibv_pd *pd, struct ibv_cq *scq, struct ibv_cq *rcq,
               const struct rb_qp_opts *q, enum ibv_mtu mtu, unsigned access, struct ibv_qp **qp)
{
	struct rb_qp_caps caps = {.send_wr = 4, .recv_wr = 1};
	struct rb_qpinfo self;
	int ret = rb_qp_create(pd, scq, rcq, &caps, qp, NULL, NULL);

	if (ret)
		return ret;
	rb_qp_local_info(d, *qp, 0x1234, mtu, &self);
	ret = rb_qp_connect(d, q, *qp, access, &self, &self, NULL);
	if (ret) {
		ibv_destroy_qp(*qp);
		*qp = NULL;
	}
	return ret;
}

int rb_readflush_open(struct rb_readflush *f, const struct rb_device *d, struct ibv_pd *pd,
                      const struct rb_qp_opts *q, enum ibv_mtu mtu, struct ibv_cq *cq)
{
	int ret;

	memset(f, 0, sizeof(*f));
	f->own_cq = !cq;
	f->cq = cq ? cq : ibv_create_cq(d->ctx, 4, NULL, NULL, 0);
	if (!f->cq) {
		ret = errno ? -errno : -ENOMEM;
		rb_err("ibv_create_cq (the flush READ's) failed: %s", strerror(-ret));
		return ret;
	}
	f->sink_mr = ibv_reg_mr(pd, &f->sink, sizeof(f->sink), IBV_ACCESS_LOCAL_WRITE);
	if (!f->sink_mr) {
		ret = errno ? -errno : -ENOMEM;
		rb_err("ibv_reg_mr (the flush READ's 8-byte sink) failed: %s", strerror(-ret));
		rb_readflush_close(f);
		return ret;
	}
	ret = rb_qp_self(d, pd, f->cq, f->cq, q, mtu, IBV_ACCESS_REMOTE_READ, &f->qp);
	if (ret)
		rb_readflush_close(f);
	return ret;
}

int rb_readflush_post(struct rb_readflush *f, uint64_t addr, uint32_t rkey, uint64_t wr_id)
{
	struct ibv_sge sge = {(uint64_t)(uintptr_t)&f->sink, 1, f->sink_mr->lkey};
	struct ibv_send_wr wr = {.wr_id = wr_id,
	                         .sg_list = &sge,
	                         .num_sge = 1,
	                         .opcode = IBV_WR_RDMA_READ,
	                         .send_flags = IBV_SEND_SIGNALED,
	                         .wr.rdma = {addr, rkey}},
	                   *bad;
	int ret = ibv_post_send(f->qp, &wr, &bad);

	if (ret)
		rb_err("ibv_post_send (flush READ) failed: %s", strerror(ret));
	return -ret;
}

int rb_readflush_run(struct rb_readflush *f, uint64_t addr, uint32_t rkey, unsigned timeout_s)
{
	uint64_t t0 = rb_now_ns();
	struct ibv_wc wc;
	char why[256];
	int ret = rb_readflush_post(f, addr, rkey, f->reads);

	if (ret)
		return ret;
	while ((ret = rb_cq_poll(f->cq, &wc, 1, "RDMA_READ", why, sizeof(why))) == 0)
		if (rb_now_ns() - t0 > (uint64_t)timeout_s * RB_NS_PER_S) {
			rb_err("no completion of the flush READ for %u s (--timeout)", timeout_s);
			return -ETIMEDOUT;
		}
	if (ret < 0)
		return ret;
	f->reads++;
	return 0;
}

void rb_readflush_close(struct rb_readflush *f)
{
	if (f->qp)
		ibv_destroy_qp(f->qp);
	if (f->sink_mr)
		ibv_dereg_mr(f->sink_mr);
	if (f->cq && f->own_cq)
		ibv_destroy_cq(f->cq);
	memset(f, 0, sizeof(*f));
}

/* SPDX-License-Identifier: BSD-2-Clause */
#include "conn.h"

#include "av.h"
#include "gpu/gpu.h"
#include "host/host.h"
#include "linkrate.h"

#include "base/base.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint32_t random_psn(void)
{
	return (uint32_t)random() & 0xffffff;
}

/* QP i's queues: the control QPs' own where the configuration gives them. */
static const struct rb_qp_caps *qp_caps(const struct rb_conn_cfg *cfg, unsigned i)
{
	return cfg->ctl_caps.send_wr && rb_conn_ctl_of(i, cfg->ctl_every, cfg->nqps) ? &cfg->ctl_caps
	                                                                             : &cfg->caps;
}

/*
 * CQ entries: every WR of the CQ's QPs (all) where the device allows, at least
 * `need` (0: all of them), refused when the device cannot hold the need.
 */
static int cq_size(const struct rb_conn *c, const char *what, uint64_t need, uint64_t all, unsigned nqps,
                   int *out)
{
	uint64_t max = (uint64_t)c->dev.attr.max_cqe;
	uint64_t n = need ? need : all;

	if (n == 0)
		n = 1;
	if (n > max) {
		char why[80];

		if (n % nqps == 0)
			snprintf(why, sizeof(why), "%u QPs x %llu outstanding", nqps,
			         (unsigned long long)(n / nqps));
		else
			snprintf(why, sizeof(why), "the work requests %u QPs can have outstanding", nqps);
		rb_usage_err(
		    "%s CQ needs %llu entries (%s) but %s allows %d per CQ (max_cqe); lower -q or the "
		    "queue depth",
		    what, (unsigned long long)n, why, c->dev.name, c->dev.attr.max_cqe);
		return -EINVAL;
	}
	if (all > n) {
		n = all < max ? all : max;
		if (n < all)
			rb_dbg("%s CQ: %llu entries (max_cqe); an error that flushes all %llu WRs can "
			       "overrun it",
			       what, (unsigned long long)n, (unsigned long long)all);
	}
	*out = (int)n;
	return 0;
}

/*
 * Send or receive CQ k of n: its QPs (rb_conn_scq_of, a block each) and their share of
 * the need. Only receive completions are waited for by event; sends are always polled.
 */
static int create_cq(struct rb_conn *c, const struct rb_conn_cfg *cfg, unsigned k, unsigned n, bool recv)
{
	unsigned q0 = rb_conn_scq_first(k, n, cfg->nqps), q1 = rb_conn_scq_first(k + 1, n, cfg->nqps);
	uint32_t cqe = recv ? cfg->recv_cqe : cfg->send_cqe;
	uint64_t need = cqe ? ((uint64_t)cqe * (q1 - q0) + cfg->nqps - 1) / cfg->nqps : 0, all = 0;
	struct ibv_cq **cq = recv ? &c->rcqs[k] : &c->scqs[k];
	int entries, ret;

	for (unsigned i = q0; i < q1; i++)
		all += recv ? qp_caps(cfg, i)->recv_wr : qp_caps(cfg, i)->send_wr;
	ret = cq_size(c, recv ? "receive" : "send", need, all, q1 > q0 ? q1 - q0 : 1, &entries);
	if (ret)
		return ret;
	*cq = ibv_create_cq(c->dev.ctx, entries, NULL, recv ? c->chan : NULL, 0);
	if (!*cq) {
		ret = errno ? -errno : -ENOMEM;
		rb_err("ibv_create_cq(%d entries) on %s failed: %s", entries, c->dev.name, strerror(-ret));
		return ret;
	}
	*(recv ? &c->nrcq : &c->nscq) = k + 1;
	return 0;
}

static int create_cqs(struct rb_conn *c, const struct rb_conn_cfg *cfg)
{
	unsigned n = cfg->send_cqs > 1 ? cfg->send_cqs : 1, nr = cfg->recv_cqs > 1 ? cfg->recv_cqs : 1;
	int ret = 0;

	if (n > RB_CONN_MAX_SCQ || n > cfg->nqps || nr > RB_CONN_MAX_SCQ || nr > cfg->nqps) {
		rb_usage_err("%u send and %u receive CQs for %u QPs (allowed: 1 to the QP count, at most %d)",
		             n, nr, cfg->nqps, RB_CONN_MAX_SCQ);
		return -EINVAL;
	}
	for (unsigned k = 0; k < n && !ret; k++)
		ret = create_cq(c, cfg, k, n, false);
	for (unsigned k = 0; cfg->recv_cq && k < nr && !ret; k++)
		ret = create_cq(c, cfg, k, nr, true);
	c->scq = c->nscq ? c->scqs[0] : NULL;
	c->rcq = c->nrcq ? c->rcqs[0] : NULL; /* never one a previous set-up destroyed (--persist) */
	return ret;
}

/* The control regions: host memory on the device's node, whatever the data's kind. */
static int ctl_regions(struct rb_conn *c, const struct rb_conn_cfg *cfg, const struct rb_mem_opts *mopt)
{
	struct rb_mem_opts host = *mopt;
	int ret = 0;

	host.kind = RB_MEM_HOST;
	host.hugepages = false;
	if (cfg->ctl_src && !(ret = rb_buf_alloc(&c->ctl_src, cfg->ctl_src, &host, c->dev.numa_node)))
		ret = rb_mr_reg(c->pd, &c->ctl_src, 0, &c->ctl_src_mr);
	if (!ret && cfg->ctl_dst && !(ret = rb_buf_alloc(&c->ctl_dst, cfg->ctl_dst, &host, c->dev.numa_node)))
		ret = rb_mr_reg(c->pd, &c->ctl_dst, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE,
		                &c->ctl_dst_mr);
	if (!ret && cfg->ctl_dst)
		c->local.ctl = (struct rb_region){(uint64_t)(uintptr_t)c->ctl_dst.addr, cfg->ctl_dst,
		                                  c->ctl_dst_mr.mr->rkey};
	return ret;
}

/*
 * QPs that take no receives: one shared receive queue of one WR for all of them,
 * where the device has SRQs, so that no QP maps a receive queue it never uses.
 */
static struct ibv_srq *no_recv_srq(const struct rb_conn *c, const struct rb_conn_cfg *cfg)
{
	struct ibv_srq_init_attr a = {.attr = {.max_wr = 1, .max_sge = 1}};
	const struct rb_qp_caps *ctl = cfg->ctl_caps.send_wr ? &cfg->ctl_caps : &cfg->caps;
	struct ibv_srq *srq;

	if (((cfg->caps.recv_wr || cfg->caps.srq) && (ctl->recv_wr || ctl->srq)) || c->dev.attr.max_srq <= 0)
		return NULL;
	srq = ibv_create_srq(c->pd, &a);
	if (!srq)
		rb_dbg("ibv_create_srq on %s failed (%s): a receive queue per QP", c->dev.name,
		       strerror(errno));
	return srq;
}

/* Whether checks of the target region need the NIC's flush READ (readflush.h), before or after its export. */
static bool nic_flush(const struct rb_conn_cfg *cfg, const struct rb_mem_opts *mopt, bool before_export)
{
	return cfg->dst_checked && cfg->dst_per_qp && mopt->kind != RB_MEM_HOST &&
	       rb_gpu_nic_flush_wanted(before_export);
}

/* The source and target buffers (one region for all QPs, or one per QP) and the control regions, registered.
 */
static int register_bufs(struct rb_conn *c, const struct rb_conn_cfg *cfg, const struct rb_mem_opts *mopt)
{
	unsigned nbuf = cfg->shared_buf ? 1 : cfg->nqps;
	int ret = 0;

	if (cfg->src_per_qp) {
		ret = rb_buf_alloc(&c->src, cfg->src_per_qp * nbuf, mopt, c->dev.numa_node);
		/* The source is only read by the local HCA: no access flags but the ordering. */
		c->src_access = rb_relaxed_access(&c->relaxed);
		if (!ret)
			ret = rb_mr_reg(c->pd, &c->src, c->src_access, &c->src_mr);
		if (ret)
			return ret;
	}
	if (cfg->dst_per_qp) {
		/* The peer writes here; REMOTE_WRITE requires LOCAL_WRITE. Nothing else unless asked. */
		c->dst_access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		                (cfg->dst_read || nic_flush(cfg, mopt, true) ? IBV_ACCESS_REMOTE_READ : 0) |
		                (cfg->dst_polled ? 0 : rb_relaxed_access(&c->relaxed));
		ret = rb_buf_alloc(&c->dst, cfg->dst_per_qp * nbuf, mopt, c->dev.numa_node);
		if (!ret)
			ret = rb_mr_reg(c->pd, &c->dst, c->dst_access, &c->dst_mr);
		if (ret)
			return ret;
	}
	if (cfg->ctl_dst || cfg->ctl_src)
		ret = ctl_regions(c, cfg, mopt);
	return ret;
}

int rb_conn_setup(struct rb_conn *c, const struct rb_dev_opts *dopt, const struct rb_qp_opts *qopt,
                  const struct rb_mem_opts *mopt, const struct rb_conn_cfg *cfg)
{
	uint64_t t0 = rb_now_ns(), t;
	uint32_t depth = cfg->send_depth > cfg->caps.send_wr ? cfg->send_depth : cfg->caps.send_wr;
	int ret;

	/* The deepest queue any QP asks for. */
	depth = depth > cfg->caps.recv_wr ? depth : cfg->caps.recv_wr;
	depth = depth > cfg->ctl_caps.send_wr ? depth : cfg->ctl_caps.send_wr;
	depth = depth > cfg->ctl_caps.recv_wr ? depth : cfg->ctl_caps.recv_wr;

	memset(c, 0, sizeof(*c));
	if (cfg->nqps == 0 || cfg->nqps > RB_WIRE_MAX_QPS) {
		rb_usage_err("%u QPs requested (allowed: 1 to %u)", cfg->nqps, RB_WIRE_MAX_QPS);
		return -EINVAL;
	}
	ret = rb_device_open(dopt, &c->dev);
	if (ret)
		return ret;
	if (cfg->nqps > (unsigned)c->dev.attr.max_qp) {
		rb_usage_err("%u QPs requested but %s allows %d (max_qp)", cfg->nqps, c->dev.name,
		             c->dev.attr.max_qp);
		ret = -EINVAL;
		goto fail;
	}
	if (depth > (unsigned)c->dev.attr.max_qp_wr) {
		rb_usage_err("queue depth %u exceeds the %d work requests per queue %s allows (max_qp_wr)",
		             depth, c->dev.attr.max_qp_wr, c->dev.name);
		ret = -EINVAL;
		goto fail;
	}
	c->qp = calloc(cfg->nqps, sizeof(*c->qp));
	c->qpx = calloc(cfg->nqps, sizeof(*c->qpx));
	c->local.qp = calloc(cfg->nqps, sizeof(*c->local.qp));
	c->remote.qp = calloc(cfg->nqps, sizeof(*c->remote.qp));
	if (!c->qp || !c->qpx || !c->local.qp || !c->remote.qp) {
		rb_err("out of memory for %u QPs", cfg->nqps);
		ret = -ENOMEM;
		goto fail;
	}
	ret = rb_qp_local_mtu(&c->dev, qopt, &c->mtu);
	if (ret)
		goto fail;
	/* Before the buffers are touched: the polling CPU and the memory on one node. */
	rb_pin_to_node(&c->pin, mopt->numa_node >= 0 ? mopt->numa_node : c->dev.numa_node);
	c->pd = ibv_alloc_pd(c->dev.ctx);
	if (!c->pd) {
		ret = errno ? -errno : -ENOMEM;
		rb_err("ibv_alloc_pd on %s failed: %s", c->dev.name, strerror(-ret));
		goto fail;
	}
	rb_relaxed_choose(c->pd, mopt->no_relaxed, &c->relaxed);
	c->dst_polled = cfg->dst_polled;
	/* GPU memory: the GPU and what it and the NIC can do, before anything is registered. */
	if (mopt->kind != RB_MEM_HOST &&
	    ((ret = rb_gpu_open(mopt->gpu, mopt->bus_id)) ||
	     (ret = rb_gpu_check_nic(c->pd, c->dev.name, mopt->kind == RB_MEM_CUDA_DMABUF,
	                             mopt->dmabuf_map < 0 ? RB_DMABUF_ASK_AUTO : mopt->dmabuf_map))))
		goto fail;
	if (cfg->event_cq) {
		c->chan = ibv_create_comp_channel(c->dev.ctx);
		if (!c->chan) {
			ret = errno ? -errno : -ENOMEM;
			rb_err("ibv_create_comp_channel failed: %s", strerror(-ret));
			goto fail;
		}
	}
	ret = create_cqs(c, cfg);
	if (ret)
		goto fail;
	c->nqps = cfg->nqps;
	c->src_per_qp = cfg->src_per_qp;
	c->dst_per_qp = cfg->dst_per_qp;
	c->shared_buf = cfg->shared_buf;
	c->ctl_own_tclass = cfg->ctl_own_tclass;
	c->ctl_tclass = cfg->ctl_tclass;
	c->ctl_tclass_opt = cfg->ctl_tclass_opt ? cfg->ctl_tclass_opt : "the control QPs' traffic class";
	c->ctl_every = cfg->ctl_every;
	t = rb_now_ns();
	ret = register_bufs(c, cfg, mopt);
	c->setup_register_s = (double)(rb_now_ns() - t) / 1e9;
	if (!ret && mopt->kind != RB_MEM_HOST) {
		bool on = nic_flush(cfg, mopt, false);

		rb_gpu_nic_flush_set(on);
		if (on)
			ret = rb_readflush_open(&c->rf, &c->dev, c->pd, qopt, c->mtu, NULL);
	}
	if (ret)
		goto fail;
	c->srq = no_recv_srq(c, cfg);
	for (unsigned i = 0; i < cfg->nqps; i++) {
		struct ibv_cq *scq = c->scqs[rb_conn_scq_of(i, c->nscq, cfg->nqps)];
		struct ibv_cq *rcq = c->nrcq ? c->rcqs[rb_conn_scq_of(i, c->nrcq, cfg->nqps)] : scq;
		struct rb_qp_caps caps = *qp_caps(cfg, i);

		if (!caps.recv_wr && !caps.srq)
			caps.srq = c->srq;
		ret = rb_qp_create(c->pd, scq, rcq, &caps, &c->qp[i], &c->qpx[i], &c->qpx_err);
		if (ret)
			goto fail;
		rb_qp_local_info(&c->dev, c->qp[i], random_psn(), c->mtu, &c->local.qp[i]);
		if (cfg->dst_per_qp) {
			c->local.qp[i].addr = (uint64_t)(uintptr_t)rb_conn_dst(c, i);
			c->local.qp[i].len = cfg->dst_per_qp;
			c->local.qp[i].stride = cfg->shared_buf ? 0 : cfg->dst_per_qp;
			c->local.qp[i].rkey = c->dst_mr.mr->rkey;
		}
	}
	c->local.count = cfg->nqps;
	c->setup_create_s = (double)(rb_now_ns() - t0) / 1e9 - c->setup_register_s;
	rb_dbg("%u QPs, %u send and %u receive CQs created on %s (%.3f s; registration %.3f s)", c->nqps,
	       c->nscq, c->nrcq, c->dev.name, c->setup_create_s, c->setup_register_s);
	return 0;
fail:
	rb_conn_destroy(c);
	return ret;
}

/* One QPINFO frame of the peer's into c->remote; *filled counts the entries known. */
static int recv_qpinfo(struct rb_conn *c, struct rb_oob *o, unsigned *filled)
{
	struct rb_frame fr;
	int ret = rb_oob_expect(o, RB_MSG_QPINFO, &fr, -1);

	if (ret)
		return ret;
	ret = rb_qpinfo_decode(fr.p, fr.len, &c->remote, c->nqps, *filled, filled);
	if (ret == -E2BIG || (!ret && *filled == c->remote.count && c->remote.count != c->nqps)) {
		rb_usage_err("peer %s has %u QPs, this side has %u (-q must match)", o->peer, c->remote.count,
		             c->nqps);
		rb_oob_send_error(o, "QP count mismatch: %u here, %u from you", c->nqps, c->remote.count);
		return -EINVAL;
	}
	if (ret) {
		rb_err("malformed QPINFO from %s (after %u of its QPs)", o->peer, *filled);
		rb_oob_send_error(o, "malformed QPINFO frame");
		return -EPROTO;
	}
	return 0;
}

/*
 * Frame f of ours, then frame f of the peer's: each direction has at most one
 * frame in flight, so two sides with many QPs never both block on a full socket.
 */
static int swap_qpinfo(struct rb_conn *c, struct rb_oob *o)
{
	uint32_t cap = rb_msg_max_len(RB_MSG_QPINFO);
	uint8_t *buf = malloc(cap);
	unsigned mine = rb_qpinfo_frames(c->local.count), filled = 0;
	int ret = 0;

	if (!buf) {
		rb_err("out of memory");
		return -ENOMEM;
	}
	c->remote.count = 0;
	for (unsigned f = 0; !ret && (f < mine || filled < c->remote.count); f++) {
		if (f < mine) {
			struct rb_wbuf w = {buf, 0, cap, false};
			rb_qpinfo_encode(&w, &c->local, f);
			ret = rb_oob_send_w(o, RB_MSG_QPINFO, &w);
		}
		if (!ret && (f == 0 || filled < c->remote.count))
			ret = recv_qpinfo(c, o, &filled);
	}
	free(buf);
	return ret;
}

/* Everything the peer said about its QPs is checked before any QP is touched. */
static int check_remote(struct rb_conn *c, struct rb_oob *o, size_t need_remote)
{
	const struct rb_qpinfo *r = &c->remote.qp[0];

	if (need_remote && (r->len < need_remote || !r->addr)) {
		rb_err("peer's buffer is %llu bytes per QP, %zu needed", (unsigned long long)r->len,
		       need_remote);
		rb_oob_send_error(o, "your buffer is %llu bytes per QP, %zu needed",
		                  (unsigned long long)r->len, need_remote);
		return -EPROTO;
	}
	if (c->local.ctl.len && c->remote.ctl.len < c->local.ctl.len) {
		rb_err("peer's control region is %llu bytes, %llu needed",
		       (unsigned long long)c->remote.ctl.len, (unsigned long long)c->local.ctl.len);
		rb_oob_send_error(o, "your control region is %llu bytes, %llu needed",
		                  (unsigned long long)c->remote.ctl.len,
		                  (unsigned long long)c->local.ctl.len);
		return -EPROTO;
	}
	/* InfiniBand forwards by the LRH's DLID, GRH or not (av.h). */
	if (!c->dev.roce && r->lid == 0) {
		rb_err("peer has LID 0 on an InfiniBand port (is a subnet manager running?)");
		rb_oob_send_error(o, "LID 0 on an InfiniBand link");
		return -EPROTO;
	}
	return 0;
}

int rb_conn_exchange(struct rb_conn *c, struct rb_oob *o, const struct rb_qp_opts *qopt, size_t need_remote)
{
	unsigned access = c->dst_per_qp ? IBV_ACCESS_REMOTE_WRITE : 0;
	uint64_t t0 = rb_now_ns(), t1;
	int ret = swap_qpinfo(c, o);

	t1 = rb_now_ns();
	c->setup_exchange_s = (double)(t1 - t0) / 1e9;
	/* Silence or a hang-up before any QP moved: to a server, a stranger like garbage. */
	if (ret == -ECONNRESET || ret == -ETIMEDOUT)
		ret = -EPROTO;
	if (!ret)
		ret = check_remote(c, o, need_remote);
	/* Through rdma_cm the QPs are connected by the caller (cm.h); QPINFO gave the buffers. */
	for (unsigned i = 0; i < c->nqps && !ret && !qopt->cm; i++) {
		struct rb_qp_opts q = *qopt;

		if (rb_conn_ctl_qp(c, i) && c->ctl_own_tclass)
			q.tclass = c->ctl_tclass;
		c->qps_connected = true;
		ret = rb_qp_connect(&c->dev, &q, c->qp[i], access, &c->local.qp[i], &c->remote.qp[i],
		                    rb_conn_ctl_qp(c, i) ? &c->path_ctl : &c->path);
		if (ret)
			rb_oob_send_error(o, "QP %u did not reach RTS on the peer", i);
	}
	if (!ret && !qopt->cm) {
		c->setup_rtr_rts_s = (double)(rb_now_ns() - t1) / 1e9;
		if (c->nqps == 1)
			c->path = c->path_ctl;
		rb_conn_warn_unapplied(c, qopt);
	}
	if (!ret)
		rb_dbg(
		    "set-up: create %.1f ms, register %.1f ms, exchange %.1f ms, RTR/RTS %.1f ms for %u QPs",
		    c->setup_create_s * 1e3, c->setup_register_s * 1e3, c->setup_exchange_s * 1e3,
		    c->setup_rtr_rts_s * 1e3, c->nqps);
	return ret;
}

void rb_conn_warn_unapplied(const struct rb_conn *c, const struct rb_qp_opts *qopt)
{
	char what[64];

	if (*rb_av_unapplied(&c->path, qopt, what, sizeof(what)))
		rb_warn("%s not applied: the path has no GRH (%s)%s", what + 1, c->path.grh_why,
		        c->path.via_cm ? "" : "; -x IDX adds one");
	/* The control QPs' path is their own: QP 0's says nothing of it. */
	if (c->ctl_own_tclass &&
	    *rb_av_ctl_unapplied(&c->path_ctl, c->ctl_tclass, c->ctl_tclass_opt, what, sizeof(what)))
		rb_warn("%s not applied: the control QPs' path has no GRH (%s)%s", what + 1,
		        c->path_ctl.grh_why, c->path_ctl.via_cm ? "" : "; -x IDX adds one");
}

int rb_conn_pull_dst(struct rb_conn *c, size_t off, size_t len, unsigned timeout_s)
{
	int ret;

	if (c->rf.qp) {
		ret = rb_readflush_run(&c->rf, (uint64_t)(uintptr_t)c->dst.addr + off, c->dst_mr.mr->rkey,
		                       timeout_s);
		if (ret)
			return ret;
		rb_dbg("flush READ of the target region at +%zu complete (%llu so far)", off, c->rf.reads);
	}
	return rb_buf_pull(&c->dst, off, len);
}

void rb_conn_destroy(struct rb_conn *c)
{
	rb_readflush_close(&c->rf);
	for (unsigned i = 0; c->qp && i < c->nqps; i++)
		if (c->qp[i])
			ibv_destroy_qp(c->qp[i]);
	if (c->srq)
		ibv_destroy_srq(c->srq);
	c->srq = NULL;
	free(c->qp);
	free(c->qpx);
	c->qpx = NULL;
	free(c->local.qp);
	free(c->remote.qp);
	c->qp = NULL;
	c->local.qp = c->remote.qp = NULL;
	rb_mr_dereg(&c->src_mr);
	rb_mr_dereg(&c->dst_mr);
	rb_mr_dereg(&c->ctl_src_mr);
	rb_mr_dereg(&c->ctl_dst_mr);
	rb_buf_free(&c->src);
	rb_buf_free(&c->dst);
	rb_buf_free(&c->ctl_src);
	rb_buf_free(&c->ctl_dst);
	for (unsigned k = 0; k < c->nrcq; k++)
		ibv_destroy_cq(c->rcqs[k]);
	for (unsigned k = 0; k < c->nscq; k++)
		ibv_destroy_cq(c->scqs[k]);
	memset(c->rcqs, 0, sizeof(c->rcqs));
	memset(c->scqs, 0, sizeof(c->scqs));
	c->nscq = c->nrcq = 0;
	if (c->chan)
		ibv_destroy_comp_channel(c->chan);
	if (c->pd)
		ibv_dealloc_pd(c->pd);
	c->rcq = c->scq = NULL;
	c->chan = NULL;
	c->pd = NULL;
	rb_device_close(&c->dev);
}

static void describe_buf(FILE *f, const char *what, const struct rb_buf *b, const struct rb_mr *m,
                         unsigned access)
{
	char acc[96], hp[40] = "";

	if (!b->addr)
		return;
	if (b->huge) {
		char n[24];
		snprintf(hp, sizeof(hp), " on %s huge pages", rb_hugepage_name(b->huge, n, sizeof(n)));
	}
	if (b->kind != RB_MEM_HOST)
		fprintf(f, " %-15s: %zu B GPU memory at 0x%llx (%s), registered in %.0f us, access %s\n",
		        what, b->len, (unsigned long long)(uintptr_t)b->addr,
		        b->kind == RB_MEM_CUDA ? "ibv_reg_mr, peermem" : "dma-buf, ibv_reg_dmabuf_mr",
		        m->reg_us, rb_access_fmt(access, acc, sizeof(acc)));
	else
		fprintf(f, " %-15s: %zu B host%s, NUMA %s%d, registered in %.0f us, access %s\n", what,
		        b->len, hp, b->numa_node < 0 ? "unbound " : "", b->numa_node, m->reg_us,
		        rb_access_fmt(access, acc, sizeof(acc)));
}

void rb_conn_describe_path(const struct rb_qp_path *p, FILE *f)
{
	fprintf(f, " Path           : %s, SL %u, P_Key index %u, ", p->via_cm ? "rdma_cm" : "QPINFO", p->sl,
	        p->pkey_index);
	if (p->grh)
		fprintf(f, "GRH (%s): traffic class %u, hop limit %u\n", p->grh_why, p->tclass, p->hop_limit);
	else
		fprintf(f, "no GRH (%s)\n", p->grh_why);
}

enum rb_wire_kind rb_conn_wire_kind(const struct rb_conn *c)
{
	if (!c->dev.roce)
		return c->path.grh ? RB_WIRE_IB_GRH : RB_WIRE_IB;
	if (c->dev.gid.type == RB_GID_ROCE_V1)
		return RB_WIRE_ROCE_V1;
	return rb_gid_is_ipv4(c->dev.gid.raw) ? RB_WIRE_ROCE_V2_IPV4 : RB_WIRE_ROCE_V2_IPV6;
}

void rb_conn_wire_row(const struct rb_conn *c, struct rb_row *row, double bw_gbps, uint64_t size, bool imm,
                      unsigned links)
{
	double link = rb_port_gbps(&c->dev.port_attr);

	rb_wire_row(
	    row, bw_gbps, link,
	    rb_wire_max_gbps(rb_conn_wire_kind(c), link, size, rb_mtu_bytes(rb_conn_path_mtu(c)), imm),
	    links);
}

enum ibv_mtu rb_conn_path_mtu(const struct rb_conn *c)
{
	enum ibv_mtu r = (enum ibv_mtu)c->remote.qp[0].mtu;

	if (c->path.mtu)
		return c->path.mtu;
	return c->mtu < r ? c->mtu : r;
}

void rb_conn_describe(const struct rb_conn *c, const struct rb_qp_opts *qopt, FILE *f)
{
	char gid[64];

	rb_gpu_describe(f);
	rb_pin_describe(&c->pin, f);
	describe_buf(f, "Source buffer", &c->src, &c->src_mr, c->src_access);
	describe_buf(f, "Target buffer", &c->dst, &c->dst_mr, c->dst_access);
	fprintf(f, " PCIe ordering  : %s (%s)%s\n", c->relaxed.on ? "relaxed" : "strict", c->relaxed.why,
	        c->relaxed.on && c->dst_polled && c->dst.addr
	            ? "; not on the target buffer, where arrival is polled"
	            : "");
	fprintf(f, " Path MTU       : %u B (local %u, remote %u%s)\n", rb_mtu_bytes(rb_conn_path_mtu(c)),
	        rb_mtu_bytes(c->mtu), rb_mtu_bytes((enum ibv_mtu)c->remote.qp[0].mtu),
	        c->path.via_cm ? ", rdma_cm's route" : "");
	fprintf(f, " QP timeout     : %u (%.3g s) x %u retries, rnr retry %u\n", qopt->timeout,
	        rb_qp_timeout_seconds(qopt->timeout), qopt->retry_cnt, qopt->rnr_retry);
	rb_conn_describe_path(&c->path, f);
	for (unsigned i = 0; i < c->nqps && i < 4; i++) {
		fprintf(f, " local  QP %-3u : QPN 0x%06x PSN 0x%06x LID 0x%04x GID %s\n", i,
		        c->local.qp[i].qpn, c->local.qp[i].psn, c->local.qp[i].lid,
		        rb_gid_fmt(c->local.qp[i].gid, gid, sizeof(gid)));
		fprintf(f, " remote QP %-3u : QPN 0x%06x PSN 0x%06x LID 0x%04x GID %s\n", i,
		        c->remote.qp[i].qpn, c->remote.qp[i].psn, c->remote.qp[i].lid,
		        rb_gid_fmt(c->remote.qp[i].gid, gid, sizeof(gid)));
	}
	if (c->nqps > 4)
		fprintf(f, " ... %u more QPs\n", c->nqps - 4);
}

uint64_t rb_conn_cfg_bytes(const struct rb_conn_cfg *cfg)
{
	uint64_t nbuf = cfg->shared_buf ? 1 : cfg->nqps;

	return ((uint64_t)cfg->src_per_qp + cfg->dst_per_qp) * nbuf + cfg->ctl_src + cfg->ctl_dst;
}

#include "conn.h"

#include "log.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static uint32_t random_psn(void)
{
	return (uint32_t)random() & 0xffffff;
}

int rb_conn_setup(struct rb_conn *c, const struct rb_dev_opts *dopt, const struct rb_qp_opts *qopt,
                  const struct rb_mem_opts *mopt, const struct rb_conn_cfg *cfg)
{
	int ret, cqe;

	memset(c, 0, sizeof(*c));
	if (cfg->nqps == 0 || cfg->nqps > RB_WIRE_MAX_QPS)
		return -EINVAL;
	ret = rb_device_open(dopt, &c->dev);
	if (ret)
		return ret;
	ret = rb_qp_local_mtu(&c->dev, qopt, &c->mtu);
	if (ret)
		goto fail;
	c->pd = ibv_alloc_pd(c->dev.ctx);
	if (!c->pd) {
		ret = -errno;
		rb_err("ibv_alloc_pd on %s failed: %s", c->dev.name, strerror(errno));
		goto fail;
	}
	if (cfg->event_cq) {
		c->chan = ibv_create_comp_channel(c->dev.ctx);
		if (!c->chan) {
			ret = -errno;
			rb_err("ibv_create_comp_channel failed: %s", strerror(errno));
			goto fail;
		}
	}
	cqe = (int)(cfg->caps.send_wr * cfg->nqps);
	if (cqe > c->dev.attr.max_cqe)
		cqe = c->dev.attr.max_cqe;
	/* Only receive completions are waited for by event; sends are always polled. */
	c->scq = ibv_create_cq(c->dev.ctx, cqe, NULL, NULL, 0);
	if (c->scq && cfg->recv_cq) {
		int rcqe = (int)(cfg->caps.recv_wr * cfg->nqps);
		c->rcq = ibv_create_cq(c->dev.ctx, rcqe < c->dev.attr.max_cqe ? rcqe : c->dev.attr.max_cqe,
		                       NULL, c->chan, 0);
	}
	if (!c->scq || (cfg->recv_cq && !c->rcq)) {
		ret = -errno;
		rb_err("ibv_create_cq(%d entries) failed: %s", cqe, strerror(errno));
		goto fail;
	}
	c->nqps = cfg->nqps;
	c->src_per_qp = cfg->src_per_qp;
	c->dst_per_qp = cfg->dst_per_qp;
	if (cfg->src_per_qp) {
		ret = rb_buf_alloc(&c->src, cfg->src_per_qp * cfg->nqps, mopt, c->dev.numa_node);
		/* The source is only read by the local HCA: no access flags at all. */
		if (!ret)
			ret = rb_mr_reg(c->pd, &c->src, 0, &c->src_mr);
		if (ret)
			goto fail;
	}
	if (cfg->dst_per_qp) {
		ret = rb_buf_alloc(&c->dst, cfg->dst_per_qp * cfg->nqps, mopt, c->dev.numa_node);
		/* The peer writes here; REMOTE_WRITE requires LOCAL_WRITE. Nothing else. */
		if (!ret)
			ret = rb_mr_reg(c->pd, &c->dst, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE,
			                &c->dst_mr);
		if (ret)
			goto fail;
	}
	for (unsigned i = 0; i < cfg->nqps; i++) {
		ret = rb_qp_create(c->pd, c->scq, c->rcq ? c->rcq : c->scq, &cfg->caps, &c->qp[i]);
		if (ret)
			goto fail;
		rb_qp_local_info(&c->dev, c->qp[i], random_psn(), c->mtu, &c->local.qp[i]);
		if (cfg->dst_per_qp) {
			c->local.qp[i].addr = (uint64_t)(uintptr_t)c->dst.addr + i * cfg->dst_per_qp;
			c->local.qp[i].len = cfg->dst_per_qp;
			c->local.qp[i].rkey = c->dst_mr.mr->rkey;
		}
	}
	c->local.count = cfg->nqps;
	return 0;
fail:
	rb_conn_destroy(c);
	return ret;
}

int rb_conn_exchange(struct rb_conn *c, struct rb_oob *o, const struct rb_qp_opts *qopt, size_t need_remote)
{
	uint8_t *buf = malloc(RB_WIRE_MAX_PAYLOAD);
	struct rb_wbuf w = {buf, 0, RB_WIRE_MAX_PAYLOAD, false};
	unsigned access = c->dst_per_qp ? IBV_ACCESS_REMOTE_WRITE : 0;
	struct rb_frame f;
	int ret;

	if (!buf) {
		rb_err("out of memory");
		return -ENOMEM;
	}
	rb_qpinfo_encode(&w, &c->local);
	ret = rb_oob_send_w(o, RB_MSG_QPINFO, &w);
	free(buf);
	if (!ret)
		ret = rb_oob_expect(o, RB_MSG_QPINFO, &f, -1);
	if (ret)
		return ret;
	if (rb_qpinfo_decode(f.p, f.len, &c->remote)) {
		rb_err("malformed QPINFO from %s", o->peer);
		rb_oob_send_error(o, "malformed QPINFO frame");
		return -EPROTO;
	}
	if (c->remote.count != c->nqps) {
		rb_err("peer %s offers %u QPs, this side has %u", o->peer, c->remote.count, c->nqps);
		rb_oob_send_error(o, "QP count mismatch: %u here, %u from you", c->nqps, c->remote.count);
		return -EPROTO;
	}
	for (unsigned i = 0; i < c->nqps; i++) {
		const struct rb_qpinfo *r = &c->remote.qp[i];
		if (need_remote && (r->len < need_remote || !r->addr)) {
			rb_err("peer's buffer for QP %u is %llu bytes, %zu needed", i,
			       (unsigned long long)r->len, need_remote);
			rb_oob_send_error(o, "your buffer for QP %u is %llu bytes, %zu needed", i,
			                  (unsigned long long)r->len, need_remote);
			return -EPROTO;
		}
		if (!c->dev.roce && r->lid == 0) {
			rb_err("peer QP %u has LID 0 on an InfiniBand port (is a subnet manager running?)",
			       i);
			rb_oob_send_error(o, "LID 0 on an InfiniBand link");
			return -EPROTO;
		}
		ret = rb_qp_connect(&c->dev, qopt, c->qp[i], access, &c->local.qp[i], r);
		if (ret) {
			rb_oob_send_error(o, "QP %u did not reach RTS on the peer", i);
			return ret;
		}
	}
	return 0;
}

void rb_conn_destroy(struct rb_conn *c)
{
	for (unsigned i = 0; i < RB_WIRE_MAX_QPS; i++)
		if (c->qp[i]) {
			ibv_destroy_qp(c->qp[i]);
			c->qp[i] = NULL;
		}
	rb_mr_dereg(&c->src_mr);
	rb_mr_dereg(&c->dst_mr);
	rb_buf_free(&c->src);
	rb_buf_free(&c->dst);
	if (c->rcq)
		ibv_destroy_cq(c->rcq);
	if (c->scq)
		ibv_destroy_cq(c->scq);
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
	char acc[96];

	if (!b->addr)
		return;
	fprintf(f, " %-15s: %zu B host%s, NUMA %s%d, registered in %.0f us, access %s\n", what, b->len,
	        b->huge ? " hugepages" : "", b->numa_node < 0 ? "unbound " : "", b->numa_node, m->reg_us,
	        rb_access_fmt(access, acc, sizeof(acc)));
}

void rb_conn_describe(const struct rb_conn *c, const struct rb_qp_opts *qopt, FILE *f)
{
	char gid[64];

	describe_buf(f, "Source buffer", &c->src, &c->src_mr, 0);
	describe_buf(f, "Target buffer", &c->dst, &c->dst_mr,
	             IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	fprintf(f, " Path MTU       : %u B (local %u, remote %u)\n",
	        rb_mtu_bytes(c->mtu < c->remote.qp[0].mtu ? c->mtu : (enum ibv_mtu)c->remote.qp[0].mtu),
	        rb_mtu_bytes(c->mtu), rb_mtu_bytes((enum ibv_mtu)c->remote.qp[0].mtu));
	fprintf(f, " QP timeout     : %u (%.3g s) x %u retries, rnr retry %u, SL %u, TC %u\n", qopt->timeout,
	        rb_qp_timeout_seconds(qopt->timeout), qopt->retry_cnt, qopt->rnr_retry, qopt->sl,
	        qopt->tclass);
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

/* SPDX-License-Identifier: BSD-2-Clause */
#include "verbs_tool.h"

#include "gpu/gpu.h"
#include "base/base.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

void rb_verbs_default(struct rb_verbs *v)
{
	memset(v, 0, sizeof(*v));
	rb_dev_opts_default(&v->dev);
	rb_qp_opts_default(&v->qp);
	rb_mem_opts_default(&v->mem);
	v->rails = rb_verbs_rails;
}

unsigned rb_verbs_opt_tables(struct rb_verbs *v, struct rb_opt_table *out)
{
	out[0] = rb_dev_opt_table(&v->dev);
	out[1] = rb_qp_opt_table(&v->qp);
	out[2] = rb_mem_opt_table(&v->mem);
	return 3;
}

int rb_verbs_check(struct rb_verbs *v, uint32_t inline_bytes)
{
	if (rb_mem_opts_resolve(&v->mem))
		return -EINVAL;
	/* An inline send is copied by the CPU from the source buffer at post time. */
	if (v->mem.kind != RB_MEM_HOST && inline_bytes) {
		rb_usage_err("-I %u with --mem %s: inline data is read by the CPU, which cannot read GPU "
		             "memory (allowed: -I 0)",
		             inline_bytes, rb_mem_kind_name(v->mem.kind));
		return -EINVAL;
	}
	return 0;
}

int rb_verbs_setup(struct rb_verbs *v, const struct rb_conn_cfg *cfg)
{
	int ret = rb_conn_setup(&v->conn, &v->dev, &v->qp, &v->mem, cfg);

	v->have_conn = !ret;
	return ret;
}

int rb_verbs_connect(struct rb_verbs *v, const struct rb_run *r, size_t need_remote)
{
	unsigned timeout = r->oob_opts.timeout_s ? r->oob_opts.timeout_s : 10;
	int ret = 0;

	/* -R: the server listens before its QPINFO goes out, so the client finds it listening. */
	if (v->qp.cm && !r->client)
		ret = rb_cm_listen(&v->cm, r->oob_opts.bind, r->oob_opts.port, v->conn.nqps);
	if (!ret)
		ret = rb_conn_exchange(&v->conn, r->oob, &v->qp, need_remote);
	if (!ret && v->qp.cm)
		ret = r->client ? rb_cm_connect(&v->cm, &v->conn, &v->qp, r->host, r->oob_opts.port, timeout)
		                : rb_cm_accept(&v->cm, &v->conn, &v->qp, timeout);

	/* Once a QP moved for this peer, a failure is the run's, not a stranger's. */
	return ret == -EPROTO && v->conn.qps_connected ? -EIO : ret;
}

void rb_verbs_teardown(struct rb_verbs *v)
{
	rb_cm_close(&v->cm);
	if (v->have_conn)
		rb_conn_destroy(&v->conn);
	v->have_conn = false;
}

/* "0x000011 0x000012 ..." (the first 8, then how many more): the QPNs of one side. */
static void qpns(const struct rb_qpinfo_msg *q, unsigned n, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = 0;
	for (unsigned i = 0; i < n && i < 8 && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s0x%06x", i ? " " : "", q->qp[i].qpn);
	if (n > 8 && off < len)
		snprintf(buf + off, len - off, " (+%u more)", n - 8);
}

void rb_verbs_meta(const struct rb_verbs *v, struct rb_row *m)
{
	const struct rb_conn *c = &v->conn;
	char gid[64], list[96], slot[48];
	double pcie;

	rb_row_str(m, "device", NULL, c->dev.name);
	rb_row_u64(m, "port", NULL, c->dev.port);
	rb_row_str(m, "link_layer", NULL, rb_link_layer_name(&c->dev));
	rb_row_dbl(m, "link_gbps", NULL, 1, rb_port_gbps(&c->dev.port_attr));
	pcie = rb_pcie_link_gbps("/sys", c->dev.name, slot, sizeof(slot));
	rb_row_dbl(m, "pcie_gbps", NULL, 1, pcie > 0 ? pcie : NAN);
	rb_row_str(m, "pcie_link", NULL, slot);
	rb_row_u64(m, "link_width_code", NULL, c->dev.port_attr.active_width);
	rb_row_u64(m, "link_speed_code", NULL, c->dev.port_attr.active_speed);
	rb_row_u64(m, "link_speed_ex_code", NULL, rb_port_speed_ex(&c->dev.port_attr));
	rb_row_str(m, "link_speed", NULL,
	           rb_link_speed_name(c->dev.port_attr.active_speed, rb_port_speed_ex(&c->dev.port_attr)));
	rb_row_u64(m, "gid_index", NULL, (uint64_t)c->dev.gid.index);
	rb_row_str(m, "gid", NULL, rb_gid_fmt(c->dev.gid.raw, gid, sizeof(gid)));
	rb_row_str(m, "gid_type", NULL, rb_gid_type_name(c->dev.gid.type));
	rb_row_u64(m, "mtu_bytes", NULL, rb_mtu_bytes(rb_conn_path_mtu(c)));
	/* The path as applied: a GRH field is null where the path has no GRH to carry it. */
	rb_row_str(m, "path_via", NULL, c->path.via_cm ? "rdma_cm" : "qpinfo");
	rb_row_bool(m, "grh", NULL, c->path.grh);
	rb_row_str(m, "grh_why", NULL, c->path.grh_why ? c->path.grh_why : "");
	rb_row_u64(m, "sl", NULL, c->path.sl);
	rb_row_dbl(m, "tclass", NULL, 0, c->path.grh ? c->path.tclass : NAN);
	rb_row_dbl(m, "hop_limit", NULL, 0, c->path.grh ? c->path.hop_limit : NAN);
	rb_row_u64(m, "pkey_index", NULL, c->path.pkey_index);
	rb_row_u64(m, "qp_timeout_code", NULL, v->qp.timeout);
	rb_row_u64(m, "retry_cnt", NULL, v->qp.retry_cnt);
	rb_row_u64(m, "rnr_retry", NULL, v->qp.rnr_retry);
	rb_row_u64(m, "min_rnr_timer", NULL, v->qp.min_rnr_timer);
	qpns(&c->local, c->nqps, list, sizeof(list));
	rb_row_str(m, "local_qpns", NULL, list);
	qpns(&c->remote, c->remote.count, list, sizeof(list));
	rb_row_str(m, "remote_qpns", NULL, list);
	rb_row_str(m, "mem", NULL,
	           c->src.huge || c->dst.huge ? "host-hugepages" : rb_mem_kind_name(v->mem.kind));
	rb_gpu_meta(m);
	rb_row_dbl(m, "numa_node", NULL, 0, c->dev.numa_node < 0 ? NAN : c->dev.numa_node);
	rb_row_bool(m, "pcie_relaxed", NULL, c->relaxed.on);
	rb_row_str(m, "pcie_relaxed_why", NULL, c->relaxed.why);
	rb_row_bool(m, "pcie_relaxed_target", NULL, (c->dst_access & IBV_ACCESS_RELAXED_ORDERING) != 0);
	rb_row_dbl(m, "mr_reg_us", NULL, 1, c->src_mr.mr ? c->src_mr.reg_us : c->dst_mr.reg_us);
	/* Set-up by phase (conn.h); RTR/RTS is rdma_cm's with -R, not timed here. */
	rb_row_dbl(m, "setup_create_s", NULL, 6, c->setup_create_s);
	rb_row_dbl(m, "setup_register_s", NULL, 6, c->setup_register_s);
	rb_row_dbl(m, "setup_exchange_s", NULL, 6, c->setup_exchange_s);
	rb_row_dbl(m, "setup_rtr_rts_s", NULL, 6, v->qp.cm ? NAN : c->setup_rtr_rts_s);
}

int rb_verbs_rails(const struct rb_verbs *v, char (*out)[RB_RAIL_NAME])
{
	return rb_dev_rails(&v->dev, out);
}

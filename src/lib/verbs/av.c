/* SPDX-License-Identifier: BSD-2-Clause */
#include "av.h"

#include "gid.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* Why a GRH is used (non-NULL) or not (NULL): the rule of the header comment, in order. */
static const char *grh_reason(const struct rb_av_port *l, const struct rb_qpinfo *remote)
{
	if (l->roce)
		return "RoCE";
	if (l->grh_required)
		return "the port requires one";
	/* A peer without a GID says nothing about its subnet. */
	if (!rb_gid_is_zero(remote->gid) && memcmp(l->gid, remote->gid, 8) != 0)
		return "subnet prefixes differ";
	if (l->gid_given)
		return "-x given";
	return NULL;
}

int rb_av_build(const struct rb_av_port *l, const struct rb_qpinfo *remote, const struct rb_qp_opts *o,
                struct ibv_ah_attr *ah, struct rb_qp_path *path)
{
	const char *why = grh_reason(l, remote);

	if (!l->roce && remote->lid == 0)
		return -EHOSTUNREACH;
	memset(ah, 0, sizeof(*ah));
	ah->port_num = l->port;
	ah->sl = (uint8_t)o->sl;
	ah->dlid = l->roce ? 0 : remote->lid;
	path->grh = why != NULL;
	path->grh_why = why ? why : "same subnet";
	path->sl = ah->sl;
	path->tclass = 0;
	path->hop_limit = 0;
	if (!why)
		return 0;
	ah->is_global = 1;
	memcpy(ah->grh.dgid.raw, remote->gid, 16);
	ah->grh.sgid_index = (uint8_t)l->gid_index;
	ah->grh.hop_limit = (uint8_t)o->hop_limit;
	ah->grh.traffic_class = (uint8_t)o->tclass;
	path->tclass = ah->grh.traffic_class;
	path->hop_limit = ah->grh.hop_limit;
	return 0;
}

int rb_av_cm_adjust(const struct rb_qp_opts *o, unsigned tclass, enum ibv_mtu mtu_cap, struct ibv_qp_attr *a,
                    struct rb_qp_path *path)
{
	struct ibv_ah_attr *ah = &a->ah_attr;

	path->via_cm = true;
	if (a->qp_state == IBV_QPS_INIT) {
		if (o->pkey_index != RB_QP_PKEY_UNSET && o->pkey_index != a->pkey_index)
			return -EINVAL;
		path->pkey_index = a->pkey_index;
		return 0;
	}
	if (a->qp_state != IBV_QPS_RTR)
		return 0;
	if (a->path_mtu > mtu_cap)
		a->path_mtu = mtu_cap;
	if (o->sl)
		ah->sl = (uint8_t)o->sl;
	if (ah->is_global && tclass)
		ah->grh.traffic_class = (uint8_t)tclass;
	if (ah->is_global && o->hop_limit != RB_QP_HOP_LIMIT_DEFAULT)
		ah->grh.hop_limit = (uint8_t)o->hop_limit;
	path->mtu = a->path_mtu;
	path->sl = ah->sl;
	path->grh = ah->is_global;
	path->grh_why = ah->is_global ? "rdma_cm's route" : "rdma_cm's route has none";
	path->tclass = ah->is_global ? ah->grh.traffic_class : 0;
	path->hop_limit = ah->is_global ? ah->grh.hop_limit : 0;
	return 0;
}

const char *rb_av_unapplied(const struct rb_qp_path *path, const struct rb_qp_opts *o, char *buf,
                            unsigned len)
{
	int off = 0;

	buf[0] = '\0';
	if (path->grh)
		return buf;
	if (o->tclass)
		off += snprintf(buf, len, " --tclass %u", o->tclass);
	if (o->hop_limit != RB_QP_HOP_LIMIT_DEFAULT && off >= 0 && (unsigned)off < len)
		snprintf(buf + off, len - (unsigned)off, " --hop-limit %u", o->hop_limit);
	return buf;
}

const char *rb_av_ctl_unapplied(const struct rb_qp_path *path, unsigned tclass, const char *opt, char *buf,
                                unsigned len)
{
	buf[0] = '\0';
	if (!path->grh && tclass)
		snprintf(buf, len, " %s %u", opt, tclass);
	return buf;
}

/* SPDX-License-Identifier: BSD-2-Clause */
#include "qp.h"

#include "av.h"
#include "inlinelimit.h"
#include "base/base.h"

#include <errno.h>
#include <stddef.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void rb_qp_opts_default(struct rb_qp_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->hop_limit = RB_QP_HOP_LIMIT_DEFAULT;
	o->pkey_index = RB_QP_PKEY_UNSET;
	o->timeout = 14; /* ~67 ms; 7 retries ~0.5 s before RETRY_EXC_ERR */
	o->retry_cnt = 7;
	o->rnr_retry = 7;
	o->min_rnr_timer = 12; /* 0.64 ms */
}

static int parse_mtu(const char *arg, void *dst)
{
	uint64_t v;
	enum ibv_mtu m;
	int ret = rb_parse_u64(arg, &v);

	if (ret || v > 4096 || rb_mtu_from_bytes((unsigned)v, &m))
		return -EINVAL;
	*(uint32_t *)dst = (uint32_t)v;
	return 0;
}

struct rb_opt_table rb_qp_opt_table(struct rb_qp_opts *o)
{
	static const struct rb_opt rows[] = {
	    {.name = "mtu",
	     .key = 'm',
	     .type = RB_OPT_FN,
	     .off = offsetof(struct rb_qp_opts, mtu),
	     .arg = "BYTES",
	     .help = "path MTU (default: port's active MTU; min of both sides)",
	     .fn = parse_mtu,
	     .allowed = "256, 512, 1024, 2048 or 4096"},
	    {.name = "sl",
	     .key = 'S',
	     .type = RB_OPT_U32,
	     .off = offsetof(struct rb_qp_opts, sl),
	     .arg = "SL",
	     .help = "service level (default 0)",
	     .max = 15,
	     .env = "NCCL_IB_SL",
	     .flags = RB_OPT_ENV_NCCL},
	    {.name = "tclass",
	     .key = 'T',
	     .type = RB_OPT_U32,
	     .off = offsetof(struct rb_qp_opts, tclass),
	     .arg = "TC",
	     .help = "traffic class of the GRH: on RoCE v2 the IP TOS byte (default 0; -R: 0 = rdma_cm's)",
	     .max = 255,
	     .env = "NCCL_IB_TC",
	     .flags = RB_OPT_ENV_NCCL},
	    {.name = "hop-limit",
	     .type = RB_OPT_U32,
	     .off = offsetof(struct rb_qp_opts, hop_limit),
	     .arg = "N",
	     .help = "GRH hop limit: on RoCE v2 the IP TTL (default 64)",
	     .min = 1,
	     .max = 255},
	    {.name = "rdma-cm",
	     .key = 'R',
	     .type = RB_OPT_FLAG,
	     .off = offsetof(struct rb_qp_opts, cm),
	     .help = "connect the QPs through rdma_cm (to the server's IP address: IPv4, IPv6, fe80::1%if)"},
	    {.name = "pkey-index",
	     .type = RB_OPT_U32,
	     .off = offsetof(struct rb_qp_opts, pkey_index),
	     .arg = "IDX",
	     .help = "P_Key index (default 0; with -R, the partition rdma_cm takes)",
	     .max = 65535},
	    {.name = "qp-timeout",
	     .key = 'u',
	     .type = RB_OPT_U32,
	     .off = offsetof(struct rb_qp_opts, timeout),
	     .arg = "CODE",
	     .help = "ACK timeout 4.096 us x 2^CODE (default 14 = 67 ms; 0 = forever)",
	     .max = 31,
	     .env = "NCCL_IB_TIMEOUT",
	     .flags = RB_OPT_ENV_NCCL},
	    {.name = "retry-cnt",
	     .type = RB_OPT_U32,
	     .off = offsetof(struct rb_qp_opts, retry_cnt),
	     .arg = "N",
	     .help = "transport retries (default 7)",
	     .max = 7,
	     .env = "NCCL_IB_RETRY_CNT",
	     .flags = RB_OPT_ENV_NCCL},
	    {.name = "rnr-retry",
	     .type = RB_OPT_U32,
	     .off = offsetof(struct rb_qp_opts, rnr_retry),
	     .arg = "N",
	     .help = "RNR retries, 7 = forever (default 7)",
	     .max = 7},
	    {.name = "min-rnr-timer",
	     .type = RB_OPT_U32,
	     .off = offsetof(struct rb_qp_opts, min_rnr_timer),
	     .arg = "CODE",
	     .help = "minimum RNR NAK timer code (default 12)",
	     .max = 31},
	    {0},
	};
	return (struct rb_opt_table){"Queue pair", rows, o, false, NULL};
}

double rb_qp_timeout_seconds(unsigned code)
{
	if (code == 0)
		return 0;
	return 4.096e-6 * ldexp(1.0, (int)code);
}

struct probe {
	struct ibv_pd *pd;
	struct ibv_qp_init_attr ia;
};

/* Whether a QP like p->ia, with this send depth and inline size, can be created. */
static bool probe_qp(void *ctx, uint32_t send_wr, uint32_t inline_bytes)
{
	struct probe *p = ctx;
	struct ibv_qp_init_attr ia = p->ia;
	struct ibv_qp *qp;

	ia.cap.max_send_wr = send_wr;
	ia.cap.max_inline_data = inline_bytes;
	qp = ibv_create_qp(p->pd, &ia);
	if (qp)
		ibv_destroy_qp(qp);
	return qp != NULL;
}

int rb_qp_create(struct ibv_pd *pd, struct ibv_cq *scq, struct ibv_cq *rcq, const struct rb_qp_caps *caps,
                 struct ibv_qp **out, struct ibv_qp_ex **qpx, int *qpx_err)
{
	struct ibv_qp_init_attr ia = {0};
	struct ibv_qp *qp;
	int ex_err = 0;
	static bool warned;

	ia.send_cq = scq;
	ia.recv_cq = rcq;
	ia.qp_type = IBV_QPT_RC;
	ia.sq_sig_all = 0;
	ia.cap.max_send_wr = caps->send_wr;
	ia.srq = caps->srq;
	ia.cap.max_recv_wr = caps->srq ? 0 : caps->recv_wr ? caps->recv_wr : 1;
	ia.cap.max_send_sge = 1;
	ia.cap.max_recv_sge = caps->srq ? 0 : 1;
	ia.cap.max_inline_data = caps->inline_bytes;
	if (qpx)
		*qpx = NULL;
	if (caps->send_ops && qpx) {
		struct ibv_qp_init_attr_ex iax = {0};
		int err;

		iax.send_cq = scq;
		iax.recv_cq = rcq;
		iax.qp_type = IBV_QPT_RC;
		iax.srq = ia.srq;
		iax.cap = ia.cap;
		iax.pd = pd;
		iax.comp_mask = IBV_QP_INIT_ATTR_PD | IBV_QP_INIT_ATTR_SEND_OPS_FLAGS;
		iax.send_ops_flags = caps->send_ops;
		errno = 0;
		qp = ibv_create_qp_ex(pd->context, &iax);
		if (qp && (*qpx = ibv_qp_to_qp_ex(qp)) != NULL) {
			*out = qp;
			return 0;
		}
		err = qp ? EOPNOTSUPP : errno ? errno : EOPNOTSUPP;
		if (qp)
			ibv_destroy_qp(qp);
		ex_err = err;
		if (qpx_err)
			*qpx_err = err;
	}
	errno = 0;
	qp = ibv_create_qp(pd, &ia);
	if (!qp) {
		int err = errno ? errno : EINVAL;
		struct probe p = {pd, ia};

		if (caps->inline_bytes && probe_qp(&p, caps->send_wr, 0)) {
			/* Without inline it works: which limit, the inline size or the depth? */
			struct rb_inline_limit l;
			char msg[320];

			rb_inline_limit_find(probe_qp, &p, caps->send_wr, caps->inline_bytes, &l);
			rb_usage_err("%s", rb_inline_limit_fmt(&l, caps->send_wr, caps->inline_bytes, msg,
			                                       sizeof(msg)));
			return -EINVAL;
		}
		rb_err("ibv_create_qp(RC, send_wr=%u, recv_wr=%u) failed: %s", caps->send_wr,
		       ia.cap.max_recv_wr, strerror(err));
		return -err;
	}
	/*
	 * A plain QP where the extended one failed: quietly where the provider has none
	 * (EOPNOTSUPP), else once with the reason (the header also gives it).
	 */
	if (ex_err == EOPNOTSUPP || ex_err == ENOSYS)
		rb_dbg("no extended QP (ibv_create_qp_ex: %s): posting with ibv_post_send", strerror(ex_err));
	else if (ex_err && !warned) {
		warned = true;
		rb_warn("ibv_create_qp_ex failed (%s): posting with ibv_post_send", strerror(ex_err));
	}
	*out = qp;
	return 0;
}

int rb_qp_local_mtu(const struct rb_device *d, const struct rb_qp_opts *o, enum ibv_mtu *out)
{
	enum ibv_mtu m = d->port_attr.active_mtu;

	if (o->mtu) {
		enum ibv_mtu want;
		rb_mtu_from_bytes(o->mtu, &want);
		if (want > m) {
			rb_usage_err("MTU %u exceeds the active MTU of %s port %u (%u)", o->mtu, d->name,
			             d->port, rb_mtu_bytes(m));
			return -EINVAL;
		}
		m = want;
	}
	*out = m;
	return 0;
}

void rb_qp_av_port(const struct rb_device *d, struct rb_av_port *out)
{
	memset(out, 0, sizeof(*out));
	out->roce = d->roce;
	out->grh_required = (d->port_attr.flags & IBV_QPF_GRH_REQUIRED) != 0;
	out->gid_given = !d->gid_auto;
	out->port = d->port;
	out->lid = d->port_attr.lid;
	out->gid_index = d->gid.index;
	memcpy(out->gid, d->gid.raw, 16);
}

void rb_qp_local_info(const struct rb_device *d, struct ibv_qp *qp, uint32_t psn, enum ibv_mtu mtu,
                      struct rb_qpinfo *out)
{
	out->qpn = qp->qp_num;
	out->psn = psn & 0xffffff;
	out->lid = d->port_attr.lid;
	out->mtu = (uint8_t)mtu;
	memcpy(out->gid, d->gid.raw, 16);
}

static int modify(struct ibv_qp *qp, struct ibv_qp_attr *a, int mask, const char *state)
{
	int ret = ibv_modify_qp(qp, a, mask);
	if (ret) {
		rb_err("QP 0x%06x transition to %s failed: %s", qp->qp_num, state, strerror(ret));
		return -ret;
	}
	return 0;
}

/*
 * RTR on RoCE: the kernel resolves the peer's GID to a MAC address through the IP stack
 * (ARP or neighbour discovery) and gives up after about a second with ETIMEDOUT. One
 * lost solicitation on a lossy link is enough for that, and the neighbour entry is
 * usually complete a moment later, so a timed-out resolution is tried again, a bounded
 * number of times, before it is the run's failure.
 */
#define RB_RTR_TRIES 5

static int modify_rtr(const struct rb_device *d, struct ibv_qp *qp, struct ibv_qp_attr *a)
{
	const int mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
	                 IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	char gid[64];
	int ret = 0;

	for (int i = 0; i < RB_RTR_TRIES; i++) {
		ret = ibv_modify_qp(qp, a, mask);
		if (ret != ETIMEDOUT || !d->roce)
			break;
	}
	if (!ret)
		return 0;
	if (ret == ETIMEDOUT && d->roce) {
		rb_err(
		    "QP 0x%06x transition to RTR failed: %s: the peer's GID %s did not resolve to a MAC "
		    "address on %s's network interface (ARP / neighbour discovery got no answer, %d tries)",
		    qp->qp_num, strerror(ret), rb_gid_fmt(a->ah_attr.grh.dgid.raw, gid, sizeof(gid)), d->name,
		    RB_RTR_TRIES);
		return -ret;
	}
	rb_err("QP 0x%06x transition to RTR failed: %s", qp->qp_num, strerror(ret));
	return -ret;
}

int rb_qp_connect(const struct rb_device *d, const struct rb_qp_opts *o, struct ibv_qp *qp, unsigned access,
                  const struct rb_qpinfo *local, const struct rb_qpinfo *remote, struct rb_qp_path *applied)
{
	struct rb_av_port port;
	struct rb_qp_path path = {0};
	struct ibv_qp_attr a;
	int ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.pkey_index = o->pkey_index == RB_QP_PKEY_UNSET ? 0 : (uint16_t)o->pkey_index;
	a.port_num = d->port;
	a.qp_access_flags = access;
	ret = modify(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS, "INIT");
	if (ret)
		return ret;

	memset(&a, 0, sizeof(a));
	rb_qp_av_port(d, &port);
	if (rb_av_build(&port, remote, o, &a.ah_attr, &path)) {
		rb_err("QP 0x%06x: the peer has LID 0 on an InfiniBand link (is a subnet manager running?)",
		       qp->qp_num);
		return -EHOSTUNREACH;
	}
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = (enum ibv_mtu)(local->mtu < remote->mtu ? local->mtu : remote->mtu);
	a.dest_qp_num = remote->qpn;
	a.rq_psn = remote->psn;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = (uint8_t)o->min_rnr_timer;
	path.pkey_index = o->pkey_index == RB_QP_PKEY_UNSET ? 0 : (uint16_t)o->pkey_index;
	path.mtu = a.path_mtu;
	if (applied)
		*applied = path;
	ret = modify_rtr(d, qp, &a);
	if (ret)
		return ret;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = local->psn;
	a.timeout = (uint8_t)o->timeout;
	a.retry_cnt = (uint8_t)o->retry_cnt;
	a.rnr_retry = (uint8_t)o->rnr_retry;
	a.max_rd_atomic = 1;
	return modify(qp, &a,
	              IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
	                  IBV_QP_MAX_QP_RD_ATOMIC,
	              "RTS");
}

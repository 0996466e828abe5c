/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The address vector a connected QP's RTR uses, as a pure function of the local
 * port's facts, the peer's QPINFO entry and the path options, and the record of
 * what was applied (the header and documents say that, not what was asked).
 *
 * A GRH is used on RoCE always (its packets are routed by GID), and on InfiniBand
 * when the subnet prefixes of the two GIDs differ, when the port requires one
 * (IBV_QPF_GRH_REQUIRED, as some virtual functions do) or when -x named a GID.
 * Without a GRH, --tclass and --hop-limit have nowhere to go: not applied.
 * InfiniBand packets are forwarded by the DLID of their LRH, with or without a GRH,
 * so a peer with LID 0 (no subnet manager) cannot be reached either way.
 */
#ifndef RB_AV_H
#define RB_AV_H

#include "qp.h"
#include "oob/oob.h"

#include <infiniband/verbs.h>
#include <stdbool.h>
#include <stdint.h>

/* What the local port says (ibv_port_attr, the GID this side chose). */
struct rb_av_port {
	bool roce;         /* link layer Ethernet */
	bool grh_required; /* ibv_port_attr.flags & IBV_QPF_GRH_REQUIRED */
	bool gid_given;    /* -x: the user named the GID */
	uint8_t port;
	uint16_t lid;
	int gid_index;
	uint8_t gid[16]; /* bytes 0..7: the subnet prefix */
};

/*
 * Fills ah (zeroed first) and the path's GRH, SL, traffic class and hop limit.
 * -EHOSTUNREACH for an InfiniBand peer with LID 0 (nothing filled then).
 */
int rb_av_build(const struct rb_av_port *l, const struct rb_qpinfo *remote, const struct rb_qp_opts *o,
                struct ibv_ah_attr *ah, struct rb_qp_path *path);

/*
 * -R: the attributes rdma_init_qp_attr gave for state a->qp_state, adjusted by the
 * options before ibv_modify_qp, and *path updated with what they now say. The
 * defaults (SL 0, traffic class 0, hop limit 64, P_Key index 0) leave rdma_cm's
 * choice, which may come from the system's rdma_cm ToS or the IP route; a value
 * given replaces it (tclass: this QP's, the control QP's own class where one is set). The
 * MTU is capped at mtu_cap. rdma_cm takes the partition from the address's
 * interface: a different --pkey-index is -EINVAL (nothing changed then).
 */
int rb_av_cm_adjust(const struct rb_qp_opts *o, unsigned tclass, enum ibv_mtu mtu_cap, struct ibv_qp_attr *a,
                    struct rb_qp_path *path);

/* Options the path does not apply, as " --tclass 96 --hop-limit 7" (empty: none); buf >= 64. */
const char *rb_av_unapplied(const struct rb_qp_path *path, const struct rb_qp_opts *o, char *buf,
                            unsigned len);
/* A control QP's own class (opt: the option that set it) its path cannot carry: " OPT N", else "". */
const char *rb_av_ctl_unapplied(const struct rb_qp_path *path, unsigned tclass, const char *opt, char *buf,
                                unsigned len);

#endif

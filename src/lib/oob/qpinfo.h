/* SPDX-License-Identifier: BSD-2-Clause */
/* QPINFO: how the peer reaches each of this side's QPs and its target buffer. */
#ifndef RB_QPINFO_H
#define RB_QPINFO_H

#include "wire.h"

struct rb_qpinfo {
	uint32_t qpn, psn, rkey;
	uint16_t lid;
	uint8_t mtu; /* enum ibv_mtu: 1..5 */
	uint8_t gid[16];
	uint64_t addr, len;
	uint64_t stride; /* bytes from this QP's buffer to the next QP's; 0 = shared */
};

/*
 * One side's QPs. Every QP of a side shares LID, GID, MTU and rkey, and QP i's
 * target buffer is len bytes at qp[0].addr + i * stride (stride 0: one buffer
 * shared by every QP), so the wire carries those once, with the control region,
 * and only (QPN, PSN) per QP: 8 bytes a QP, RB_QPINFO_PER_FRAME QPs a frame.
 */
/*
 * A side's control region (a receiver-driven protocol's FIFOs): host memory the peer writes
 * beside the target buffers, which may be GPU memory. len 0: none.
 */
struct rb_region {
	uint64_t addr, len;
	uint32_t rkey;
};

struct rb_qpinfo_msg {
	unsigned count;
	struct rb_qpinfo *qp; /* count entries */
	struct rb_region ctl;
};

/* QPINFO frames needed for count QPs. */
unsigned rb_qpinfo_frames(unsigned count);
/* Frame number `frame` (0-based) of m: the shared fields and its slice of (QPN, PSN) pairs. */
void rb_qpinfo_encode(struct rb_wbuf *w, const struct rb_qpinfo_msg *m, unsigned frame);
/*
 * Decodes one QPINFO frame into m, whose qp array holds cap entries. Frames come in
 * order: the frame must start at entry `next` and, after the first, repeat the
 * same total and shared fields. Sets m->count to the peer's total and *filled to
 * the entries now known (next + this frame's). -E2BIG when the peer has more QPs
 * than cap (m->count says how many), -EPROTO for anything malformed.
 */
int rb_qpinfo_decode(const uint8_t *p, size_t len, struct rb_qpinfo_msg *m, unsigned cap, unsigned next,
                     unsigned *filled);

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
#include "qpinfo.h"

#include <errno.h>
#include <string.h>

unsigned rb_qpinfo_frames(unsigned count)
{
	return (count + RB_QPINFO_PER_FRAME - 1) / RB_QPINFO_PER_FRAME;
}

void rb_qpinfo_encode(struct rb_wbuf *w, const struct rb_qpinfo_msg *m, unsigned frame)
{
	const struct rb_qpinfo *q0 = &m->qp[0];
	unsigned first = frame * RB_QPINFO_PER_FRAME, n = m->count - first;

	if (n > RB_QPINFO_PER_FRAME)
		n = RB_QPINFO_PER_FRAME;
	rb_put_u32(w, m->count);
	rb_put_u32(w, first);
	rb_put_u16(w, (uint16_t)n);
	rb_put_u16(w, q0->lid);
	rb_put_u8(w, q0->mtu);
	rb_put_bytes(w, q0->gid, sizeof(q0->gid));
	rb_put_u32(w, q0->rkey);
	rb_put_u64(w, q0->addr);
	rb_put_u64(w, q0->len);
	rb_put_u64(w, q0->stride);
	rb_put_u64(w, m->ctl.addr);
	rb_put_u64(w, m->ctl.len);
	rb_put_u32(w, m->ctl.rkey);
	for (unsigned i = first; i < first + n; i++) {
		rb_put_u32(w, m->qp[i].qpn);
		rb_put_u32(w, m->qp[i].psn);
	}
}

int rb_qpinfo_decode(const uint8_t *p, size_t len, struct rb_qpinfo_msg *m, unsigned cap, unsigned next,
                     unsigned *filled)
{
	struct rb_rbuf r = {p, len, 0, false};
	struct rb_qpinfo shared = {0};
	struct rb_region ctl;
	uint32_t total = rb_get_u32(&r), first = rb_get_u32(&r);
	unsigned n = rb_get_u16(&r);

	shared.lid = rb_get_u16(&r);
	shared.mtu = rb_get_u8(&r);
	rb_get_bytes(&r, shared.gid, sizeof(shared.gid));
	shared.rkey = rb_get_u32(&r);
	shared.addr = rb_get_u64(&r);
	shared.len = rb_get_u64(&r);
	shared.stride = rb_get_u64(&r);
	ctl.addr = rb_get_u64(&r);
	ctl.len = rb_get_u64(&r);
	ctl.rkey = rb_get_u32(&r);
	if (r.err || total == 0 || total > RB_WIRE_MAX_QPS || first != next || n == 0 ||
	    n > RB_QPINFO_PER_FRAME || n > total - first || (next && total != m->count))
		return -EPROTO;
	/* MTU is an ibv_mtu code (256..4096); QP i's buffer must not wrap. */
	if (shared.mtu < 1 || shared.mtu > 5)
		return -EPROTO;
	/* The last QP's buffer, addr + (total - 1) * stride + len, must not wrap. */
	if (shared.stride && shared.stride > (UINT64_MAX - shared.addr) / total)
		return -EPROTO;
	if (shared.len > UINT64_MAX - shared.addr - (total - 1) * shared.stride)
		return -EPROTO;
	if (ctl.len > UINT64_MAX - ctl.addr || (ctl.len && !ctl.addr))
		return -EPROTO;
	if (len - r.off != (size_t)n * 8)
		return -EPROTO;
	m->count = total;
	if (total > cap)
		return -E2BIG;
	if (next) {
		const struct rb_qpinfo *q0 = &m->qp[0];
		if (q0->lid != shared.lid || q0->mtu != shared.mtu || q0->rkey != shared.rkey ||
		    q0->addr != shared.addr || q0->len != shared.len || q0->stride != shared.stride ||
		    memcmp(q0->gid, shared.gid, sizeof(shared.gid)) || m->ctl.addr != ctl.addr ||
		    m->ctl.len != ctl.len || m->ctl.rkey != ctl.rkey)
			return -EPROTO;
	}
	m->ctl = ctl;
	for (unsigned i = first; i < first + n; i++) {
		struct rb_qpinfo *q = &m->qp[i];
		*q = shared;
		q->addr = shared.addr + (uint64_t)i * shared.stride;
		q->qpn = rb_get_u32(&r);
		q->psn = rb_get_u32(&r);
		/* QPN and PSN are 24-bit. */
		if (q->qpn > 0xffffff || q->psn > 0xffffff)
			return -EPROTO;
	}
	*filled = first + n;
	return rb_rbuf_done(&r) ? 0 : -EPROTO;
}

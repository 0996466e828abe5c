/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The engine waiting for the peer inside a step: --verify's frames awaited while
 * receives keep flowing, what this side knows to hold the peer's DONE to, and every
 * WRITE_WITH_IMM the peer says it sent arrived.
 */
#include "clock.h"
#include "peer.h"
#include "recv.h"
#include "state.h"

#include "base/base.h"

#include <errno.h>
#include <stdint.h>

int bw_wait_for(struct bw_engine *e, const bool *flag)
{
	/* With receives to keep posted, spin; else sleep on the channel. */
	int wait_ms = e->cfg.receiving && e->cfg.imm ? 0 : 100;

	while (!*flag) {
		int ret = bw_service_recv(e);

		if (ret >= 0)
			ret = bw_tick(e);
		if (!ret && !*flag)
			ret = rb_bw_tend(e->b, wait_ms);
		if (ret < 0)
			return ret;
	}
	return 0;
}

/*
 * The peer's DONE against what this side knows (stepend.h): nothing when it only
 * receives; else messages of this size, iterations x QPs of them in -n mode, and,
 * since a WRITE lands without telling its target, no faster than the port and no
 * longer than this side's step (a receiver's row is the sender's figures).
 */
void bw_peer_view(const struct bw_engine *e, struct rb_step_view *v)
{
	*v = (struct rb_step_view){
	    .sends = e->cfg.receiving ? RB_PEER_SENDS_UNSEEN : RB_PEER_SENDS_NOTHING,
	    .msg_bytes = e->size,
	    .want_msgs = e->cfg.receiving && e->cfg.duration_s > 0 ? RB_STEPEND_ANY
	                 : e->cfg.receiving                        ? e->cfg.iters * e->c->nqps
	                                                           : 0,
	    .link_gbps = rb_port_gbps(&e->c->dev.port_attr),
	    .need = e->cfg.no_peak ? 0 : RB_STEPEND_PEAK,
	    .none = e->cfg.no_peak ? RB_STEPEND_PEAK : 0,
	};
}

int bw_await_arrivals(struct bw_engine *e, uint64_t sent)
{
	uint64_t start = rb_now_ns(), got;
	int ret;

	for (;;) {
		got = 0;
		for (unsigned i = 0; i < e->c->nqps; i++)
			got += e->q[i].step_rgot;
		if (got >= sent)
			break;
		ret = bw_service_recv(e);
		if (ret >= 0)
			ret = bw_tick(e);
		if (ret)
			return ret;
		if (rb_now_ns() - start > e->cfg.timeout_s * RB_NS_PER_S) {
			rb_err("only %llu of the peer's %llu WRITE_WITH_IMM completions arrived (--timeout)",
			       (unsigned long long)got, (unsigned long long)sent);
			return -ETIMEDOUT;
		}
	}
	if (got != sent) {
		rb_err("%llu WRITE_WITH_IMM completions arrived, the peer sent %llu messages",
		       (unsigned long long)got, (unsigned long long)sent);
		return -EPROTO;
	}
	return 0;
}

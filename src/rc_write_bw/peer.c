/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The engine's side of the out-of-band channel when it waits for the peer: a frame
 * awaited while receives keep flowing, and DONE both ways, the peer's checked.
 */
#include "clock.h"
#include "frames.h"
#include "peer.h"
#include "recv.h"
#include "state.h"

#include "base/base.h"

#include <errno.h>
#include <stdint.h>

int bw_wait_for(struct bw_engine *e, const bool *flag, const char *what)
{
	bool spin = e->cfg.receiving && e->cfg.imm;

	e->peer_seen = rb_now_ns();
	while (!*flag) {
		int ret = bw_service_recv(e), rd;

		if (ret < 0)
			return ret;
		rd = bw_tick(e);
		if (rd)
			return rd;
		if (ret > 0 || *flag)
			continue;
		/* Nothing to poll: sleep in poll() instead of spinning. */
		rd = rb_oob_readable(e->o, spin ? 0 : 100);
		if (rd < 0)
			return rd;
		if (rd) {
			ret = bw_read_frame(e);
			if (ret)
				return ret;
		} else if (rb_now_ns() - e->peer_seen > e->cfg.timeout_s * RB_NS_PER_S) {
			rb_err("peer %s silent for %u s while waiting for its %s (--timeout)", e->o->peer,
			       e->cfg.timeout_s, what);
			return -ETIMEDOUT;
		}
	}
	return 0;
}

/*
 * The peer's DONE against what this side knows (stepend.h): nothing when it only
 * receives; else messages of this size, iterations x QPs of them in -n mode, and,
 * since a WRITE lands without telling its target, no faster than the port and no
 * longer than this side's step (a receiver's row is the sender's figures).
 */
static int check_peer_done(struct bw_engine *e, struct rb_stepend *d)
{
	struct rb_step_view v = {
	    .sends = e->cfg.receiving ? RB_PEER_SENDS_UNSEEN : RB_PEER_SENDS_NOTHING,
	    .msg_bytes = e->size,
	    .want_msgs = e->cfg.receiving && e->cfg.duration_s > 0 ? RB_STEPEND_ANY
	                 : e->cfg.receiving                        ? e->cfg.iters * e->c->nqps
	                                                           : 0,
	    .link_gbps = rb_port_gbps(&e->c->dev.port_attr),
	    .need = e->cfg.no_peak ? 0 : RB_STEPEND_PEAK,
	    .none = e->cfg.no_peak ? RB_STEPEND_PEAK : 0,
	};
	int ret = rb_stepend_take(e->o, &v, 0, &e->peer_done, d);

	return ret < 0 ? ret : 0;
}

/* With WRITE_WITH_IMM every message the peer sent must also arrive here. */
static int await_arrivals(struct bw_engine *e, uint64_t sent)
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

int bw_exchange_done(struct bw_engine *e, struct bw_result *res)
{
	int ret;

	e->beat = false; /* DONE is our last frame of the step */
	ret = rb_stepend_send(e->o, &res->own);
	if (!ret)
		ret = bw_wait_for(e, &e->have_done, "DONE");
	if (ret)
		return ret;
	ret = check_peer_done(e, &res->peer);
	if (ret)
		return ret;
	return e->cfg.receiving && e->cfg.imm ? await_arrivals(e, res->peer.msgs) : 0;
}

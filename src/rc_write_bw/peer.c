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
 * The peer's DONE against what it must have sent: messages x size bytes, and in -n
 * mode iterations x QPs messages (none when it only receives).
 */
/*
 * The peer's clock against what this side can know (a WRITE lands without telling
 * its target, so a receiver's row is the sender's figures): its sends cannot have
 * lasted longer than the time from this side's BARRIER to the peer's DONE (a bound a
 * stall here cannot break), nor gone faster than the link (half as much again, for a
 * peak over short windows). Figures beyond that are a failed step, never a row.
 */
static int check_peer_clock(struct bw_engine *e, const struct rb_stepend *d)
{
	uint64_t mine = rb_stepend_window_ns(e->o);
	double link = rb_port_gbps(&e->c->dev.port_attr), claim, most = 1.5 * link;

	if (!d->msgs)
		return 0;
	if (!mine)
		mine = rb_now_ns() - e->t_step + 50 * RB_NS_PER_MS;
	if (d->elapsed_ns > mine) {
		rb_err("%s's DONE says its sends took %.3f ms, longer than this side's whole step (%.3f ms "
		       "from its BARRIER to the DONE): more than the link can explain",
		       e->o->peer, (double)d->elapsed_ns / 1e6, (double)mine / 1e6);
		return -EPROTO;
	}
	claim = (double)d->bytes * 8 / (double)d->elapsed_ns;
	if (link > 0 && (claim > most || (rb_stepend_has(d->peak_gbps) && d->peak_gbps > most))) {
		rb_err("%s's DONE claims %.3f Gb/s (peak %.3f) over a %g Gb/s link (%.6f ms for %llu bytes; "
		       "this "
		       "side's step took %.3f ms): more than the link can explain",
		       e->o->peer, claim, d->peak_gbps, link, (double)d->elapsed_ns / 1e6,
		       (unsigned long long)d->bytes, (double)mine / 1e6);
		return -EPROTO;
	}
	return 0;
}

static int check_peer_done(struct bw_engine *e, const struct rb_stepend *d)
{
	uint64_t want = e->cfg.receiving ? e->cfg.iters * e->c->nqps : 0;

	if (d->msgs > UINT64_MAX / e->size || d->bytes != d->msgs * e->size) {
		rb_err(
		    "protocol error: %s reports %llu bytes for %llu messages of %llu bytes (expected %llu)",
		    e->o->peer, (unsigned long long)d->bytes, (unsigned long long)d->msgs,
		    (unsigned long long)e->size,
		    (unsigned long long)(d->msgs > UINT64_MAX / e->size ? UINT64_MAX : d->msgs * e->size));
		return -EPROTO;
	}
	if ((e->cfg.duration_s <= 0 || !e->cfg.receiving) && d->msgs != want) {
		rb_err("protocol error: %s reports %llu messages sent, expected %llu (%llu per QP x %u QPs)",
		       e->o->peer, (unsigned long long)d->msgs, (unsigned long long)want,
		       (unsigned long long)(e->cfg.receiving ? e->cfg.iters : 0), e->c->nqps);
		return -EPROTO;
	}
	return check_peer_clock(e, d);
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
	res->peer = e->peer_done;
	ret = check_peer_done(e, &res->peer);
	if (ret)
		return ret;
	return e->cfg.receiving && e->cfg.imm ? await_arrivals(e, res->peer.msgs) : 0;
}

/* SPDX-License-Identifier: BSD-2-Clause */
#include "stepend.h"

#include "base/base.h"
#include "channel.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/socket.h>

void rb_stepend_encode(struct rb_wbuf *w, const struct rb_stepend *e)
{
	rb_put_u64(w, e->msgs);
	rb_put_u64(w, e->bytes);
	rb_put_u64(w, e->elapsed_ns);
	rb_put_f64(w, e->peak_gbps);
	rb_put_f64(w, e->cpu_pct);
}

int rb_stepend_decode(const uint8_t *p, size_t len, struct rb_stepend *e)
{
	struct rb_rbuf r = {p, len, 0, false};

	e->msgs = rb_get_u64(&r);
	e->bytes = rb_get_u64(&r);
	e->elapsed_ns = rb_get_u64(&r);
	e->peak_gbps = rb_get_f64(&r);
	e->cpu_pct = rb_get_f64(&r);
	if (!rb_rbuf_done(&r))
		return -EPROTO;
	/* A figure that is negative or infinite is a corrupt frame; NaN says "not measured". */
	if (rb_stepend_has(e->peak_gbps) && !(e->peak_gbps >= 0 && e->peak_gbps < 1e9))
		return -EPROTO;
	if (rb_stepend_has(e->cpu_pct) && !(e->cpu_pct >= 0 && e->cpu_pct <= 100.0 * 4096))
		return -EPROTO;
	if (e->msgs && !e->elapsed_ns)
		return -EPROTO;
	/* Every message carries a byte at least. */
	return e->msgs <= e->bytes ? 0 : -EPROTO;
}

uint64_t rb_stepend_slack_ns(uint64_t longer_ns, uint64_t rtt_ns)
{
	if (rtt_ns > RB_NS_PER_S)
		rtt_ns = RB_NS_PER_S; /* the peer's stack may delay ACKs: it cannot buy unbounded slack */
	return longer_ns / 4 + 20 * RB_NS_PER_MS + 2 * rtt_ns;
}

bool rb_stepend_clocks_agree(uint64_t a_ns, uint64_t b_ns, uint64_t rtt_ns)
{
	uint64_t longer = a_ns > b_ns ? a_ns : b_ns, shorter = a_ns > b_ns ? b_ns : a_ns;
	uint64_t apart = longer - shorter;

	return apart <= rb_stepend_slack_ns(longer, rtt_ns) ||
	       (longer / 2 <= shorter && apart <= 250 * RB_NS_PER_MS);
}

/* The channel's smoothed round trip as the kernel measured it (0 when unknown). */
static uint64_t rtt_ns(int fd)
{
	struct tcp_info ti;
	socklen_t l = sizeof(ti);

	memset(&ti, 0, sizeof(ti));
	if (fd < 0 || getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &l))
		return 0;
	return (uint64_t)ti.tcpi_rtt * 1000;
}

uint64_t rb_stepend_window_ns(const struct rb_oob *o)
{
	uint64_t w;

	if (!o->barrier_ns)
		return 0;
	w = rb_now_ns() - o->barrier_ns;
	/* Two hosts' clocks run at rates a few ppm apart: 0.1 % and 1 ms is room to spare. */
	return w + w / 1000 + RB_NS_PER_MS;
}

void rb_step_host_now(const struct rb_oob *o, struct rb_step_host *h)
{
	uint64_t waited = rb_cpuwait_ns(), pressure = rb_cpupressure_ns();

	h->rtt_ns = rtt_ns(o->fd);
	h->window_ns = rb_stepend_window_ns(o);
	h->stalled_ns = waited > pressure ? waited : pressure;
}

int rb_stepend_judge_clock(const char *peer, uint64_t own_ns, uint64_t peer_ns, const struct rb_step_host *h)
{
	uint64_t longer = own_ns > peer_ns ? own_ns : peer_ns, slack = rb_stepend_slack_ns(longer, h->rtt_ns);
	uint64_t apart = own_ns > peer_ns ? own_ns - peer_ns : peer_ns - own_ns;

	/* Longer than this side's clock, but within the window: this side stalled, no lie. */
	if (rb_stepend_clocks_agree(own_ns, peer_ns, h->rtt_ns) ||
	    (peer_ns > own_ns && h->window_ns && peer_ns <= h->window_ns))
		return 0;
	/* This host stalled for as long as the gap beyond the slack: it may be the one that was late. */
	if (h->stalled_ns && h->stalled_ns + slack >= apart) {
		rb_warn("peer's DONE says the step took %.3f ms, this side measured %.3f ms, but this host "
		        "stalled %.1f ms for a CPU meanwhile: the clock of %s is not judged, this side's is "
		        "used",
		        (double)peer_ns / 1e6, (double)own_ns / 1e6, (double)h->stalled_ns / 1e6, peer);
		return RB_STEPEND_DOUBT;
	}
	rb_err("peer's DONE says the step took %.6f ms, this side measured %.1f ms: more than the link can "
	       "explain (at most %.1f ms apart, and this host stalled only %.1f ms: %s misreports, or a "
	       "clock jumped)",
	       (double)peer_ns / 1e6, (double)own_ns / 1e6, (double)slack / 1e6, (double)h->stalled_ns / 1e6,
	       peer);
	return -EPROTO;
}

int rb_stepend_check_clock(struct rb_oob *o, uint64_t own_ns, uint64_t peer_ns)
{
	struct rb_step_host h;

	rb_step_host_now(o, &h);
	return rb_stepend_judge_clock(o->peer, own_ns, peer_ns, &h);
}

uint64_t rb_step_grace_ns(double duration_s)
{
	uint64_t q = (uint64_t)(duration_s * 1e9 / 4);

	return q > 2 * RB_NS_PER_S ? q : 2 * RB_NS_PER_S;
}

uint64_t rb_step_excuse_ns(uint64_t grace_ns)
{
	return 2 * grace_ns > RB_STEP_EXCUSE_NS ? 2 * grace_ns : RB_STEP_EXCUSE_NS;
}

uint64_t rb_step_credit(uint64_t *credited, uint64_t gap, unsigned timeout_s)
{
	uint64_t most = (uint64_t)timeout_s * RB_NS_PER_S, room;

	most = most > RB_STEP_EXCUSE_NS ? most : RB_STEP_EXCUSE_NS;
	room = most > *credited ? most - *credited : 0;
	gap = gap < room ? gap : room;
	*credited += gap;
	return gap;
}

enum rb_step_verdict rb_step_verdict(uint64_t took_ns, double duration_s, uint64_t grace_ns,
                                     uint64_t waited_ns)
{
	uint64_t limit = (uint64_t)(duration_s * 1e9) + grace_ns;

	uint64_t most = rb_step_excuse_ns(grace_ns);

	if (!(duration_s > 0) || took_ns <= limit)
		return RB_STEP_ON_TIME;
	/* This side's threads sat runnable, not running, or did not run at all: this host's delay. */
	if (took_ns <= limit + (waited_ns < most ? waited_ns : most))
		return RB_STEP_ON_TIME;
	/* Past the allowance, but this host's own waits explain it: no verdict on the peer. */
	return took_ns <= limit + waited_ns ? RB_STEP_HOST_LOADED : RB_STEP_PEER_LATE;
}

int rb_step_overdue(const struct rb_oob *o, uint64_t took_ns, double duration_s, uint64_t grace_ns,
                    const char *doing)
{
	uint64_t waited;
	enum rb_step_verdict v;

	/* Within -D and the grace the waits are not read: /proc is looked at only past them. */
	if (!(duration_s > 0) || took_ns <= (uint64_t)(duration_s * 1e9) + grace_ns)
		return 0;
	waited = rb_cpuwait_ns();
	v = rb_step_verdict(took_ns, duration_s, grace_ns, waited);
	if (v == RB_STEP_ON_TIME)
		return 0;
	if (v == RB_STEP_HOST_LOADED)
		rb_err("this host was too loaded to tell whether the peer %s was late: the step ran %.1f s "
		       "past the agreed -D %g s (grace %g s) and this side's threads waited %.1f s of it "
		       "for a CPU (at most %g s allowed): step ended by this side",
		       o->peer, (double)took_ns / 1e9 - duration_s, duration_s, (double)grace_ns / 1e9,
		       (double)waited / 1e9, (double)rb_step_excuse_ns(grace_ns) / 1e9);
	else if (waited >= RB_NS_PER_MS)
		rb_err(
		    "the peer %s was still %s %.1f s after the agreed -D %g s (grace %g s, and %.1f s this "
		    "side's threads waited for a CPU): step ended by this side",
		    o->peer, doing, (double)took_ns / 1e9 - duration_s, duration_s, (double)grace_ns / 1e9,
		    (double)waited / 1e9);
	else
		rb_err("the peer %s was still %s %.1f s after the agreed -D %g s (grace %g s): step ended by "
		       "this side",
		       o->peer, doing, (double)took_ns / 1e9 - duration_s, duration_s,
		       (double)grace_ns / 1e9);
	return -ETIMEDOUT;
}

int rb_stepend_send(struct rb_oob *o, const struct rb_stepend *own)
{
	uint8_t buf[64];
	struct rb_wbuf w = {buf, 0, sizeof(buf), false};

	rb_stepend_encode(&w, own);
	return rb_oob_send_w(o, RB_MSG_DONE, &w);
}

/* The figures of mask that e has. */
static unsigned figures(const struct rb_stepend *e)
{
	return (rb_stepend_has(e->peak_gbps) ? RB_STEPEND_PEAK : 0) |
	       (rb_stepend_has(e->cpu_pct) ? RB_STEPEND_CPU : 0);
}

int rb_stepend_accept(const struct rb_frame *f, unsigned need, unsigned none, struct rb_stepend *peer)
{
	if (f->type != RB_MSG_DONE || rb_stepend_decode(f->p, f->len, peer))
		return -EPROTO;
	if ((figures(peer) & need) != need || (figures(peer) & none))
		return -EPROTO;
	return 0;
}

/* The peer's counts against what arrived here, or nothing where nothing comes this way. */
static int hold_counts(const char *peer, const struct rb_step_view *v, const struct rb_stepend *p)
{
	if (v->sends == RB_PEER_SENDS_NOTHING && (p->msgs || p->bytes)) {
		rb_err("protocol error: peer %s reports %llu messages (%llu bytes) sent in a step where it "
		       "sends nothing this way",
		       peer, (unsigned long long)p->msgs, (unsigned long long)p->bytes);
		return -EPROTO;
	}
	if (v->sends == RB_PEER_SENDS_COUNTED)
		return rb_stepend_counts("the peer sent", p->msgs, p->bytes, "arrived here", v->rcvd_msgs,
		                         v->rcvd_bytes)
		           ? -EPROTO
		           : 0;
	if (v->msg_bytes && (p->msgs > UINT64_MAX / v->msg_bytes || p->bytes != p->msgs * v->msg_bytes)) {
		rb_err("protocol error: peer %s reports %llu bytes for %llu messages of %llu bytes", peer,
		       (unsigned long long)p->bytes, (unsigned long long)p->msgs,
		       (unsigned long long)v->msg_bytes);
		return -EPROTO;
	}
	if (v->want_msgs != RB_STEPEND_ANY && p->msgs != v->want_msgs) {
		rb_err("protocol error: peer %s reports %llu messages sent, expected %llu", peer,
		       (unsigned long long)p->msgs, (unsigned long long)v->want_msgs);
		return -EPROTO;
	}
	return 0;
}

/*
 * Sends this side cannot see: no longer than the causal window, no faster than the
 * port (half as much again: rxe states a nominal rate, and a peak is over short windows).
 */
static int hold_unseen(const char *peer, const struct rb_step_view *v, const struct rb_step_host *h,
                       const struct rb_stepend *p)
{
	double most = 1.5 * v->link_gbps, claim;

	if (!p->msgs)
		return 0;
	if (h->window_ns && p->elapsed_ns > h->window_ns) {
		rb_err(
		    "peer %s's DONE says its sends took %.3f ms, longer than this side's whole step (%.3f ms "
		    "from its BARRIER to the DONE): more than the link can explain",
		    peer, (double)p->elapsed_ns / 1e6, (double)h->window_ns / 1e6);
		return -EPROTO;
	}
	claim = (double)p->bytes * 8 / (double)p->elapsed_ns;
	if (most > 0 && (claim > most || (rb_stepend_has(p->peak_gbps) && p->peak_gbps > most))) {
		rb_err("peer %s's DONE claims %.3f Gb/s (peak %.3f) over a %g Gb/s link (%.6f ms for %llu "
		       "bytes; "
		       "this side's step took %.3f ms): more than the link can explain",
		       peer, claim, p->peak_gbps, v->link_gbps, (double)p->elapsed_ns / 1e6,
		       (unsigned long long)p->bytes, (double)h->window_ns / 1e6);
		return -EPROTO;
	}
	return 0;
}

int rb_stepend_hold(const char *peer, const struct rb_step_view *v, const struct rb_step_host *h,
                    const struct rb_stepend *p)
{
	unsigned has = figures(p);
	int ret;

	if ((has & v->need) != v->need || (has & v->none)) {
		rb_err("protocol error: peer %s's DONE %s a %s figure", peer,
		       (has & v->none) ? "carries" : "lacks",
		       ((has ^ v->need) | (has & v->none)) & RB_STEPEND_PEAK ? "peak rate" : "CPU");
		return -EPROTO;
	}
	ret = hold_counts(peer, v, p);
	if (!ret && v->sends == RB_PEER_SENDS_UNSEEN)
		ret = hold_unseen(peer, v, h, p);
	if (ret || !v->own_ns || !p->msgs)
		return ret;
	return rb_stepend_judge_clock(peer, v->own_ns, p->elapsed_ns, h);
}

int rb_stepend_take(struct rb_oob *o, const struct rb_step_view *v, int timeout_ms,
                    const struct rb_stepend *got, struct rb_stepend *peer)
{
	struct rb_step_host h;
	struct rb_frame f;
	int ret;

	if (got) {
		*peer = *got;
	} else {
		ret = rb_oob_expect(o, RB_MSG_DONE, &f, timeout_ms);
		if (ret)
			return ret;
		if (rb_stepend_accept(&f, v->need, v->none, peer)) {
			rb_err("malformed DONE from %s", o->peer);
			return -EPROTO;
		}
	}
	rb_step_host_now(o, &h);
	return rb_stepend_hold(o->peer, v, &h, peer);
}

int rb_stepend_counts(const char *who, uint64_t msgs, uint64_t bytes, const char *other, uint64_t omsgs,
                      uint64_t obytes)
{
	if (msgs == omsgs && bytes == obytes)
		return 0;
	rb_err("%s %llu messages (%llu bytes), %s %llu (%llu bytes)", who, (unsigned long long)msgs,
	       (unsigned long long)bytes, other, (unsigned long long)omsgs, (unsigned long long)obytes);
	return -EPROTO;
}

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

int rb_stepend_check_clock(struct rb_oob *o, uint64_t own_ns, uint64_t peer_ns)
{
	uint64_t rtt = rtt_ns(o->fd), longer = own_ns > peer_ns ? own_ns : peer_ns;

	/* Longer than this side's clock, but within the window: this side stalled, no lie. */
	if (rb_stepend_clocks_agree(own_ns, peer_ns, rtt) ||
	    (peer_ns > own_ns && peer_ns <= rb_stepend_window_ns(o)))
		return 0;
	rb_err("peer's DONE says the step took %.6f ms, this side measured %.1f ms: more than the link can "
	       "explain (at most %.1f ms apart; a peer that misreports, or a host that stalled)",
	       (double)peer_ns / 1e6, (double)own_ns / 1e6, (double)rb_stepend_slack_ns(longer, rtt) / 1e6);
	return -EPROTO;
}

uint64_t rb_step_grace_ns(double duration_s)
{
	uint64_t q = (uint64_t)(duration_s * 1e9 / 4);

	return q > 2 * RB_NS_PER_S ? q : 2 * RB_NS_PER_S;
}

enum rb_step_verdict rb_step_verdict(uint64_t took_ns, double duration_s, uint64_t grace_ns,
                                     uint64_t waited_ns)
{
	uint64_t limit = (uint64_t)(duration_s * 1e9) + grace_ns;

	if (!(duration_s > 0) || took_ns <= limit)
		return RB_STEP_ON_TIME;
	/* This side's threads sat runnable, not running: this host's delay, allowed for up to twice the
	 * grace. */
	if (took_ns <= limit + (waited_ns < 2 * grace_ns ? waited_ns : 2 * grace_ns))
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
		       (double)waited / 1e9, 2 * (double)grace_ns / 1e9);
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

int rb_stepend_recv(struct rb_oob *o, int timeout_ms, unsigned need, unsigned none, struct rb_stepend *peer)
{
	struct rb_frame f;
	int ret = rb_oob_expect(o, RB_MSG_DONE, &f, timeout_ms);

	if (!ret && rb_stepend_accept(&f, need, none, peer)) {
		rb_err("malformed DONE from %s", o->peer);
		ret = -EPROTO;
	}
	return ret;
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

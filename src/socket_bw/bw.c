/* SPDX-License-Identifier: BSD-2-Clause */
/* socket_bw's bandwidth step: the control loop, the sender thread, the counts. */
#include "bw.h"
#include "data.h"
#include "pipes.h"

#include "base/base.h"
#include "xfer.h"

#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/*
 * The cause of a step whose workers stopped (or whose sender gave up with err): the
 * peer's own message when it closed a data connection after failing, else the
 * workers' first error, or the stop signal.
 */
static int workers_failed(struct sock_run *r, struct xfer *rx, struct xfer *tx, int err)
{
	struct xfer *x = rx && xfer_error(rx, false) ? rx : tx && xfer_error(tx, false) ? tx : NULL;
	struct bw_live *l = r->live;
	int ret;

	/* Another stream's workers may hold the cause. */
	for (unsigned i = 0; !x && l && i < l->n; i++)
		x = l->p[i].rx_on && xfer_error(l->p[i].rx, false)   ? l->p[i].rx
		    : l->p[i].tx_on && xfer_error(l->p[i].tx, false) ? l->p[i].tx
		                                                     : NULL;
	if (!x) {
		ret = rb_check_stop();
		if (ret)
			return ret;
		if (err && err != -ECANCELED)
			return err; /* logged where it happened */
		rb_err("internal error: the data path stopped without a cause");
		return -EIO;
	}
	if (xfer_error(x, false) == -ECONNRESET && (ret = sock_hear_peer(r)))
		return ret;
	return xfer_error(x, true);
}

/* TCPINFO: this side's senders' figures, for the receiving peer's row. */
static int send_tcp(struct sock_run *r, const struct sock_tcp *t)
{
	uint8_t buf[96];
	struct rb_wbuf w = {buf, 0, sizeof(buf), false};

	sock_tcp_encode(&w, t);
	return rb_oob_send_w(r->oob, SOCK_MSG_TCPINFO, &w);
}

/*
 * The peer's TCPINFO, right after its DONE: it sent this step's data. Held to the
 * segments that arrived on our receiving sockets and to the step's window; a figure
 * beyond them is dropped, never shown (guard.h).
 */
static int recv_tcp(struct sock_run *r, struct sock_tcp *t)
{
	struct rb_frame f;
	uint64_t segs;
	bool have_segs;
	int ret = rb_oob_expect(r->oob, SOCK_MSG_TCPINFO, &f, (int)r->opt->timeout_s * 1000);

	if (!ret && sock_tcp_decode(f.p, f.len, r->total, t)) {
		rb_err("malformed TCPINFO from %s (%u bytes)", r->oob->peer, f.len);
		ret = -EPROTO;
	}
	if (ret)
		return ret;
	have_segs = sock_segs_rcvd(r, &segs);
	sock_tcp_hold(r->oob->peer, t, have_segs, segs, rb_stepend_window_ns(r->oob));
	return 0;
}

/*
 * One step on the bandwidth engine (run/bwstep.h): the transport's state. The engine
 * owns the clock, -D's deadline, the silence bound, the intervals, the cut and DONE;
 * this is what moves the bytes and what the peer's SIZE and RXDONE frames say.
 */
struct ctl {
	struct sock_run *r;
	struct rb_bw *b;
	uint64_t size;
	bool sending, receiving;
	bool rx_done, acked; /* the peer's messages all landed; ours acknowledged (RXDONE) */
	bool rxdone;         /* --streams: the peer's RXDONE came, its SRXDONE is due */
	uint64_t peer_streams[SOCK_MAX_STREAMS]; /* --streams: what arrived on each stream there */
	unsigned rx_ends;                        /* pipelines whose peer's end came */
	uint64_t rx_msgs, rx_bytes, rx_end, t1, cpu0;
	struct rb_stepend peer_rx; /* the peer's RXDONE: what of ours arrived there */
	struct sock_tcp own_tcp, peer_tcp;
	struct bw_step *res;
};

/*
 * The peer's announced messages into the receiving workers' ring. -ETIME: the step
 * overran its deadline waiting for room (said); an excused deadline moves on.
 */
static int post_received(struct ctl *c, struct xfer *rx, uint64_t size, uint32_t n)
{
	uint64_t t0 = rb_now_ns();
	int ret;

	while ((ret = xfer_post(rx, size, n, (int)c->r->opt->timeout_s * 1000)) == -ETIME) {
		if (rb_bw_overdue(c->b, "sending"))
			return -ETIME;
		rx->post_deadline = c->b->deadline;
	}
	/* A wait for room is this side's own, not an absence (xfer_post counted any inside it). */
	if (rb_now_ns() - t0 > RB_NS_PER_MS)
		rb_bw_waited(c->b);
	return ret;
}

static int ctl_start(void *t, struct rb_bw *b)
{
	struct ctl *c = t;
	struct bw_live *l = c->r->live;

	c->b = b;
	for (unsigned i = 0; i < l->n; i++) {
		struct pipe *p = &l->p[i];

		p->rx->post_deadline = b->deadline;
		if (!p->snd_on)
			continue;
		p->snd.t0 = b->t0;
		atomic_store_explicit(&p->snd.go, 1, memory_order_release);
		rb_seqwait_bump(&p->snd.go_wq);
	}
	return 0;
}

/* Done when both directions are; a worker or the sender that failed ends the step. */
static int ctl_turn(void *t)
{
	struct ctl *c = t;
	struct bw_live *l = c->r->live;
	int e;

	if (c->rx_done && c->acked)
		return 1;
	for (unsigned i = 0; i < l->n; i++) {
		struct pipe *p = &l->p[i];

		if (p->rx_on)
			p->rx->post_deadline = c->b->deadline;
		if ((p->rx_on && xfer_aborted(p->rx)) || (p->tx_on && xfer_aborted(p->tx)))
			return workers_failed(c->r, p->rx_on ? p->rx : NULL, p->tx_on ? p->tx : NULL, 0);
		if (p->snd_on && (e = atomic_load(&p->snd.ret)) < 0)
			return workers_failed(c->r, p->rx_on ? p->rx : NULL, p->tx, e);
	}
	return 0;
}

static uint64_t ctl_moved(void *t)
{
	return pipes_moved(((struct ctl *)t)->r->live);
}

/* Once our senders are done (a side that sends nothing never is), what is left belongs to the last interval.
 */
static bool ctl_settling(void *t)
{
	const struct bw_live *l = ((struct ctl *)t)->r->live;
	bool any = false;

	for (unsigned i = 0; i < l->n; i++) {
		if (l->p[i].snd_on && atomic_load(&l->p[i].snd.ret) == 0)
			return false;
		any |= l->p[i].snd_on;
	}
	return any;
}

/* The peer's DONE ends its frames: none may still be due. */
static int ctl_peer_done(void *t)
{
	struct ctl *c = t;

	if (c->rx_done && c->acked)
		return 0;
	rb_err("protocol error: %s sent its DONE before %s", c->r->oob->peer,
	       !c->rx_done ? "the end of its messages" : "saying what of ours arrived");
	return -EPROTO;
}

static const char *ctl_pending(void *t)
{
	struct ctl *c = t;

	if (c->b->mine)
		return "ending its step";
	return c->receiving && !c->rx_done ? "sending" : "confirming what it received";
}

/* The end of the peer's messages: once all have landed, RXDONE says what arrived, and when. */
static int rx_end(struct ctl *c)
{
	uint8_t buf[64];
	struct rb_wbuf w = {buf, 0, sizeof(buf), false};
	struct bw_live *l = c->r->live;
	int ret = 0;

	c->rx_bytes = 0;
	for (unsigned i = 0; i < l->n; i++) {
		struct xfer *rx = l->p[i].rx;

		xfer_join(rx);
		l->p[i].rx_on = false;
		if (!ret && xfer_error(rx, false))
			ret = workers_failed(c->r, rx, NULL, 0);
		c->rx_bytes += atomic_load(&rx->bytes);
	}
	c->rx_end = rb_now_ns() - c->b->t0;
	if (!ret) {
		/* No rate or CPU figure. */
		rb_stepend_encode(&w, &(struct rb_stepend){.msgs = c->rx_msgs,
		                                           .bytes = c->rx_bytes,
		                                           .elapsed_ns = c->rx_end,
		                                           .peak_gbps = NAN,
		                                           .cpu_pct = NAN});
		ret = pipes_send_ctl(c->r, SOCK_MSG_RXDONE, &w);
	}
	/* --streams: what arrived on each, so the sender holds each stream to what it sent there. */
	if (!ret && l->p[0].snd.tagged) {
		uint8_t sbuf[8 + 8 * SOCK_MAX_STREAMS];
		struct rb_wbuf sw = {sbuf, 0, sizeof(sbuf), false};
		uint64_t msgs[SOCK_MAX_STREAMS];

		for (unsigned i = 0; i < l->n; i++)
			msgs[i] = l->p[i].rx_msgs;
		sock_srxdone_encode(&sw, l->n, msgs);
		ret = pipes_send_ctl(c->r, SOCK_MSG_SRXDONE, &sw);
	}
	c->rx_done = true;
	return ret;
}

/* The peer's SIZE (its next messages) and RXDONE (ours arrived) frames. */
static int ctl_frame(void *t, const struct rb_frame *f)
{
	struct ctl *c = t;
	uint64_t v, size = c->size;
	uint32_t n;
	int ret;

	struct bw_live *l = c->r->live;
	unsigned s = 0;
	bool tagged = l->p[0].snd.tagged;

	if (c->receiving && !c->rx_done &&
	    ((!tagged && f->type == SOCK_MSG_SIZE && !rb_msgrun_decode(f->p, f->len, &v, &n)) ||
	     (tagged && f->type == SOCK_MSG_SRUN && !sock_srun_decode(f->p, f->len, l->n, &s, &v, &n)))) {
		struct pipe *p = &l->p[s];

		if (p->rx_ended) {
			rb_err("protocol error: %s announced messages on stream %u after its end",
			       c->r->oob->peer, s + 1);
			return -EPROTO;
		}
		if (v && (v != size || n > xfer_run_len(size))) {
			rb_err("peer announced %u %llu-byte message(s) in the %llu-byte step (allowed: up to "
			       "%u of "
			       "%llu bytes)",
			       n, (unsigned long long)v, (unsigned long long)size, xfer_run_len(size),
			       (unsigned long long)size);
			return -EPROTO;
		}
		ret = post_received(c, p->rx, v, v ? n : 1);
		if (ret == -ETIME)
			return -ETIMEDOUT; /* overran: said */
		if (ret)
			return workers_failed(c->r, p->rx, p->tx_on ? p->tx : NULL, ret);
		if (!v) {
			p->rx_ended = true;
			return ++c->rx_ends == l->n ? rx_end(c) : 0;
		}
		c->rx_msgs += n;
		p->rx_msgs += n;
		return 0;
	}
	if (f->type == SOCK_MSG_RXDONE && c->sending && !c->acked && !c->rxdone &&
	    !rb_stepend_decode(f->p, f->len, &c->peer_rx)) {
		c->t1 = rb_now_ns();
		c->rxdone = true;
		c->acked = !tagged;
		return 0;
	}
	if (f->type == SOCK_MSG_SRXDONE && tagged && c->rxdone && !c->acked &&
	    !sock_srxdone_decode(f->p, f->len, l->n, c->peer_streams)) {
		c->acked = true;
		return 0;
	}
	return 1;
}

/* One pipeline stopped and joined: the cause of its failure when ret had none. */
static int pipe_finish(struct ctl *c, struct pipe *p, int ret)
{
	struct sender *snd = &p->snd;

	/*
	 * Ended without a cause while the sender still runs: the peer said all our messages
	 * arrived before the sender said its end (a moment's race, or a lie that would hold a
	 * --run-infinitely sender forever). A moment is waited for, then the lie is one.
	 */
	for (unsigned ms = 0; !ret && p->snd_on && atomic_load(&snd->go) > 0 && !atomic_load(&snd->ret);
	     ms++) {
		if (ms >= 2000) {
			rb_err("protocol error: %s said our messages all arrived while we were still sending "
			       "them",
			       c->r->oob->peer);
			ret = -EPROTO;
		} else if ((ret = rb_check_stop()) == 0) {
			nanosleep(&(struct timespec){0, 1000000}, NULL);
		}
	}
	if (p->snd_on) {
		if (ret)
			xfer_abort(p->tx);
		/* Never started (the barrier failed): it gives up at once. */
		if (!atomic_load(&snd->go)) {
			atomic_store(&snd->go, -1);
			rb_seqwait_bump(&snd->go_wq);
		}
		pthread_join(snd->thread, NULL);
		p->snd_on = false;
		if (!ret && atomic_load(&snd->ret) < 0)
			ret = workers_failed(c->r, NULL, p->tx, atomic_load(&snd->ret));
	}
	if (p->tx_on) {
		if (ret)
			xfer_abort(p->tx);
		xfer_join(p->tx);
		p->tx_on = false;
		if (!ret)
			ret = xfer_error(p->tx, true);
		if (c->r->opt->zerocopy && atomic_load(&p->tx->zc_completions) &&
		    atomic_load(&p->tx->zc_copied) == atomic_load(&p->tx->zc_completions))
			rb_dbg("MSG_ZEROCOPY: the kernel copied all %llu sends of this step (no zero-copy on "
			       "this path)",
			       (unsigned long long)atomic_load(&p->tx->zc_completions));
	}
	if (p->rx_on) {
		xfer_abort(p->rx);
		xfer_join(p->rx);
		p->rx_on = false;
	}
	return ret;
}

/* The loop ended: the senders and the workers stopped and joined, their cause if the loop had none. */
static int ctl_finish(void *t, int ret)
{
	struct ctl *c = t;
	struct bw_live *l = c->r->live;
	uint64_t sent = 0;

	for (unsigned i = 0; i < l->n; i++) {
		ret = pipe_finish(c, &l->p[i], ret);
		sent += l->p[i].snd.msgs;
	}
	/* What the peer says arrived must be exactly what was sent, and on each stream what was sent there.
	 */
	if (!ret && c->sending)
		ret = rb_stepend_counts("peer received", c->peer_rx.msgs, c->peer_rx.bytes, "we sent", sent,
		                        sent * c->size);
	for (unsigned i = 0; !ret && c->sending && l->p[0].snd.tagged && i < l->n; i++)
		if (c->peer_streams[i] != l->p[i].snd.msgs) {
			rb_err("stream %u: %s says %llu messages arrived on it, where we sent %llu", i + 1,
			       c->r->oob->peer, (unsigned long long)c->peer_streams[i],
			       (unsigned long long)l->p[i].snd.msgs);
			ret = -EPROTO;
		}
	return ret;
}

/*
 * This side's figures: what it sent, on its clock, which ends with the later of its
 * directions (its last send acknowledged, the peer's landed); its CPU. The peer's
 * counts must be what arrived here (none when it sends nothing this way), its CPU goes
 * into our row labelled its side's (a DONE without it is malformed); the row's clock
 * is ours, whatever the clock rule says of the peer's.
 */
static int ctl_figures(void *t, struct rb_stepend *own, struct rb_step_view *v)
{
	struct ctl *c = t;
	uint64_t now = rb_now_ns(), msgs = pipes_sent(c->r->live);

	c->res->cpu_local = 100.0 * (double)(rb_cpu_ns() - c->cpu0) / (double)(now - c->b->t0);
	*own = (struct rb_stepend){.msgs = msgs,
	                           .bytes = msgs * c->size,
	                           .elapsed_ns = c->sending && c->t1 - c->b->t0 > c->rx_end ? c->t1 - c->b->t0
	                                                                                    : c->rx_end,
	                           .peak_gbps = NAN,
	                           .cpu_pct = c->res->cpu_local};
	*v = (struct rb_step_view){
	    .sends = c->receiving ? RB_PEER_SENDS_COUNTED : RB_PEER_SENDS_NOTHING,
	    .rcvd_msgs = c->rx_msgs,
	    .rcvd_bytes = c->rx_bytes,
	    .msg_bytes = c->size,
	    .want_msgs = RB_STEPEND_ANY,
	    .own_ns = own->elapsed_ns,
	    .need = RB_STEPEND_CPU,
	    .none = RB_STEPEND_PEAK,
	};
	/* The clock has stopped: the kernel's figures of the sockets we sent on. */
	return c->sending ? sock_tcp_read(c->r, &c->own_tcp) : 0;
}

/* A sender's TCP figures follow its DONE: the receiver's row carries them too. */
static int ctl_sent(void *t)
{
	struct ctl *c = t;

	return c->sending ? send_tcp(c->r, &c->own_tcp) : 0;
}

static int ctl_taken(void *t, const struct rb_stepend *peer)
{
	struct ctl *c = t;
	struct bw_step *res = c->res;
	bool client = c->r->client;
	int ret = c->receiving ? recv_tcp(c->r, &c->peer_tcp) : 0;

	(void)peer;
	if (ret)
		return ret;
	sock_tcp_merge(client ? &c->own_tcp : &c->peer_tcp, client ? &c->peer_tcp : &c->own_tcp, &res->tcp);
	res->tcp_by = c->own_tcp.nsocks && c->peer_tcp.nsocks ? "both"
	              : c->own_tcp.nsocks                     ? "self"
	              : c->peer_tcp.nsocks                    ? "peer"
	                                                      : "";
	return 0;
}

/* --interval (client): a stretch's row, messages as whole ones done. */
static void ctl_interval(void *t, uint64_t from, uint64_t to, uint64_t from_bytes, uint64_t to_bytes)
{
	struct ctl *c = t;

	c->r->bw_interval_row(c->r->row_arg, c->size, to_bytes / c->size - from_bytes / c->size,
	                      to_bytes - from_bytes, from, to);
}

static const struct rb_bw_ops ctl_ops = {
    .start = ctl_start,
    .turn = ctl_turn,
    .moved = ctl_moved,
    .frame = ctl_frame,
    .peer_done = ctl_peer_done,
    .pending = ctl_pending,
    .finish = ctl_finish,
    .figures = ctl_figures,
    .sent = ctl_sent,
    .taken = ctl_taken,
    .interval = ctl_interval,
    .settling = ctl_settling,
};

/*
 * Buffers and threads for one size, before the barrier: the clock starts after it
 * and times the transfer only. --streams: a pipeline per stream, each its one socket.
 */
int bw_prepare(struct sock_run *r, uint64_t size)
{
	const struct sock_opts *o = r->opt;
	bool sending = sock_sends(r), receiving = sock_receives(r), streams = o->streams > 1;
	unsigned n = streams ? o->streams : 1;
	struct xfer_cfg xc = {.verify = o->verify,
	                      .zerocopy = o->zerocopy,
	                      .nthreads = streams ? 1 : o->nthreads,
	                      .nsocks = streams ? 1 : o->nsocks,
	                      .max_size = size,
	                      .timeout_ms = (int)o->timeout_s * 1000};
	int *rx_fds = r->client ? r->s2c : r->c2s, *tx_fds = r->client ? r->c2s : r->s2c;
	struct sock_zc *zcs = r->client ? r->zc_c2s : r->zc_s2c;
	int ret;

	if ((ret = pipes_alloc(r, n, size, streams)))
		return ret;
	/* Before the barrier: the step's retransmits are what the counters gain from here. */
	sock_tcp_mark(r);
	for (unsigned i = 0; i < n && !ret; i++) {
		struct pipe *p = &r->live->p[i];

		if (receiving) {
			xc.tx = false;
			ret = xfer_start(p->rx, &xc, rx_fds + i, NULL);
			p->rx_on = !ret;
		}
		if (!ret && sending) {
			xc.tx = true;
			ret = xfer_start(p->tx, &xc, tx_fds + i, zcs + i);
			p->tx_on = !ret;
			if (!ret)
				ret = pipes_sender_start(&p->snd);
			p->snd_on = !ret;
		}
	}
	if (ret)
		bw_abandon(r);
	return ret;
}

/* --streams: each stream's figures on this side, for its row (main.c). */
static void stream_figures(const struct ctl *c, struct bw_step *res)
{
	const struct bw_live *l = c->r->live;

	res->nstreams = l->n > 1 ? l->n : 0;
	for (unsigned i = 0; i < res->nstreams; i++) {
		const struct pipe *p = &l->p[i];
		/* A side that sends rows its streams' sends; one that only receives, what arrived. */
		const struct xfer *x = c->sending ? p->tx : p->rx;
		uint64_t end = atomic_load(&x->t_end);

		res->stream[i] = (struct bw_stream){
		    .msgs = c->sending ? p->snd.msgs : p->rx_msgs,
		    .bytes = atomic_load(&x->bytes),
		    .elapsed_ns = end > c->b->t0 ? end - c->b->t0 : 0,
		};
	}
}

int bw_step(struct sock_run *r, uint64_t size, struct bw_step *res)
{
	const struct sock_opts *o = r->opt;
	struct rb_bw_cfg cfg = {
	    .duration_s = o->len.duration_s,
	    .forever = o->len.forever,
	    .timeout_s = o->timeout_s,
	    .interval_ns = r->client && size ? (uint64_t)(r->step->interval_s * 1e9) : 0,
	    .wait_ms = 50, /* the control thread sleeps on the channel: the data moves in the workers */
	};
	struct ctl c = {.r = r,
	                .size = size,
	                .sending = sock_sends(r),
	                .receiving = sock_receives(r),
	                .rx_done = !sock_receives(r),
	                .acked = !sock_sends(r),
	                .cpu0 = rb_cpu_ns(),
	                .res = res};
	struct rb_bw b;
	struct rb_bw_result br;
	int ret;

	memset(res, 0, sizeof(*res));
	ret = rb_bw_step(r->oob, &cfg, &ctl_ops, &c, &b, &br);
	/* SIGINT or SIGTERM: what this side moved so far is the size's partial row (main.c). */
	r->cut.valid = br.cut;
	r->cut.bytes = br.cut_bytes;
	r->cut.ns = br.cut_ns;
	res->own = br.own;
	res->tx_ns = c.sending && c.acked && c.t1 > b.t0 ? c.t1 - b.t0 : 0;
	res->rx_ns = c.receiving ? c.rx_end : 0;
	res->rx_bytes = c.rx_bytes;
	res->peer = br.peer;
	if (!ret)
		stream_figures(&c, res);
	pipes_free(r);
	return ret;
}

void bw_abandon(struct sock_run *r)
{
	struct bw_live *l = r->live;

	for (unsigned i = 0; l && i < l->n; i++) {
		struct pipe *p = &l->p[i];

		if (p->snd_on) {
			atomic_store(&p->snd.go, -1);
			rb_seqwait_bump(&p->snd.go_wq);
			pthread_join(p->snd.thread, NULL);
		}
		if (p->tx_on) {
			xfer_abort(p->tx);
			xfer_join(p->tx);
		}
		if (p->rx_on) {
			xfer_abort(p->rx);
			xfer_join(p->rx);
		}
	}
	pipes_free(r);
}

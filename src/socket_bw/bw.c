/* SPDX-License-Identifier: BSD-2-Clause */
/* socket_bw's bandwidth step: the control loop, the sender thread, the counts. */
#include "bw.h"
#include "data.h"

#include "base/base.h"
#include "xfer.h"

#include <errno.h>
#include <math.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

struct sender {
	struct sock_run *r;
	struct xfer *x;
	uint64_t size, msgs;
	uint64_t t0;
	_Atomic int go;          /* 0 until the clock starts, then 1; -1: give up */
	struct rb_seqwait go_wq; /* bumped when go is set */
	_Atomic int ret;         /* set when the thread ends */
	pthread_t thread;
	atomic_uint ready; /* the thread runs, its stack in place (run/window.h) */
};

/* A size between bw_prepare and the end of bw_step. */
struct bw_live {
	struct xfer *tx, *rx;
	struct sender snd;
	bool rx_on, tx_on, snd_on;
};

static int send_ctl(struct sock_run *r, uint16_t type, const struct rb_wbuf *w)
{
	int ret;

	pthread_mutex_lock(&r->send_lock);
	ret = rb_oob_send_w(r->oob, type, w);
	pthread_mutex_unlock(&r->send_lock);
	return ret;
}

/* Tells the peer that count more messages of size are on their way (0, 0: the end). */
static int send_run(struct sender *s, uint64_t size, uint32_t count)
{
	uint8_t buf[16];
	struct rb_wbuf w = {buf, 0, sizeof(buf), false};

	rb_msgrun_encode(&w, size, count);
	return send_ctl(s->r, SOCK_MSG_SIZE, &w);
}

/*
 * Publishes each message to the workers, and their sizes to the peer, whose workers
 * receive only what was announced. Every message of a step has the step's size, so
 * one SIZE frame announces a run of them (xfer_run_len): the control traffic is a
 * frame per run, not per message. A run is announced once its messages are
 * published here, which never waits on the peer (a run is at most a quarter of the
 * window a poster may run ahead of its workers).
 * Created before the step's barrier; it starts when the control thread starts the
 * clock, so thread creation is not part of the measured time.
 */
static void *sender_main(void *arg)
{
	struct sender *s = arg;
	const struct sock_opts *o = s->r->opt;
	const struct rb_runlen_opts *len = &o->len;
	uint64_t stop;
	uint32_t n, run = xfer_run_len(s->size);
	int go, ret = 0;

	rb_window_thread_ready(&s->ready);
	/* The barrier can take seconds: sleep through it. */
	while ((go = atomic_load_explicit(&s->go, memory_order_acquire)) == 0)
		RB_SEQWAIT_ONCE(&s->go_wq, atomic_load(&s->go) != 0, 100);
	if (go < 0) {
		atomic_store(&s->ret, -ECANCELED);
		return NULL;
	}
	stop = s->t0 + (uint64_t)(len->duration_s * 1e9);
	/* A run at a time: published at once (one wake-up for the workers), then announced. */
	for (uint64_t m = 0; !ret && (len->forever || (len->iters ? m < len->iters : rb_now_ns() < stop));
	     m += n) {
		n = len->iters && !len->forever && len->iters - m < run ? (uint32_t)(len->iters - m) : run;
		ret = xfer_post(s->x, s->size, n, (int)o->timeout_s * 1000);
		if (!ret)
			ret = send_run(s, s->size, n);
		if (!ret)
			s->msgs += n;
	}
	if (!ret)
		ret = xfer_post(s->x, 0, 1, (int)o->timeout_s * 1000);
	if (!ret)
		ret = send_run(s, 0, 0);
	/* A control-channel failure was logged by rb_oob_send; the control thread sees ret. */
	atomic_store(&s->ret, ret ? ret : 1);
	return NULL;
}

static int sender_start(struct sender *s)
{
	sigset_t old;
	int ret;

	rb_sig_hold(&old);
	ret = pthread_create(&s->thread, NULL, sender_main, s);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (ret)
		rb_err("cannot start the sender thread: %s", strerror(ret));
	else
		rb_window_threads_ready(&s->ready, 1, 2000);
	return -ret;
}

/*
 * The cause of a step whose workers stopped (or whose sender gave up with err): the
 * peer's own message when it closed a data connection after failing, else the
 * workers' first error, or the stop signal.
 */
static int workers_failed(struct sock_run *r, struct xfer *rx, struct xfer *tx, int err)
{
	struct xfer *x = rx && xfer_error(rx, false) ? rx : tx && xfer_error(tx, false) ? tx : NULL;
	int ret;

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

/* Bytes this side's workers moved so far this step, both directions. */
static uint64_t moved_bytes(const struct bw_live *l)
{
	return (l->rx_on ? atomic_load(&l->rx->bytes) : 0) + (l->tx_on ? atomic_load(&l->tx->bytes) : 0);
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
	bool rx_done, acked;       /* the peer's messages all landed; ours acknowledged (RXDONE) */
	bool rx_on, tx_on, snd_on; /* what still runs (the live state's, as the step ends them) */
	uint64_t rx_msgs, rx_bytes, rx_end, t1, cpu0;
	struct rb_stepend peer_rx; /* the peer's RXDONE: what of ours arrived there */
	struct sock_tcp own_tcp, peer_tcp;
	struct bw_step *res;
};

/*
 * The peer's announced messages into the receiving workers' ring. -ETIME: the step
 * overran its deadline waiting for room (said); an excused deadline moves on.
 */
static int post_received(struct ctl *c, uint64_t size, uint32_t n)
{
	struct xfer *rx = c->r->live->rx;
	int ret;

	while ((ret = xfer_post(rx, size, n, (int)c->r->opt->timeout_s * 1000)) == -ETIME) {
		if (rb_bw_overdue(c->b, "sending"))
			return -ETIME;
		rx->post_deadline = c->b->deadline;
	}
	return ret;
}

static int ctl_start(void *t, struct rb_bw *b)
{
	struct ctl *c = t;
	struct bw_live *l = c->r->live;

	c->b = b;
	l->snd.t0 = b->t0;
	l->rx->post_deadline = b->deadline;
	atomic_store_explicit(&l->snd.go, 1, memory_order_release);
	rb_seqwait_bump(&l->snd.go_wq);
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
	if (c->rx_on)
		l->rx->post_deadline = c->b->deadline;
	if ((c->rx_on && xfer_aborted(l->rx)) || (c->tx_on && xfer_aborted(l->tx)))
		return workers_failed(c->r, c->rx_on ? l->rx : NULL, c->tx_on ? l->tx : NULL, 0);
	if (c->snd_on && (e = atomic_load(&l->snd.ret)) < 0)
		return workers_failed(c->r, c->rx_on ? l->rx : NULL, l->tx, e);
	return 0;
}

static uint64_t ctl_moved(void *t)
{
	return moved_bytes(((struct ctl *)t)->r->live);
}

/* Once our sender is done, what is left belongs to the last interval. */
static bool ctl_settling(void *t)
{
	return atomic_load(&((struct ctl *)t)->r->live->snd.ret) != 0;
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
	struct xfer *rx = c->r->live->rx;
	int ret = 0;

	xfer_join(rx);
	c->rx_on = false;
	c->rx_end = rb_now_ns() - c->b->t0;
	if (xfer_error(rx, false))
		ret = workers_failed(c->r, rx, NULL, 0);
	c->rx_bytes = atomic_load(&rx->bytes);
	if (!ret) {
		/* No rate or CPU figure. */
		rb_stepend_encode(&w, &(struct rb_stepend){.msgs = c->rx_msgs,
		                                           .bytes = c->rx_bytes,
		                                           .elapsed_ns = c->rx_end,
		                                           .peak_gbps = NAN,
		                                           .cpu_pct = NAN});
		ret = send_ctl(c->r, SOCK_MSG_RXDONE, &w);
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

	if (f->type == SOCK_MSG_SIZE && c->receiving && !c->rx_done &&
	    !rb_msgrun_decode(f->p, f->len, &v, &n)) {
		if (v && (v != size || n > xfer_run_len(size))) {
			rb_err("peer announced %u %llu-byte message(s) in the %llu-byte step (allowed: up to "
			       "%u of "
			       "%llu bytes)",
			       n, (unsigned long long)v, (unsigned long long)size, xfer_run_len(size),
			       (unsigned long long)size);
			return -EPROTO;
		}
		ret = post_received(c, v, v ? n : 1);
		if (ret == -ETIME)
			return -ETIMEDOUT; /* overran: said */
		if (ret)
			return workers_failed(c->r, c->r->live->rx, c->tx_on ? c->r->live->tx : NULL, ret);
		if (!v)
			return rx_end(c);
		c->rx_msgs += n;
		return 0;
	}
	if (f->type == SOCK_MSG_RXDONE && c->sending && !c->acked &&
	    !rb_stepend_decode(f->p, f->len, &c->peer_rx)) {
		c->t1 = rb_now_ns();
		c->acked = true;
		return 0;
	}
	return 1;
}

/* The loop ended: the sender and the workers stopped and joined, their cause if the loop had none. */
static int ctl_finish(void *t, int ret)
{
	struct ctl *c = t;
	struct bw_live *l = c->r->live;
	struct sender *snd = &l->snd;

	if (c->snd_on) {
		if (ret)
			xfer_abort(l->tx);
		/* Never started (the barrier failed): it gives up at once. */
		if (!atomic_load(&snd->go)) {
			atomic_store(&snd->go, -1);
			rb_seqwait_bump(&snd->go_wq);
		}
		pthread_join(snd->thread, NULL);
		if (!ret && atomic_load(&snd->ret) < 0)
			ret = workers_failed(c->r, NULL, l->tx, atomic_load(&snd->ret));
	}
	if (c->tx_on) {
		if (ret)
			xfer_abort(l->tx);
		xfer_join(l->tx);
		if (!ret)
			ret = xfer_error(l->tx, true);
	}
	if (c->rx_on) {
		xfer_abort(l->rx);
		xfer_join(l->rx);
	}
	if (c->tx_on && c->r->opt->zerocopy && atomic_load(&l->tx->zc_completions) &&
	    atomic_load(&l->tx->zc_copied) == atomic_load(&l->tx->zc_completions))
		rb_dbg(
		    "MSG_ZEROCOPY: the kernel copied all %llu sends of this step (no zero-copy on this path)",
		    (unsigned long long)atomic_load(&l->tx->zc_completions));
	/* What the peer says arrived must be exactly what was sent. */
	if (!ret && c->sending)
		ret = rb_stepend_counts("peer received", c->peer_rx.msgs, c->peer_rx.bytes, "we sent",
		                        snd->msgs, snd->msgs * c->size);
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
	struct sender *snd = &c->r->live->snd;
	uint64_t now = rb_now_ns();

	c->res->cpu_local = 100.0 * (double)(rb_cpu_ns() - c->cpu0) / (double)(now - c->b->t0);
	*own = (struct rb_stepend){.msgs = snd->msgs,
	                           .bytes = snd->msgs * c->size,
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
 * and times the transfer only.
 */
int bw_prepare(struct sock_run *r, uint64_t size)
{
	const struct sock_opts *o = r->opt;
	bool sending = sock_sends(r), receiving = sock_receives(r);
	struct bw_live *l = calloc(1, sizeof(*l));
	struct xfer_cfg xc = {.verify = o->verify,
	                      .zerocopy = o->zerocopy,
	                      .nthreads = o->nthreads,
	                      .nsocks = o->nsocks,
	                      .max_size = size,
	                      .timeout_ms = (int)o->timeout_s * 1000};
	int ret = 0;

	if (l) {
		l->tx = calloc(1, sizeof(*l->tx));
		l->rx = calloc(1, sizeof(*l->rx));
	}
	if (!l || !l->tx || !l->rx) {
		if (l) {
			free(l->tx);
			free(l->rx);
		}
		free(l);
		rb_err("out of memory");
		return -ENOMEM;
	}
	/* Written, not only allocated: a calloc's fresh heap pages would fault at the first count. */
	explicit_bzero(l->tx, sizeof(*l->tx));
	explicit_bzero(l->rx, sizeof(*l->rx));
	r->live = l;
	l->snd = (struct sender){.r = r, .x = l->tx, .size = size};
	/* Before the barrier: the step's retransmits are what the counters gain from here. */
	sock_tcp_mark(r);
	if (receiving) {
		xc.tx = false;
		ret = xfer_start(l->rx, &xc, r->client ? r->s2c : r->c2s, NULL);
		l->rx_on = !ret;
	}
	if (!ret && sending) {
		xc.tx = true;
		ret = xfer_start(l->tx, &xc, r->client ? r->c2s : r->s2c, r->client ? r->zc_c2s : r->zc_s2c);
		l->tx_on = !ret;
		if (!ret)
			ret = sender_start(&l->snd);
		l->snd_on = !ret;
	}
	if (ret)
		bw_abandon(r);
	return ret;
}

int bw_step(struct sock_run *r, uint64_t size, struct bw_step *res)
{
	const struct sock_opts *o = r->opt;
	struct bw_live *l = r->live;
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
	                .rx_on = l->rx_on,
	                .tx_on = l->tx_on,
	                .snd_on = l->snd_on,
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
	res->peer = br.peer;
	free(l->tx);
	free(l->rx);
	free(l);
	r->live = NULL;
	return ret;
}

void bw_abandon(struct sock_run *r)
{
	struct bw_live *l = r->live;

	if (!l)
		return;
	if (l->snd_on) {
		atomic_store(&l->snd.go, -1);
		rb_seqwait_bump(&l->snd.go_wq);
		pthread_join(l->snd.thread, NULL);
	}
	if (l->tx_on) {
		xfer_abort(l->tx);
		xfer_join(l->tx);
	}
	if (l->rx_on) {
		xfer_abort(l->rx);
		xfer_join(l->rx);
	}
	free(l->tx);
	free(l->rx);
	free(l);
	r->live = NULL;
}

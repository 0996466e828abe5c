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

/* --interval (client): the stretch in progress, in ns from the step's start. */
struct ivl {
	uint64_t every, from, next; /* every 0: no interval rows */
	uint64_t bytes;             /* both directions' bytes when it began */
};

/* Bytes this side's workers moved so far this step, both directions. */
static uint64_t moved_bytes(const struct bw_live *l)
{
	return (l->rx_on ? atomic_load(&l->rx->bytes) : 0) + (l->tx_on ? atomic_load(&l->tx->bytes) : 0);
}

/* The interval in progress ends at `to`: its row (messages as whole ones done), then the next begins. */
static void interval_end(struct sock_run *r, struct ivl *iv, uint64_t size, uint64_t bytes, uint64_t to)
{
	r->bw_interval_row(r->row_arg, size, bytes / size - iv->bytes / size, bytes - iv->bytes, iv->from,
	                   to);
	iv->from = to;
	iv->bytes = bytes;
	iv->next = rb_grid_next(iv->every, to);
}

/* The receiver's and the sender's counts of one direction agree, or the step failed. */
/*
 * -D: the step ends by this side's clock at -D plus the grace (sock_grace_ns),
 * whatever the peer says or keeps sending, so a peer that dribbles a byte now and
 * then cannot hold this side. 0: no such bound (-n has the --timeout silence bound;
 * --run-infinitely runs until a signal).
 */
static uint64_t step_deadline(const struct sock_opts *o, uint64_t t0)
{
	if (o->len.forever || !(o->len.duration_s > 0))
		return 0;
	return t0 + (uint64_t)(o->len.duration_s * 1e9) + rb_step_grace_ns(o->len.duration_s);
}

/*
 * The step reached its deadline: this side ends it, naming the direction still
 * going (-ETIMEDOUT), unless this host's own waits for a CPU excuse the delay (0:
 * look again a moment later).
 */
static int overran(const struct sock_run *r, uint64_t t0, bool rx_pending)
{
	return rb_step_overdue(r->oob, rb_now_ns() - t0, r->opt->len.duration_s,
	                       rb_step_grace_ns(r->opt->len.duration_s),
	                       rx_pending ? "sending" : "confirming what it received");
}

/* How much later an excused deadline is looked at again. */
#define DEADLINE_AGAIN_NS (50 * RB_NS_PER_MS)

/*
 * The peer's announced messages into the receiving workers' ring. -ETIME: the step
 * overran its deadline waiting for room (said); an excused deadline moves on.
 */
static int post_received(struct sock_run *r, uint64_t size, uint32_t n, uint64_t *deadline)
{
	struct xfer *rx = r->live->rx;
	int ret;

	while ((ret = xfer_post(rx, size, n, (int)r->opt->timeout_s * 1000)) == -ETIME) {
		if (overran(r, r->live->snd.t0, true))
			return -ETIME;
		*deadline = rx->post_deadline = rb_now_ns() + DEADLINE_AGAIN_NS;
	}
	return ret;
}

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
	uint8_t buf[64];
	struct rb_frame f;
	const struct sock_opts *o = r->opt;
	bool sending = sock_sends(r), receiving = sock_receives(r);
	struct bw_live *l = r->live;
	struct xfer *tx = l->tx, *rx = l->rx;
	struct sender *snd = &l->snd;
	bool rx_done = !receiving, acked = !sending, rx_on = l->rx_on, tx_on = l->tx_on, snd_on = l->snd_on;
	uint64_t rx_msgs = 0, rx_bytes = 0, cpu0 = 0, t1 = 0, last_move, last_bytes = 0, deadline;
	uint64_t rx_end = 0; /* the peer's direction done, on our clock */
	struct rb_stepend peer_rx = {0};
	uint64_t every = r->client && size ? (uint64_t)(r->run->out_opts.interval_s * 1e9) : 0;
	struct ivl iv = {every, 0, every, 0};
	struct sock_tcp own_tcp = {0}, peer_tcp = {0};
	int ret = 0;

	memset(res, 0, sizeof(*res));
	r->cut.valid = false;
	cpu0 = rb_cpu_ns();
	rb_window_start(); /* nothing but the transfer until the peer's last bytes and our acknowledgement */
	snd->t0 = rb_now_ns();
	deadline = step_deadline(o, snd->t0);
	rx->post_deadline = deadline;
	atomic_store_explicit(&snd->go, 1, memory_order_release);
	rb_seqwait_bump(&snd->go_wq);
	last_move = rb_now_ns();
	/* The control thread: the peer's sizes in, our acknowledgement out. */
	while (!ret && !(rx_done && acked)) {
		uint32_t n;
		uint64_t v,
		    moved = (rx_on ? atomic_load(&rx->bytes) : 0) + (tx_on ? atomic_load(&tx->bytes) : 0);
		int rd, e;

		ret = rb_check_stop();
		if (ret)
			break;
		if (deadline && rb_now_ns() >= deadline) {
			ret = overran(r, snd->t0, receiving && !rx_done);
			if (ret)
				break;
			deadline = rx->post_deadline = rb_now_ns() + DEADLINE_AGAIN_NS;
		}
		if ((rx_on && xfer_aborted(rx)) || (tx_on && xfer_aborted(tx))) {
			ret = workers_failed(r, rx_on ? rx : NULL, tx_on ? tx : NULL, 0);
			break;
		}
		if (snd_on && (e = atomic_load(&snd->ret)) < 0) {
			ret = workers_failed(r, rx_on ? rx : NULL, tx, e);
			break;
		}
		if (moved != last_bytes) {
			last_bytes = moved;
			last_move = rb_now_ns();
		}
		/* Once our sender is done, what is left belongs to the last interval: no sliver row. */
		if (iv.every && !atomic_load(&snd->ret)) {
			uint64_t at = rb_now_ns() - snd->t0;
			if (at >= iv.next)
				interval_end(r, &iv, size, moved_bytes(l), at);
		}
		rd = rb_oob_readable(r->oob, 50);
		if (rd < 0) {
			ret = rd;
			rb_err("out-of-band channel to %s failed: %s", r->oob->peer, strerror(-rd));
			break;
		}
		if (!rd) {
			if (rb_now_ns() - last_move > o->timeout_s * RB_NS_PER_S) {
				rb_err("nothing moved for %u s (--timeout)", o->timeout_s);
				ret = -ETIMEDOUT;
			}
			continue;
		}
		ret = rb_oob_recv(r->oob, &f, (int)o->timeout_s * 1000);
		if (ret)
			break;
		last_move = rb_now_ns();
		if (f.type == SOCK_MSG_SIZE && receiving && !rx_done &&
		    !rb_msgrun_decode(f.p, f.len, &v, &n)) {
			if (v && (v != size || n > xfer_run_len(size))) {
				rb_err("peer announced %u %llu-byte message(s) in the %llu-byte step "
				       "(allowed: up "
				       "to %u of %llu bytes)",
				       n, (unsigned long long)v, (unsigned long long)size, xfer_run_len(size),
				       (unsigned long long)size);
				ret = -EPROTO;
				break;
			}
			ret = post_received(r, v, v ? n : 1, &deadline);
			if (ret == -ETIME) {
				ret = -ETIMEDOUT; /* overran: said */
				break;
			}
			if (ret) {
				ret = workers_failed(r, rx, tx_on ? tx : NULL, ret);
				break;
			}
			if (v) {
				rx_msgs += n;
				continue;
			}
			/* End of the peer's messages: once all have landed, say so. */
			xfer_join(rx);
			rx_on = false;
			rx_end = rb_now_ns() - snd->t0;
			if (xfer_error(rx, false))
				ret = workers_failed(r, rx, NULL, 0);
			rx_bytes = atomic_load(&rx->bytes);
			if (!ret) {
				/* What arrived, and when (on our clock); no rate or CPU figure. */
				struct rb_stepend got = {rx_msgs, rx_bytes, rx_end, NAN, NAN};
				struct rb_wbuf w = {buf, 0, sizeof(buf), false};
				rb_stepend_encode(&w, &got);
				ret = send_ctl(r, SOCK_MSG_RXDONE, &w);
			}
			rx_done = true;
		} else if (f.type == SOCK_MSG_RXDONE && sending && !acked &&
		           !rb_stepend_decode(f.p, f.len, &peer_rx)) {
			t1 = rb_now_ns();
			acked = true;
		} else {
			rb_err("protocol error: unexpected or malformed %s frame from %s",
			       rb_msg_name(f.type), r->oob->peer);
			ret = -EPROTO;
		}
	}
	rb_window_stop();
	/* SIGINT or SIGTERM: what this side moved so far is the size's partial row (main.c). */
	if (ret == -EINTR) {
		r->cut.valid = true;
		r->cut.bytes = moved_bytes(l);
		r->cut.ns = rb_now_ns() - snd->t0;
	}
	if (snd_on) {
		if (ret)
			xfer_abort(tx);
		/* Never started (the barrier failed): it gives up at once. */
		if (!atomic_load(&snd->go)) {
			atomic_store(&snd->go, -1);
			rb_seqwait_bump(&snd->go_wq);
		}
		pthread_join(snd->thread, NULL);
		if (!ret && atomic_load(&snd->ret) < 0)
			ret = workers_failed(r, NULL, tx, atomic_load(&snd->ret));
	}
	if (tx_on) {
		if (ret)
			xfer_abort(tx);
		xfer_join(tx);
		if (!ret)
			ret = xfer_error(tx, true);
	}
	if (rx_on) {
		xfer_abort(rx);
		xfer_join(rx);
	}
	if (tx_on && o->zerocopy && atomic_load(&tx->zc_completions) &&
	    atomic_load(&tx->zc_copied) == atomic_load(&tx->zc_completions))
		rb_dbg(
		    "MSG_ZEROCOPY: the kernel copied all %llu sends of this step (no zero-copy on this path)",
		    (unsigned long long)atomic_load(&tx->zc_completions));
	if (ret)
		goto out;
	/* What the peer says arrived must be exactly what was sent. */
	if (sending)
		ret = rb_stepend_counts("peer received", peer_rx.msgs, peer_rx.bytes, "we sent", snd->msgs,
		                        snd->msgs * size);
	if (ret)
		goto out;
	res->cpu_local = 100.0 * (double)(rb_cpu_ns() - cpu0) / (double)(rb_now_ns() - snd->t0);
	/* Our clock ends with the later of our directions: our last send acknowledged, the peer's landed. */
	res->own = (struct rb_stepend){snd->msgs, snd->msgs * size,
	                               sending && t1 - snd->t0 > rx_end ? t1 - snd->t0 : rx_end, NAN,
	                               res->cpu_local};
	/* The clock has stopped: the kernel's figures of the sockets we sent on. */
	if (sending)
		ret = sock_tcp_read(r, &own_tcp);
	pthread_mutex_lock(&r->send_lock);
	if (!ret)
		ret = rb_stepend_send(r->oob, &res->own);
	/* A sender's figures follow its DONE: the receiver's row carries them too. */
	if (!ret && sending)
		ret = send_tcp(r, &own_tcp);
	pthread_mutex_unlock(&r->send_lock);
	/*
	 * The peer sends its DONE as soon as its loop ends, as we did: --timeout bounds the wait. Its
	 * counts are what arrived here (none when it sends nothing this way); its CPU goes into our row,
	 * labelled its side's: a DONE without it is malformed. The row's clock is ours, whatever the
	 * clock rule says of the peer's.
	 */
	if (!ret) {
		struct rb_step_view v = {
		    .sends = receiving ? RB_PEER_SENDS_COUNTED : RB_PEER_SENDS_NOTHING,
		    .rcvd_msgs = rx_msgs,
		    .rcvd_bytes = rx_bytes,
		    .msg_bytes = size,
		    .want_msgs = RB_STEPEND_ANY,
		    .own_ns = res->own.elapsed_ns,
		    .need = RB_STEPEND_CPU,
		    .none = RB_STEPEND_PEAK,
		};
		ret = rb_stepend_take(r->oob, &v, (int)o->timeout_s * 1000, NULL, &res->peer);
		if (ret == RB_STEPEND_DOUBT)
			ret = 0;
	}
	if (!ret && receiving)
		ret = recv_tcp(r, &peer_tcp);
	if (!ret) {
		sock_tcp_merge(r->client ? &own_tcp : &peer_tcp, r->client ? &peer_tcp : &own_tcp, &res->tcp);
		res->tcp_by = own_tcp.nsocks && peer_tcp.nsocks ? "both"
		              : own_tcp.nsocks                  ? "self"
		              : peer_tcp.nsocks                 ? "peer"
		                                                : "";
	}
	/* The intervals tile the step's measured time: the last one ends where the size's row does. */
	if (!ret && iv.every)
		interval_end(r, &iv, size, moved_bytes(l), res->own.elapsed_ns);
out:
	free(tx);
	free(rx);
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

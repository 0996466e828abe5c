/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fifo_pingpong's two modes.
 *
 * Window 1, ping-pong (the ping-pong engine owns the loop, clock and statistics):
 * a round trip is the client's send then its receive, the server's receive then its
 * send, each posted when the one before it finished, as a program that calls
 * isend/irecv and waits for each does. A receive's CTS is posted only when the
 * receive is: the peer's send waits for it, so a one-way sample holds a CTS write
 * as well as the payload's.
 *
 * Window N, pipelined bandwidth (the bandwidth engine owns the step: its clock, -D's
 * deadline, the heartbeat, the peer's frames and DONE both ways): the server receives,
 * keeping N CTS outstanding (a new one as each message completes); the client sends
 * whenever a CTS is there and fewer than N messages are in flight, and counts the time
 * it had room to send but no CTS, and each message's time from post to its last send
 * completion. With --account each side stamps its half of every message (account.h).
 */
#include "modes.h"
#include "account.h"
#include "xfer.h"

#include "base/base.h"

#include <errno.h>
#include <math.h>
#include <string.h>

#define CLOCK_EVERY   256 /* spins between clock reads in a wait */
#define LOOK_PROGRESS 16  /* completions between looks in a channel loop */
/*
 * With channel threads, the run's thread looks this often (its housekeeping's period):
 * it has nothing else to do, and each wake-up costs a core time the channels need
 * (at 1 ms, the two ends' run threads took 0.7 of the 2 CPUs of the emulated pair).
 */
#define LOOK_MS 10

/* ---------------------------------------------------------------- waits */

static int cts_there(struct fp *f)
{
	int ret = fp_tx_poll(f);
	return ret < 0 ? ret : fp_tx_cts(f);
}

static int sends_done(struct fp *f)
{
	int ret = fp_tx_poll(f);
	return ret < 0 ? ret : f->tx.done == f->tx.head;
}

static int recv_done(struct fp *f)
{
	int ret = fp_rx_poll(f);

	if (ret >= 0)
		ret = fp_tx_poll(f); /* the CTS QP's completions: its queue drains */
	return ret < 0 ? ret : f->rx.done == f->rx.tail || f->rx.stopped;
}

/* Spins on cond until it holds (1), fails (< 0) or --timeout passes since the start (this side's absences
 * aside). */
static int wait_for(struct fp *f, int (*cond)(struct fp *), const char *what)
{
	uint64_t t0 = rb_now_ns(), away0 = f->away_ns;

	for (unsigned spin = 1;; spin++) {
		int ret = cond(f);

		if (ret)
			return ret < 0 ? ret : 0;
		if (spin % CLOCK_EVERY == 0) {
			uint64_t now = rb_now_ns();
			if (now >= f->hk_next && (ret = fp_housekeeping(f, now)))
				return ret;
			/* The time this side did not run is not the peer's (an absence that began before t0,
			 * at most since t0). */
			uint64_t el = now - t0, aw = f->away_ns - away0 < el ? f->away_ns - away0 : el;

			if (el - aw > (uint64_t)f->opt.timeout_s * RB_NS_PER_S)
				return fp_timeout(f, what);
		}
	}
}

static void step_start(struct fp *f, uint64_t size, uint64_t seq)
{
	f->size = size;
	f->tag = seq;
	f->rx.first = f->rx.tail;
	f->tx.first = f->tx.head;
	f->tx.cts_wait_ns = f->tx.post_cqe_ns = 0;
	f->echoed = 0;
	f->hk_next = 0;
	fp_progress(f, rb_now_ns());
	rb_turn_start(&f->hk_turn, f->last_progress);
}

/* ---------------------------------------------------------------- ping-pong */

static int send_one(struct fp *f, bool stop)
{
	int ret;

	fp_acct_now(f->acct, AC_READY);
	ret = wait_for(f, cts_there, "clear-to-send");
	fp_acct_now(f->acct, AC_CTS_SEEN);
	if (!ret)
		ret = fp_tx_post(f, stop);
	fp_acct_at(f->acct, AC_POSTED, f->tx.t_hand);
	if (!ret)
		fp_acct_at(f->acct, AC_POST_RET, f->tx.t_post[(f->tx.head - 1) % WINDOW_MAX]);
	if (!ret)
		ret = wait_for(f, sends_done, "send completion");
	fp_acct_now(f->acct, AC_SENT);
	return ret;
}

/* 1: the peer's STOP came instead of a message (the CTS it consumed was this one's). */
static int recv_one(struct fp *f)
{
	int ret;

	fp_acct_now(f->acct, AC_RX_READY);
	ret = fp_rx_post(f);
	fp_acct_at(f->acct, AC_CTS_POSTED, f->rx.t_cts_hand);
	if (!ret)
		ret = wait_for(f, recv_done, "message");
	fp_acct_at(f->acct, AC_RX_CQE, f->rx.t_cqe);
	fp_acct_now(f->acct, AC_RX_DONE);
	if (ret || !f->rx.stopped)
		return ret;
	f->rx.stopped = false;
	f->rx.stop = UINT64_MAX;
	return 1;
}

static int pp_ready(void *t, uint64_t i)
{
	(void)i;
	return fp_tx_fill(t);
}

static int pp_ping(void *t, uint64_t i)
{
	struct fp *f = t;
	int ret;

	if (f->acct)
		fp_acct_begin(f->acct, i);
	ret = send_one(f, false);
	if (!ret && (ret = recv_one(t)) > 0) {
		rb_err("the peer sent STOP in the middle of a round trip");
		ret = -EPROTO;
	}
	return ret;
}

static int pp_end(void *t, uint64_t i)
{
	struct fp *f = t;

	(void)i;
	if (f->acct)
		fp_acct_begin(f->acct, 0); /* STOP is no message */
	return send_one(f, true);
}

static int pp_pong(void *t, uint64_t i)
{
	struct fp *f = t;
	int ret;

	if (f->acct)
		fp_acct_begin(f->acct, i);
	ret = recv_one(f);
	if (ret || (ret = fp_tx_fill(f)) != 0)
		return ret;
	if (!(ret = send_one(f, false)))
		f->echoed++;
	return ret;
}

static int pp_interval(void *t, const struct rb_pp_result *res, double from_s, double to_s)
{
	struct fp *f = t;

	return f->interval_row(f->row_arg, res, from_s, to_s);
}

int fp_pp_step(struct fp *f, bool client, struct rb_step *s, struct rb_pp_result *res)
{
	static const struct rb_pp_ops ops = {
	    .ready = pp_ready,
	    .ping = pp_ping,
	    .end = pp_end,
	    .pong = pp_pong,
	    .interval = pp_interval,
	};
	struct rb_pp_cfg cfg = {
	    .iters = f->opt.len.iters,
	    .duration_s = f->opt.len.duration_s,
	    .warmup = f->opt.warmup,
	    .divisor = 2,
	    .summary_ms = (int)f->opt.timeout_s * 1000,
	    .interval_s = s->interval_s,
	};
	int ret;

	/* --account: the clocks probed before (the step's clock not started) and after, the stamps to the
	 * client after. */
	ret = f->acct ? fp_acct_start(f->acct, f->o, client, (int)f->opt.timeout_s * 1000) : 0;
	step_start(f, s->size, s->seq);
	f->step = s;
	if (!ret)
		ret = rb_pp_step(&f->pp, &ops, f, f->o, &cfg, client, s->size, res);
	if (!ret && f->acct)
		ret = fp_acct_finish(f->acct, f->o, client, (int)f->opt.timeout_s * 1000, &res->sum);
	f->step = NULL;
	return ret;
}

/* ---------------------------------------------------------------- bandwidth */

/*
 * The run's own look, on its thread: the housekeeping (which tends the engine), and the
 * receiver's -D bound even once the sender's DONE is in: its DONE may overtake its last
 * messages, so the receiver still waits on it (for STOP), and ends by its own clock at
 * -D plus the grace whatever the sender keeps doing.
 */
static int run_look(struct fp *f, uint64_t now)
{
	int ret = now >= f->hk_next ? fp_housekeeping(f, now) : 0;

	if (!ret && !f->client && f->bw && f->bw->peer && f->bw->deadline && now >= f->bw->deadline)
		ret = rb_bw_overdue(f->bw, "sending");
	return ret;
}

/*
 * A channel's loop looks up every CLOCK_EVERY spins: a crew's worker only to leave
 * when the step failed elsewhere (the cause is the crew's); one channel alone does
 * the run's look itself.
 */
static int look(struct fp *f, uint64_t now)
{
	uint64_t gap;

	if (!f->worker)
		return run_look(f, now);
	/*
	 * A worker's own absence (a starved or frozen host) is not a stall: its progress bound
	 * and beat move on by it, by at most max(--timeout, 30 s) a step (rb_step_credit), so
	 * a host starved at every turn still meets the bound.
	 */
	if ((gap = rb_cpuwait_gap(&f->loop_turn, now, 0)) &&
	    (gap = rb_step_credit(&f->credited, gap, f->opt.timeout_s))) {
		f->last_progress = f->last_progress + gap < now ? f->last_progress + gap : now;
		fp_progress(f, f->last_progress);
	}
	return fp_left(f);
}

/*
 * Whether this spin looks up: every CLOCK_EVERY spins, and after every LOOK_PROGRESS
 * completions (a message's work, a verify or a post into the kernel, dwarfs a clock
 * read every few of them). Counting spins alone, 256 busy ones on a slow host could run
 * for seconds without a look, and the peer would hear no heartbeat: the likely cause of
 * a CI guest's client hearing nothing for 5 s while 256 KiB messages were verified.
 */
static bool looks(const struct fp *f, unsigned spin, uint64_t *seen)
{
	if (f->progressed - *seen < LOOK_PROGRESS && spin % CLOCK_EVERY)
		return false;
	*seen = f->progressed;
	return true;
}

/* One channel's sends: -n messages, or until -D's end and then its STOP. */
static int chan_send(struct fp *f)
{
	uint64_t total = f->opt.len.iters, first = 0, sent = 0, waiting = 0, now = 0, seen = 0;
	bool stop_sent = false;
	int ret = 0;

	seen = f->progressed;
	if (f->worker) {
		rb_turn_start(&f->loop_turn, rb_now_ns());
		f->credited = 0;
	}
	for (unsigned spin = 1;; spin++) {
		bool more = total ? sent < total : now < f->t_stop;

		uint64_t done0 = f->tx.done;

		if ((ret = fp_tx_poll(f)) < 0)
			return ret;
		for (uint64_t m = done0; f->acct && m < f->tx.done; m++)
			fp_acct_msg(f->acct, m - f->tx.first + 1, AC_SENT, f->tx.t_last);
		if (!more && f->tx.done == f->tx.head && (total || stop_sent))
			break;
		/* -D: the end marker takes the next CTS once every message has completed. */
		if ((more || (!total && !stop_sent && f->tx.done == f->tx.head)) &&
		    f->tx.head - f->tx.done < f->opt.window) {
			ret = fp_tx_cts(f);
			if (ret < 0)
				return ret;
			if (ret == 0 && !waiting)
				waiting = rb_now_ns();
			if (ret == 1) {
				uint64_t t = rb_now_ns(), m = f->tx.head - f->tx.first + 1;

				if (waiting)
					f->tx.cts_wait_ns += t - waiting;
				if (f->acct && more) {
					fp_acct_msg(f->acct, m, AC_READY, waiting ? waiting : t);
					fp_acct_msg(f->acct, m, AC_CTS_SEEN, t);
				}
				waiting = 0;
				if (more && (ret = fp_tx_fill(f)) != 0)
					return ret;
				if ((ret = fp_tx_post(f, !more)))
					return ret;
				if (f->acct && more) {
					fp_acct_msg(f->acct, m, AC_POSTED, f->tx.t_hand);
					fp_acct_msg(f->acct, m, AC_POST_RET,
					            f->tx.t_post[(f->tx.head - 1) % WINDOW_MAX]);
				}
				if (!more) {
					stop_sent = true;
					f->t_end = f->tx.t_last;
				} else {
					if (!first)
						first = f->tx.t_post[(f->tx.head - 1) % WINDOW_MAX];
					sent++;
				}
				fp_progress(f, t);
			}
		}
		if (looks(f, spin, &seen)) {
			now = rb_now_ns();
			if ((ret = look(f, now)))
				return ret;
			if (now - f->last_progress > (uint64_t)f->opt.timeout_s * RB_NS_PER_S)
				return fp_timeout(f, waiting ? "clear-to-send" : "send completion");
		}
	}
	f->msgs = sent;
	f->t_first = first;
	if (total)
		f->t_end = f->tx.t_last;
	return 0;
}

/* One channel's receives: -n messages, or until the sender's STOP and then the clearing. */
static int chan_recv(struct fp *f)
{
	uint64_t total = f->opt.len.iters, seen = 0;
	int ret;

	seen = f->progressed;
	if (f->worker) {
		rb_turn_start(&f->loop_turn, rb_now_ns());
		f->credited = 0;
	}
	for (unsigned spin = 1;; spin++) {
		while (f->rx.tail - f->rx.done < f->opt.window &&
		       (!total || f->rx.tail - f->rx.first < total) && !f->rx.stopped) {
			uint64_t m = f->rx.tail - f->rx.first + 1;

			if (f->acct)
				fp_acct_msg(f->acct, m, AC_RX_READY, rb_now_ns());
			if ((ret = fp_rx_post(f)))
				return ret;
			if (f->acct)
				fp_acct_msg(f->acct, m, AC_CTS_POSTED, f->rx.t_cts_hand);
		}
		if ((ret = fp_rx_poll(f)) < 0 || (ret = fp_tx_poll(f)) < 0)
			return ret;
		if (total ? f->rx.done - f->rx.first == total : f->rx.stopped)
			break;
		if (looks(f, spin, &seen)) {
			uint64_t now = rb_now_ns();
			if ((ret = look(f, now)))
				return ret;
			if (now - f->last_progress > (uint64_t)f->opt.timeout_s * RB_NS_PER_S)
				return fp_timeout(f, "message");
		}
	}
	f->t_end = rb_now_ns();
	f->msgs = (total ? f->rx.done : f->rx.stop) - f->rx.first;
	if (total || (ret = fp_left(f)))
		return total ? 0 : ret;
	return fp_rx_cancel(f);
}

static struct fp *chan(struct fp *f, unsigned t)
{
	return t ? &f->more[t - 1] : f;
}

/* Worker t's step (the crew's): its channel's loop. */
int fp_chan_work(void *arg, unsigned t)
{
	struct fp *c = chan(arg, t);

	return c->client ? chan_send(c) : chan_recv(c);
}

/* The run's thread between the crew's looks: the housekeeping and -D's bound. */
static int crew_look(void *arg)
{
	return run_look(arg, rb_now_ns());
}

/* The sender's figures: totals over its channels, first post to last completion of any. */
static void sender_result(struct fp *f, struct fp_bw *res)
{
	uint64_t first = UINT64_MAX, end = 0;

	res->threads = f->opt.threads;
	for (unsigned t = 0; t < f->opt.threads; t++) {
		const struct fp *c = chan(f, t);

		res->msgs += c->msgs;
		res->cts_wait_ns += c->tx.cts_wait_ns;
		res->post_cqe_ns += c->tx.post_cqe_ns;
		if (c->msgs) {
			first = c->t_first < first ? c->t_first : first;
			end = c->t_end > end ? c->t_end : end;
			res->send_ns += c->t_end - c->t_first;
		}
	}
	res->bytes = res->msgs * f->opt.multi_recv * f->size;
	res->elapsed_ns = end > first ? end - first : 0;
	for (unsigned t = 0; t < f->opt.threads; t++) {
		const struct fp *c = chan(f, t);

		res->thread_msgs[t] = c->msgs;
		res->thread_ns[t] = c->msgs && c->t_end > first ? c->t_end - first : 0;
	}
}

/*
 * The engine's transport ops. A turn runs this side's whole part (its channels' loops
 * tend the engine every 10 ms through the housekeeping); the receiver's own DONE says
 * it sent nothing, and the sender's is held to what arrived here.
 */
static int op_start(void *t, struct rb_bw *b)
{
	((struct fp *)t)->bw = b;
	return 0;
}

static int op_turn(void *t)
{
	struct fp *f = t;
	int ret;

	if (f->bw_part_done)
		return 1; /* this side's part is over: the peer's DONE is awaited */
	ret = f->crew     ? rb_crew_step(f->crew, crew_look, f, LOOK_MS, f->opt.timeout_s)
	      : f->client ? chan_send(f)
	                  : chan_recv(f);
	f->bw_part_done = !ret;
	return ret ? ret : 1;
}

/*
 * What this side moved: messages complete here (sent and acknowledged, or received),
 * in bytes. While they flow the step is alive whatever the peer's heartbeat does (a
 * peer starved on a shared host beats late). With channel threads the counts are the
 * workers' own: the crew's beats and the heartbeats keep the bound, each channel its
 * own (fp_timeout).
 */
static uint64_t op_moved(void *t)
{
	const struct fp *f = t;

	if (f->crew)
		return 0;
	return (f->client ? f->tx.done - f->tx.first : f->rx.done - f->rx.first) * f->opt.multi_recv *
	       f->size;
}

static const char *op_pending(void *t)
{
	return ((struct fp *)t)->client ? "receiving what this side sent" : "sending";
}

static int op_finish(void *t, int ret)
{
	(void)t;
	return ret;
}

static int op_figures(void *t, struct rb_stepend *own, struct rb_step_view *v)
{
	struct fp *f = t;
	struct fp_bw *res = f->bw_res;

	if (f->client) {
		sender_result(f, res);
		*own = (struct rb_stepend){res->msgs, res->bytes, res->elapsed_ns, NAN, NAN};
		/* The receiver sends nothing. */
		*v = (struct rb_step_view){.sends = RB_PEER_SENDS_NOTHING,
		                           .none = RB_STEPEND_PEAK | RB_STEPEND_CPU};
		return 0;
	}
	res->threads = f->opt.threads;
	for (unsigned c = 0; c < f->opt.threads; c++)
		res->msgs += chan(f, c)->msgs;
	*own = (struct rb_stepend){0, 0, rb_now_ns() - f->bw->t0, NAN, NAN};
	/* What the sender says it sent is what arrived here, each message multi-recv x size bytes. */
	*v = (struct rb_step_view){
	    .sends = RB_PEER_SENDS_COUNTED,
	    .rcvd_msgs = res->msgs,
	    .rcvd_bytes = res->msgs * f->opt.multi_recv * f->size,
	    .msg_bytes = f->opt.multi_recv * f->size,
	    .want_msgs = RB_STEPEND_ANY,
	    .own_ns = own->elapsed_ns,
	    .none = RB_STEPEND_PEAK | RB_STEPEND_CPU,
	};
	return 0;
}

static const struct rb_bw_ops bw_ops = {
    .start = op_start,
    .turn = op_turn,
    .moved = op_moved,
    .pending = op_pending,
    .finish = op_finish,
    .figures = op_figures,
};

int fp_bw_step(struct fp *f, bool client, uint64_t size, uint64_t seq, struct fp_bw *res)
{
	uint64_t beat = (uint64_t)f->opt.timeout_s * RB_NS_PER_S / 4;
	const struct rb_bw_cfg cfg = {
	    .duration_s = f->opt.len.duration_s,
	    .timeout_s = f->opt.timeout_s,
	    .wait_ms = 100, /* once this side's part is over: nothing to poll but the channel */
	    .beat_ns = beat < RB_NS_PER_S ? beat : RB_NS_PER_S,
	    /* A window of large WRITEs drains slowly on an emulated device: rc_write_bw's grace. */
	    .grace_ns = (uint64_t)((5 + f->opt.len.duration_s / 2) * 1e9),
	};
	struct rb_bw b;
	struct rb_bw_result br;
	uint64_t now;
	int ret;

	memset(res, 0, sizeof(*res));
	/* --account: the clocks probed before the step (its clock not started) and after, the stamps to the
	 * client after. */
	if (f->acct && (ret = fp_acct_start(f->acct, f->o, client, (int)f->opt.timeout_s * 1000)))
		return ret;
	/* Every channel's state, written before the crew's step starts (its bump orders them). */
	for (unsigned t = 0; t < f->opt.threads; t++) {
		struct fp *c = chan(f, t);

		step_start(c, size, seq);
		c->client = client;
		c->msgs = c->t_end = 0;
	}
	now = rb_now_ns();
	for (unsigned t = 0; t < f->opt.threads; t++) {
		chan(f, t)->t_stop = now + (uint64_t)(f->opt.len.duration_s * 1e9);
		/* The receiver's step start; the sender's first post replaces it. */
		chan(f, t)->t_first = now;
	}
	f->bw_res = res;
	f->bw_part_done = false;
	ret = rb_bw_step(f->o, &cfg, &bw_ops, f, &b, &br);
	f->bw = NULL;
	if (!ret && f->acct)
		ret = fp_acct_finish_bw(f->acct, f->o, client, (int)f->opt.timeout_s * 1000, res->msgs,
		                        res->bytes, res->elapsed_ns);
	if (ret || client)
		return ret;
	/* Both sides' row is the sender's clock, once this side's own finds it believable; else its own. */
	res->bytes = br.peer.bytes;
	res->elapsed_ns = br.doubt ? br.own.elapsed_ns : br.peer.elapsed_ns;
	return 0;
}

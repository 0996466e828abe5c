/*
 * rc_write_lat: RDMA WRITE latency over one RC QP, run the way ib_write_lat is run.
 *
 * Ping-pong with exactly one message in flight: the client writes into the server's
 * buffer, the server sees it arrive and writes back, the client sees that arrive.
 * Arrival is seen by polling the last byte of the buffer (it carries a per-iteration
 * marker), or with --write-with-imm by the receive completion, busy-polled or, with
 * --event, waited for on a completion channel. A sample is half the round trip.
 *
 * Only the post and the wait for the reply sit between the two timestamps. Filling
 * and checking payloads (--verify), re-posting receives, re-arming the CQ, reaping
 * send completions and the clock-driven checks (stop signal, async events, the
 * peer's word on the out-of-band socket, send completion errors) happen between
 * samples, or inside a wait only once it has lasted HK_NS.
 */
#include "async.h"
#include "cq.h"
#include "fault.h"
#include "latency.h"
#include "log.h"
#include "pattern.h"
#include "rb_config.h"
#include "session.h"
#include "sig.h"
#include "sizes.h"
#include "timeutil.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#define TOOL        "rc_write_lat"
#define USAGE       TOOL " [options]            (server)\n       " TOOL " [options] SERVER     (client)"
#define SEND_WR     64
#define SIG_EVERY   32
#define RX_DEPTH    64
#define STOP_MARKER 0xff /* duration mode: "no reply, the step is over" */
#define STOP_IMM    0xffffffffu
#define MAX_SAMPLES (64u << 20)
#define NS_PER_S    1000000000ull
#define HK_MS       100 /* the clock-driven checks run at most this often */
#define HK_NS       (HK_MS * 1000000ull)
#define SPIN_CLOCK  1023 /* a busy wait reads the clock every 1024 polls */

struct lat_opts {
	struct rb_size_opts size;
	uint32_t iters, warmup, inline_bytes, timeout_s;
	double duration_s;
	bool imm, event, verify, histogram, ignored;
	struct rb_sizes sizes;
};

/* Event mode: what the blocking waits of one step (or the whole run) came to. */
struct wakeups {
	uint64_t woke;  /* the channel delivered an event */
	uint64_t empty; /* ... and the CQ held no completion for it */
	uint64_t late;  /* a sleep ran out its HK_MS while a completion sat in the CQ, unannounced */
};

struct lat {
	struct rb_conn *c;
	struct rb_oob *o;
	const struct lat_opts *opt;
	uint64_t size;
	uint64_t posted, reaped;
	uint64_t rposted, rgot;
	uint64_t iter, total; /* current iteration; total = 0 in duration mode */
	uint64_t next_hk;     /* when the clock-driven checks are next due */
	/* Event mode: armed = ibv_req_notify_cq called and no event taken since;
	 * spent = a completion was taken while armed (its event may still be pending). */
	bool armed, spent;
	struct wakeups step, run;
	enum rb_fault_kind fault; /* test fault for the message being sent (RB_TEST_FAULT) */
	/* Server: the client may end the step now (LATSTATS), and did (stats). */
	bool stats_due, have_stats;
	struct rb_lat_summary stats;
	struct rb_samples samples;
	char err[320];
};

/* 1..254, never 0 (a cleared buffer) and never the stop marker. */
static uint8_t marker(uint64_t i)
{
	return (uint8_t)(i % 254 + 1);
}

/*
 * With --verify, messages alternate between two slots of each buffer, so a side
 * fills the next message and checks the last one while the peer's reply, or its
 * next message, is on the wire. Without it there is one slot, as in ib_write_lat.
 */
static unsigned nslots(const struct lat_opts *o)
{
	return o->verify ? 2 : 1;
}

static size_t slot(const struct lat *l, uint64_t i)
{
	return l->opt->verify ? (size_t)(i & 1) * l->size : 0;
}

static void lat_opts_default(struct lat_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->warmup = 100;
	o->timeout_s = 5;
}

static struct rb_opt_table lat_opt_table(struct lat_opts *o)
{
	static const struct rb_opt rows[] = {
	    {"iters", 'n', RB_OPT_U32, offsetof(struct lat_opts, iters), "N",
	     "measured round trips per size (default 1000)", 1, 1u << 26, NULL, NULL},
	    {"duration", 'D', RB_OPT_FN, offsetof(struct lat_opts, duration_s), "SEC",
	     "measure for SEC seconds per size instead of -n", 0, 0, rb_parse_duration, RB_DURATION_ALLOWED},
	    {"warmup", 0, RB_OPT_U32, offsetof(struct lat_opts, warmup), "N",
	     "round trips run first and not measured (default 100)", 0, 1u << 24, NULL, NULL},
	    {"inline", 'I', RB_OPT_U32, offsetof(struct lat_opts, inline_bytes), "BYTES",
	     "send messages up to BYTES inline (default 0)", 0, 1u << 20, NULL, NULL},
	    {"write-with-imm", 0, RB_OPT_FLAG, offsetof(struct lat_opts, imm), NULL,
	     "use RDMA_WRITE_WITH_IMM; arrival is the receive completion", 0, 0, NULL, NULL},
	    {"event", 0, RB_OPT_FLAG, offsetof(struct lat_opts, event), NULL,
	     "wait for receive completions on a completion channel (implies --write-with-imm)", 0, 0, NULL,
	     NULL},
	    {"verify", 0, RB_OPT_FLAG, offsetof(struct lat_opts, verify), NULL,
	     "each message carries a per-iteration pattern that its receiver checks", 0, 0, NULL, NULL},
	    {"histogram", 0, RB_OPT_FLAG, offsetof(struct lat_opts, histogram), NULL,
	     "print a log2 histogram of the samples", 0, 0, NULL, NULL},
	    {"timeout", 0, RB_OPT_U32, offsetof(struct lat_opts, timeout_s), "SEC",
	     "fail when the peer sends nothing for SEC s (default 5)", 1, 3600, NULL, NULL},
	    {"cpu-freq-ignore", 'F', RB_OPT_IGNORE, offsetof(struct lat_opts, ignored), NULL,
	     "accepted for perftest compatibility; no effect", 0, 0, NULL, NULL},
	    {0},
	};
	return (struct rb_opt_table){"Test", rows, o};
}

static int lat_opts_finish(struct lat_opts *o)
{
	if (rb_size_opts_resolve(&o->size, 2, &o->sizes))
		return -EINVAL;
	if (rb_iters_or_duration(&o->iters, o->duration_s, 1000))
		return -EINVAL;
	if (o->event)
		o->imm = true;
	return 0;
}

/* ---------------------------------------------------------------- messages */

/* " of N" in iteration mode, "" in duration mode. */
static const char *of_total(const struct lat *l, char *buf, size_t len)
{
	buf[0] = 0;
	if (l->total)
		snprintf(buf, len, " of %llu", (unsigned long long)l->total);
	return buf;
}

static int peer_silent(struct lat *l)
{
	char of[32];

	rb_err("no message from the peer for %u s at iteration %llu%s, %llu-byte messages (--timeout)",
	       l->opt->timeout_s, (unsigned long long)l->iter, of_total(l, of, sizeof(of)),
	       (unsigned long long)l->size);
	return -ETIMEDOUT;
}

static int take_stats(struct lat *l, const struct rb_frame *f)
{
	if (rb_latstats_decode(f->p, f->len, &l->stats)) {
		rb_err("malformed LATSTATS from %s", l->o->peer);
		return -EPROTO;
	}
	l->have_stats = true;
	return 0;
}

/*
 * Anything on the channel mid-step means the peer failed or left, except the
 * client's LATSTATS once the server has posted its last reply, or in duration mode,
 * where it can overtake a stop message that is being retransmitted: it is kept,
 * and the channel left alone until the step is over.
 */
static int check_peer(struct lat *l)
{
	struct rb_frame f;
	uint8_t byte;
	char of[32];
	int ret = l->have_stats ? 0 : rb_oob_readable(l->o, 0);

	if (ret <= 0)
		return ret;
	if (recv(l->o->fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT) == 0) {
		rb_err("peer %s closed the connection at iteration %llu%s, %llu-byte messages", l->o->peer,
		       (unsigned long long)l->iter, of_total(l, of, sizeof(of)), (unsigned long long)l->size);
		return -ECONNRESET;
	}
	ret = rb_oob_recv(l->o, &f, 1000);
	if (!ret && f.type == RB_MSG_LATSTATS && l->stats_due)
		return take_stats(l, &f);
	if (!ret) {
		rb_err("protocol error: %s frame from %s in the middle of iteration %llu",
		       rb_msg_name(f.type), l->o->peer, (unsigned long long)l->iter);
		ret = -EPROTO;
	}
	return ret;
}

/* ---------------------------------------------------------------- data path */

static int post_recvs(struct lat *l, unsigned n)
{
	struct ibv_recv_wr wr[RX_DEPTH], *bad;
	int ret;

	for (unsigned i = 0; i < n; i++) {
		memset(&wr[i], 0, sizeof(wr[i]));
		wr[i].next = i + 1 < n ? &wr[i + 1] : NULL;
	}
	ret = ibv_post_recv(l->c->qp[0], wr, &bad);
	if (ret) {
		rb_err("ibv_post_recv failed: %s", strerror(ret));
		return -ret;
	}
	l->rposted += n;
	return 0;
}

/* Takes whatever send completions are there; a completion error is the cause. */
static int reap_once(struct lat *l)
{
	struct ibv_wc wc[4];
	int n = rb_cq_poll(l->c->scq, wc, 4, l->opt->imm ? "RDMA_WRITE_WITH_IMM" : "RDMA_WRITE", l->err,
	                   sizeof(l->err));

	for (int i = 0; i < n; i++)
		l->reaped = wc[i].wr_id;
	return n < 0 ? n : 0;
}

/*
 * The clock-driven checks of every wait: a stop signal, a fatal async event, the
 * peer's word (ERROR or EOF) and an error completion of a send that nobody waits
 * for (a failed WRITE leaves this side waiting for a reply that cannot come).
 */
static int housekeep(struct lat *l, uint64_t now)
{
	int ret = rb_check_stop();

	l->next_hk = now + HK_NS;
	if (!ret)
		ret = rb_async_poll(&l->c->dev);
	if (!ret)
		ret = check_peer(l);
	if (!ret)
		ret = reap_once(l);
	return ret;
}

/*
 * The clock path of a wait that began at *start (0: this is its first look at the
 * clock): the checks every HK_NS once the wait has lasted that long, then the
 * --timeout deadline. Returns 0, 1 when the deadline passed, or -errno.
 */
static int wait_tick(struct lat *l, uint64_t *start)
{
	uint64_t now = rb_now_ns();

	if (!*start) {
		*start = now;
		return 0;
	}
	if (now - *start >= HK_NS && now >= l->next_hk) {
		int ret = housekeep(l, now);
		if (ret)
			return ret;
	}
	return now - *start > (uint64_t)l->opt->timeout_s * NS_PER_S;
}

/* Blocks (bounded) only when the send queue is nearly full; never inside a sample. */
static int reap_sends(struct lat *l)
{
	uint64_t start = 0;

	for (;;) {
		int ret = reap_once(l);
		if (ret || l->posted - l->reaped < SEND_WR - 1)
			return ret;
		ret = wait_tick(l, &start);
		if (ret > 0) {
			rb_err("no send completion for %u s at iteration %llu (--timeout)", l->opt->timeout_s,
			       (unsigned long long)l->iter);
			return -ETIMEDOUT;
		}
		if (ret)
			return ret;
	}
}

/* Takes one event from the (non-blocking) channel: 1, 0 when none is there, -errno. */
static int take_event(struct lat *l)
{
	struct ibv_cq *cq;
	void *ctx;

	if (ibv_get_cq_event(l->c->chan, &cq, &ctx)) {
		if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)
			return 0;
		rb_err("ibv_get_cq_event failed: %s", strerror(errno));
		return -EIO;
	}
	ibv_ack_cq_events(cq, 1);
	l->armed = false;
	return 1;
}

/*
 * Requests an event for the next receive completion, unless that request is still
 * standing. A completion taken while armed may have raised an event already: take
 * it now, outside the timed path, rather than wake for it later.
 */
static int arm(struct lat *l)
{
	int ret;

	if (l->armed && l->spent && (ret = take_event(l)) < 0)
		return ret;
	if (l->armed)
		return 0;
	ret = ibv_req_notify_cq(l->c->rcq, 0);
	if (ret) {
		rb_err("ibv_req_notify_cq failed: %s", strerror(ret));
		return -ret;
	}
	l->armed = true;
	l->spent = false;
	return 0;
}

/*
 * The slow path of event mode, entered with the CQ armed and seen empty after the
 * arm: sleeps until the channel has an event, the peer writes to or closes the
 * out-of-band socket, the device reports an async event, or HK_MS pass. Returns 1
 * when it took an event, 0 otherwise (*timed_out when HK_MS passed), or -errno.
 */
static int sleep_on_channel(struct lat *l, bool *timed_out)
{
	struct pollfd pfd[3] = {{l->c->chan->fd, POLLIN, 0},
	                        {l->have_stats ? -1 : l->o->fd, POLLIN, 0},
	                        {l->c->dev.ctx->async_fd, POLLIN, 0}};
	int n = poll(pfd, 3, HK_MS), ret;

	if (n < 0 && errno == EINTR)
		return rb_check_stop();
	if (n < 0) {
		ret = -errno;
		rb_err("poll on the completion channel failed: %s", strerror(-ret));
		return ret;
	}
	if (n == 0) {
		*timed_out = true;
		return 0;
	}
	if (pfd[1].revents && (ret = check_peer(l)) != 0)
		return ret;
	if (pfd[2].revents && (ret = rb_async_poll(&l->c->dev)) != 0)
		return ret;
	return pfd[0].revents ? take_event(l) : 0;
}

/* One receive completion (WRITE_WITH_IMM); returns 1, 0 when none, -errno. */
static int poll_recv(struct lat *l, uint32_t *imm)
{
	struct ibv_wc wc;
	int n = rb_cq_poll(l->c->rcq, &wc, 1, "RECV_RDMA_WITH_IMM", l->err, sizeof(l->err));

	if (n <= 0)
		return n;
	if (l->armed)
		l->spent = true;
	if (wc.opcode != IBV_WC_RECV_RDMA_WITH_IMM || wc.byte_len != l->size) {
		rb_err("unexpected %s completion of %u bytes at iteration %llu (expected %llu bytes)",
		       rb_wc_opcode_name(wc.opcode), wc.byte_len, (unsigned long long)l->iter,
		       (unsigned long long)l->size);
		return -EPROTO;
	}
	*imm = ntohl(wc.imm_data);
	l->rgot++;
	return 1;
}

/* Has the peer's message i arrived? 1 yes, 2 the stop message, 0 not yet, -errno. */
static int arrived(struct lat *l, uint64_t i, volatile const uint8_t *last)
{
	uint32_t imm;
	int ret;

	if (!l->opt->imm) {
		uint8_t v = *last;
		return v == marker(i) ? 1 : v == STOP_MARKER ? 2 : 0;
	}
	ret = poll_recv(l, &imm);
	if (ret <= 0)
		return ret;
	if (imm == STOP_IMM)
		return 2;
	if (imm != (uint32_t)i) {
		rb_err("immediate %u arrived at iteration %llu (message lost or reordered)", imm,
		       (unsigned long long)i);
		return -EPROTO;
	}
	return 1;
}

/*
 * Waits for the peer's message of iteration i. Returns 0, 1 when it was the stop
 * message (duration mode), or -errno.
 *
 * Event mode follows the standard order: poll the CQ; if it is empty and not armed,
 * arm it and poll again (a completion that raced the arm is found there, since it
 * raises no event); only then sleep on the channel, take the event and poll. The
 * arm is normally done before the message is posted (prepare), outside the timed
 * round trip.
 */
static int wait_arrival(struct lat *l, uint64_t i)
{
	volatile const uint8_t *last = (volatile const uint8_t *)l->c->dst.addr + slot(l, i) + l->size - 1;
	uint64_t start = 0;
	unsigned spins = 0;
	bool woke = false, stale = false, timed_out = false;

	for (;;) {
		int ret = arrived(l, i, last);
		if (ret) {
			/* Late: the sleep ran out, and the completion found after it raised no
			 * event (one that lands between the two is not late). */
			if (ret > 0 && timed_out && l->armed) {
				int ev = take_event(l);
				if (ev < 0)
					return ev;
				l->step.late += ev == 0;
			}
			return ret < 0 ? ret : ret - 1;
		}
		if (l->opt->event) {
			bool empty = woke && !stale;
			woke = timed_out = false;
			if (empty) {
				l->step.empty++;
			} else if (!l->armed) {
				ret = arm(l);
				if (ret)
					return ret;
				continue; /* look again before sleeping */
			} else {
				stale = l->spent;
				ret = sleep_on_channel(l, &timed_out);
				if (ret < 0)
					return ret;
				if (ret > 0) {
					l->step.woke++;
					woke = true;
					continue;
				}
			}
		} else if ((++spins & SPIN_CLOCK) != 0) {
			continue;
		}
		ret = wait_tick(l, &start);
		if (ret)
			return ret < 0 ? ret : peer_silent(l);
	}
}

/*
 * Test fault "stall": this side stops sending at iteration l->iter and waits,
 * bounded by --timeout, for the peer to give up or for its own deadline.
 */
static int stall(struct lat *l)
{
	uint64_t start = 0;

	for (;;) {
		int ret = rb_oob_readable(l->o, HK_MS);
		if (ret > 0)
			ret = check_peer(l);
		if (!ret)
			ret = wait_tick(l, &start);
		if (ret)
			return ret < 0 ? ret : peer_silent(l);
	}
}

/*
 * What message i needs before it is posted, outside the timed round trip: its
 * pattern (--verify), its test fault, receives to land in, the CQ armed.
 */
static int prepare(struct lat *l, uint64_t i)
{
	uint8_t *p = (uint8_t *)l->c->src.addr + slot(l, i);
	int ret;

	if (l->opt->verify)
		rb_pattern_fill(p, l->size - 1, rb_pattern_tag(0, i));
	l->fault = rb_fault_at(rb_fault_kind(), 0, i) ? rb_fault_kind() : RB_FAULT_NONE;
	if (l->fault == RB_FAULT_CORRUPT && l->size > 1)
		p[(l->size - 1) / 2] ^= 0xff;
	if (l->opt->imm && l->rposted - l->rgot <= RX_DEPTH / 2 && (ret = post_recvs(l, RX_DEPTH / 2)) != 0)
		return ret;
	return l->opt->event ? arm(l) : 0;
}

/* Message i (or the stop message): its last byte is the arrival marker. */
static int post_write(struct lat *l, uint64_t i, uint8_t mark, uint32_t imm)
{
	size_t off = slot(l, i);
	uint8_t *src = (uint8_t *)l->c->src.addr + off;
	struct ibv_sge sge = {(uintptr_t)src, (uint32_t)l->size, l->c->src_mr.mr->lkey};
	struct ibv_send_wr wr, *bad;
	int ret;

	src[l->size - 1] = mark;
	memset(&wr, 0, sizeof(wr));
	wr.wr_id = l->posted + 1;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = l->opt->imm ? IBV_WR_RDMA_WRITE_WITH_IMM : IBV_WR_RDMA_WRITE;
	wr.imm_data = htonl(imm + (l->fault == RB_FAULT_IMM_DROP) - (l->fault == RB_FAULT_IMM_DUP));
	wr.send_flags = ((l->posted + 1) % SIG_EVERY == 0 ? IBV_SEND_SIGNALED : 0) |
	                (l->size <= l->opt->inline_bytes ? IBV_SEND_INLINE : 0);
	wr.wr.rdma.remote_addr = l->c->remote.qp[0].addr + off;
	wr.wr.rdma.rkey = l->fault == RB_FAULT_BAD_RKEY ? ~l->c->remote.qp[0].rkey : l->c->remote.qp[0].rkey;
	ret = ibv_post_send(l->c->qp[0], &wr, &bad);
	if (ret) {
		rb_err("ibv_post_send failed at iteration %llu: %s", (unsigned long long)l->iter,
		       strerror(ret));
		return -ret;
	}
	l->posted++;
	return 0;
}

/* --verify: the whole of the peer's message i, after its arrival was timed. */
static int check_payload(struct lat *l, uint64_t i)
{
	const uint8_t *p = (const uint8_t *)l->c->dst.addr + slot(l, i);
	size_t bad;
	uint8_t want, got;

	if (!rb_pattern_check(p, l->size - 1, rb_pattern_tag(0, i), &bad, &want, &got)) {
		if (p[l->size - 1] == marker(i))
			return 0;
		bad = l->size - 1;
		want = marker(i);
		got = p[bad];
	}
	rb_err("verify: message %llu of %llu bytes from %s differs at byte %zu: expected 0x%02x, received "
	       "0x%02x",
	       (unsigned long long)i, (unsigned long long)l->size, l->o->peer, bad, want, got);
	return -EIO;
}

/* ---------------------------------------------------------------- one size */

static int client_step(struct lat *l, struct rb_lat_summary *sum)
{
	const struct lat_opts *o = l->opt;
	uint64_t t_meas = 0, t_end = 0;
	int ret;

	l->samples.n = 0;
	for (uint64_t i = 1;; i++) {
		uint64_t t0, t1;

		l->iter = i;
		if (l->total && i > l->total)
			break;
		ret = prepare(l, i);
		if (ret)
			return ret;
		if (!l->total && i > o->warmup + 1 && t_end - t_meas >= (uint64_t)(o->duration_s * 1e9)) {
			l->fault = RB_FAULT_NONE;
			ret = post_write(l, i, STOP_MARKER, STOP_IMM);
			if (ret)
				return ret;
			break;
		}
		if (l->fault == RB_FAULT_STALL)
			return stall(l);
		t0 = rb_now_ns();
		ret = post_write(l, i, marker(i), (uint32_t)i);
		if (!ret)
			ret = wait_arrival(l, i);
		if (ret > 0) {
			rb_err("protocol error: stop message from %s at iteration %llu", l->o->peer,
			       (unsigned long long)i);
			ret = -EPROTO;
		}
		if (ret)
			return ret;
		t1 = rb_now_ns();
		if (o->verify && (ret = check_payload(l, i)) != 0)
			return ret;
		ret = reap_sends(l);
		if (!ret && t1 >= l->next_hk)
			ret = housekeep(l, t1);
		if (ret)
			return ret;
		if (i == o->warmup + 1 || (o->warmup == 0 && i == 1))
			t_meas = t0;
		if (i > o->warmup) {
			ret = rb_samples_push(&l->samples, t1 - t0);
			if (ret) {
				rb_err("more than %u samples in one size; shorten -D", MAX_SAMPLES);
				return ret;
			}
		}
		t_end = t1;
	}
	rb_lat_summarize(l->samples.v, l->samples.n, sum);
	rb_lat_scale(sum, 0.5); /* samples are round trips; report one way */
	sum->warmup = o->warmup;
	sum->elapsed_s = t_meas ? (double)(t_end - t_meas) / 1e9 : 0;
	return 0;
}

static int server_step(struct lat *l)
{
	int ret = prepare(l, 1);

	l->stats_due = !l->total;
	for (uint64_t i = 1; !ret && (!l->total || i <= l->total); i++) {
		uint64_t now;

		l->iter = i;
		ret = wait_arrival(l, i);
		if (ret == 1)
			return 0; /* the client's stop message */
		if (!ret && l->fault == RB_FAULT_STALL)
			return stall(l);
		if (!ret)
			ret = post_write(l, i, marker(i), (uint32_t)i);
		l->stats_due = !l->total || i == l->total;
		/* While the reply is in flight: */
		if (!ret && l->opt->verify)
			ret = check_payload(l, i);
		if (!ret && (!l->total || i < l->total))
			ret = prepare(l, i + 1);
		if (!ret)
			ret = reap_sends(l);
		if (!ret && (now = rb_now_ns()) >= l->next_hk)
			ret = housekeep(l, now);
	}
	return ret;
}

static int lat_step(struct lat *l, uint64_t size, uint64_t seq, bool client, struct rb_lat_summary *sum)
{
	uint8_t buf[128];
	struct rb_wbuf w = {buf, 0, sizeof(buf), false};
	struct rb_frame f;
	int ret, wait_ms;

	l->size = size;
	l->total = l->opt->iters ? l->opt->iters + l->opt->warmup : 0;
	memset(&l->step, 0, sizeof(l->step));
	/* The last step's final marker must not look like this step's first. */
	memset(l->c->dst.addr, 0, size * nslots(l->opt));
	ret = rb_oob_barrier(l->o, seq);
	if (ret)
		return ret;
	if (client) {
		ret = client_step(l, sum);
		if (ret)
			return ret;
		rb_latstats_encode(&w, sum);
		return rb_oob_send_w(l->o, RB_MSG_LATSTATS, &w);
	}
	l->have_stats = false;
	ret = server_step(l);
	/* The client sorts up to MAX_SAMPLES samples first: that may outlast --timeout. */
	wait_ms = (int)l->opt->timeout_s * 1000;
	if (wait_ms < l->o->timeout_ms)
		wait_ms = l->o->timeout_ms;
	if (!ret && !l->have_stats && !(ret = rb_oob_expect(l->o, RB_MSG_LATSTATS, &f, wait_ms)))
		ret = take_stats(l, &f);
	*sum = l->stats;
	return ret;
}

/* ---------------------------------------------------------------- output */

static void hello_params(const struct lat_opts *o, struct rb_hello *h)
{
	rb_hello_sweep(h, TOOL, &o->sizes, o->iters, o->duration_s);
	rb_hello_add(h, "warmup", "%u", o->warmup);
	rb_hello_add(h, "write_with_imm", "%d", o->imm);
	rb_hello_add(h, "verify", "%d", o->verify);
}

static void print_header(const struct lat_opts *o, const struct rb_session *s, const struct rb_qp_opts *qo)
{
	char sizes[256];

	printf("---------------------------------------------------------------------------------------\n");
	printf("                    RDMA_Write%s Latency Test (rdmabench %s %s)\n", o->imm ? "_with_imm" : "",
	       TOOL, RB_VERSION);
	printf(" Role           : %s, peer %s\n", s->client ? "client (measures)" : "server (echoes)",
	       s->oob.peer);
	rb_device_describe(&s->conn.dev, stdout);
	printf(" Sizes          : %s\n", rb_sizes_fmt(&o->sizes, sizes, sizeof(sizes)));
	if (o->duration_s > 0)
		printf(" Duration       : %g s per size after %u warm-up round trips\n", o->duration_s,
		       o->warmup);
	else
		printf(" Iterations     : %u per size after %u warm-up round trips\n", o->iters, o->warmup);
	printf(" Arrival        : %s\n",
	       o->event ? "receive completion, completion channel (event; empty and late wake-ups counted)"
	       : o->imm ? "receive completion, busy-polled CQ"
	                : "last byte of the buffer, busy-polled");
	printf(" Inline         : %u B\n", o->inline_bytes);
	if (o->verify)
		printf(" Verify         : every payload checked by its receiver, outside the timed round "
		       "trip\n");
	rb_conn_describe(&s->conn, qo, stdout);
	printf(" Latency        : half round trip; percentiles by nearest rank\n");
	printf("---------------------------------------------------------------------------------------\n");
	fflush(stdout);
}

static void build_row(struct rb_row *r, const struct lat_opts *o, const struct lat *l, uint64_t size,
                      const struct rb_lat_summary *m)
{
	memset(r, 0, sizeof(*r));
	rb_row_str(r, "tool", NULL, TOOL);
	rb_row_str(r, "op", NULL, o->imm ? "write_with_imm" : "write");
	rb_row_str(r, "arrival", NULL, o->event ? "event" : o->imm ? "cq_poll" : "memory_poll");
	rb_row_str(r, "device", NULL, l->c->dev.name);
	rb_row_u64(r, "size_bytes", "#bytes", size);
	rb_row_u64(r, "iterations", "#iterations", m->count);
	rb_row_u64(r, "warmup", NULL, m->warmup);
	rb_row_u64(r, "inline_bytes", NULL, size <= o->inline_bytes ? o->inline_bytes : 0);
	rb_row_u64(r, "mtu_bytes", NULL, rb_mtu_bytes(rb_conn_path_mtu(l->c)));
	rb_row_bool(r, "verify", NULL, o->verify);
	rb_lat_row(r, m);
	rb_row_dbl(r, "elapsed_s", NULL, 6, m->elapsed_s);
	rb_row_dbl(r, "tps", o->duration_s > 0 ? "trans/s" : NULL, 1, rb_lat_tps(m));
	/* This side's own wake-ups (each side sleeps on its own channel). */
	rb_row_u64(r, "event_wakeups", NULL, l->step.woke);
	rb_row_u64(r, "empty_wakeups", NULL, l->step.empty);
	rb_row_u64(r, "late_wakeups", NULL, l->step.late);
}

static void print_wakeups(const struct wakeups *w)
{
	printf(" Wake-ups       : %llu on this side, %llu empty (no completion), %llu late (a completion "
	       "unannounced until a %d ms sleep ran out)\n",
	       (unsigned long long)w->woke, (unsigned long long)w->empty, (unsigned long long)w->late, HK_MS);
}

/* The channel is read only after poll() says so; non-blocking keeps every read bounded. */
static int channel_nonblocking(struct ibv_comp_channel *ch)
{
	int fl = fcntl(ch->fd, F_GETFL);

	if (fl < 0 || fcntl(ch->fd, F_SETFL, fl | O_NONBLOCK) < 0) {
		int err = errno;
		rb_err("cannot make the completion channel non-blocking: %s", strerror(err));
		return -err;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct lat_opts lo;
	struct rb_session_opts so;
	struct rb_session s;
	struct rb_hello mine;
	struct rb_row meta, row;
	struct lat l;
	int ret;

	rb_log_init(argv[0]);
	lat_opts_default(&lo);
	rb_session_opts_default(&so);
	struct rb_opt_table tables[] = {rb_size_opt_table(&lo.size), lat_opt_table(&lo)};
	ret = rb_session_parse(&s, &so, tables, 2, argc, argv, USAGE);
	if (ret >= 0)
		return ret;
	if (lat_opts_finish(&lo))
		return RB_EXIT_USAGE;
	memset(&l, 0, sizeof(l));
	l.opt = &lo;
	rb_fault_kind(); /* says so now when a test fault is set */
	if (rb_samples_init(&l.samples, lo.iters ? lo.iters : 1u << 16, MAX_SAMPLES)) {
		rb_err("out of memory for %u samples", lo.iters);
		return RB_EXIT_RUNTIME;
	}
	{
		size_t region = rb_sizes_max(&lo.sizes) * nslots(&lo);
		struct rb_conn_cfg cfg = {
		    .nqps = 1,
		    .caps = {.send_wr = SEND_WR,
		             .recv_wr = lo.imm ? RX_DEPTH : 0,
		             .inline_bytes = lo.inline_bytes},
		    .src_per_qp = region,
		    .dst_per_qp = region,
		    .recv_cq = lo.imm,
		    .event_cq = lo.event,
		};
		hello_params(&lo, &mine);
		ret = rb_session_open(&s, &so, &cfg, &mine, region);
	}
	l.c = &s.conn;
	l.o = &s.oob;
	if (!ret && lo.event)
		ret = channel_nonblocking(s.conn.chan);
	if (!ret && lo.imm)
		ret = post_recvs(&l, RX_DEPTH);
	if (ret)
		goto done;
	if (rb_reports_text(&s.reps))
		print_header(&lo, &s, &so.qp);
	rb_session_meta(&s, &meta, TOOL);
	rb_row_u64(&meta, "iterations", NULL, lo.iters);
	rb_row_u64(&meta, "warmup", NULL, lo.warmup);
	rb_row_dbl(&meta, "duration_s", NULL, 3, lo.duration_s > 0 ? lo.duration_s : NAN);
	rb_row_u64(&meta, "inline_bytes", NULL, lo.inline_bytes);
	rb_row_bool(&meta, "write_with_imm", NULL, lo.imm);
	rb_row_bool(&meta, "event", NULL, lo.event);
	rb_row_bool(&meta, "verify", NULL, lo.verify);
	rb_row_str(&meta, "percentile_method", NULL, "nearest rank");
	rb_reports_begin(&s.reps, &meta);
	l.next_hk = rb_now_ns() + HK_NS;
	for (unsigned i = 0; i < lo.sizes.n; i++) {
		struct rb_lat_summary sum;

		ret = lat_step(&l, lo.sizes.v[i], i + 1, s.client, &sum);
		l.run.woke += l.step.woke;
		l.run.empty += l.step.empty;
		l.run.late += l.step.late;
		if (ret)
			break;
		build_row(&row, &lo, &l, lo.sizes.v[i], &sum);
		rb_reports_row(&s.reps, &row);
		if (lo.histogram && s.client && rb_reports_text(&s.reps))
			rb_lat_histogram(stdout, l.samples.v, l.samples.n, 2);
	}
	if (rb_reports_text(&s.reps)) {
		if (!ret)
			printf("-----------------------------------------------------------------------------"
			       "----"
			       "------\n");
		if (lo.event)
			print_wakeups(&l.run);
		fflush(stdout);
	}
done:
	rb_samples_free(&l.samples);
	return rb_session_close(&s, ret);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rc_write_lat's waits: the arrival of the peer's message in each mode (the last
 * byte of the buffer busy-polled, the receive completion busy-polled, or the
 * completion channel with its wake-up accounting), the send completions, and the
 * clock-driven checks that run inside a wait only once it has lasted HK_NS.
 */
#include "wait.h"

#include "verbs/verbs.h"
#include "base/base.h"

#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

/* " of N" in iteration mode, "" in duration mode. */
static const char *of_total(const struct lat *l, char *buf, size_t len)
{
	buf[0] = 0;
	if (l->total)
		snprintf(buf, len, " of %llu", (unsigned long long)l->total);
	return buf;
}

int lat_peer_silent(struct lat *l)
{
	char of[32];

	rb_err("no message from the peer for %u s at iteration %llu%s, %llu-byte messages%s (--timeout)",
	       l->opt.timeout_s, (unsigned long long)l->iter, of_total(l, of, sizeof(of)),
	       (unsigned long long)l->size, l->load_live ? " under --load" : "");
	return -ETIMEDOUT;
}

/*
 * Anything on the channel mid-step means the peer failed or left, except the
 * client's LATSTATS once the server has posted its last reply, or in duration mode,
 * where it can overtake a stop message that is being retransmitted: the engine
 * keeps it, and the channel is left alone until the step is over.
 */
static int check_peer(struct lat *l)
{
	struct rb_frame f;
	uint8_t byte;
	char of[32];
	int ret = l->pp.have_summary ? 0 : rb_oob_readable(l->o, 0);

	if (ret <= 0)
		return ret;
	if (recv(l->o->fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT) == 0) {
		rb_err("peer %s closed the connection at iteration %llu%s, %llu-byte messages", l->o->peer,
		       (unsigned long long)l->iter, of_total(l, of, sizeof(of)), (unsigned long long)l->size);
		return -ECONNRESET;
	}
	ret = rb_oob_recv(l->o, &f, 1000);
	if (!ret && f.type == RB_MSG_LATSTATS && rb_pp_summary_due(&l->pp, l->echoed))
		return rb_pp_take_summary(&l->pp, &f, l->o->peer);
	if (!ret) {
		rb_err("protocol error: %s frame from %s in the middle of iteration %llu",
		       rb_msg_name(f.type), l->o->peer, (unsigned long long)l->iter);
		ret = -EPROTO;
	}
	return ret;
}

/* Takes whatever send completions are there; a completion error is the cause. */
static int reap_once(struct lat *l)
{
	struct ibv_wc wc[4];
	int n = rb_cq_poll(l->c->scq, wc, 4, l->opt.imm ? "RDMA_WRITE_WITH_IMM" : "RDMA_WRITE", l->err,
	                   sizeof(l->err));

	for (int i = 0; i < n; i++)
		l->reaped = wc[i].wr_id;
	return n < 0 ? n : 0;
}

/*
 * The clock-driven checks of every wait: a stop signal, a fatal async event, the
 * load's failure (--load), the peer's word (ERROR or EOF) and an error completion
 * of a send that nobody waits for (a failed WRITE leaves this side waiting for a
 * reply that cannot come).
 */
int lat_housekeep(struct lat *l, uint64_t now)
{
	int ret = rb_check_stop();

	l->next_hk = now + HK_NS;
	if (!ret)
		ret = rb_async_poll(&l->c->dev);
	if (!ret && l->load)
		ret = lat_load_poll(l->load);
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
		int ret = lat_housekeep(l, now);
		if (ret)
			return ret;
	}
	return now - *start > (uint64_t)l->opt.timeout_s * RB_NS_PER_S;
}

/* Never inside a sample. */
int lat_reap_sends(struct lat *l)
{
	uint64_t start = 0;

	for (;;) {
		int ret = reap_once(l);
		if (ret || l->posted - l->reaped < SEND_WR - 1)
			return ret;
		ret = wait_tick(l, &start);
		if (ret > 0) {
			rb_err("no send completion for %u s at iteration %llu (--timeout)", l->opt.timeout_s,
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
 * Unless the request is still standing. A completion taken while armed may have
 * raised an event already: take it now, outside the timed path, rather than wake
 * for it later.
 */
int lat_arm(struct lat *l)
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
	                        {l->pp.have_summary ? -1 : l->o->fd, POLLIN, 0},
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

	if (!l->opt.imm) {
		uint8_t v = *last;
		return v == lat_marker(i) ? 1 : v == STOP_MARKER ? 2 : 0;
	}
	ret = poll_recv(l, &imm);
	if (ret <= 0)
		return ret;
	if (imm == STOP_IMM)
		return 2;
	if (imm != lat_imm(i)) {
		rb_err("immediate %u arrived at iteration %llu (message lost or reordered)", imm,
		       (unsigned long long)i);
		return -EPROTO;
	}
	return 1;
}

/*
 * Event mode follows the standard order: poll the CQ; if it is empty and not armed,
 * arm it and poll again (a completion that raced the arm is found there, since it
 * raises no event); only then sleep on the channel, take the event and poll. The
 * arm is normally done before the message is posted (ready), outside the timed
 * round trip.
 */
int lat_wait_arrival(struct lat *l, uint64_t i)
{
	volatile const uint8_t *last =
	    (volatile const uint8_t *)l->c->dst.addr + lat_slot(l, i) + l->size - 1;
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
		if (l->opt.event) {
			bool empty = woke && !stale;
			woke = timed_out = false;
			if (empty) {
				l->step.empty++;
			} else if (!l->armed) {
				ret = lat_arm(l);
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
			return ret < 0 ? ret : lat_peer_silent(l);
	}
}

/* Bounded by --timeout: the peer gives up first, or this side's own deadline passes. */
int lat_stall(struct lat *l)
{
	uint64_t start = 0;

	for (;;) {
		int ret = rb_oob_readable(l->o, HK_MS);
		if (ret > 0)
			ret = check_peer(l);
		if (!ret)
			ret = wait_tick(l, &start);
		if (ret)
			return ret < 0 ? ret : lat_peer_silent(l);
	}
}

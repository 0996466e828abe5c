/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * --account: where a message's time goes (account.c). Each side stamps the
 * protocol's events of every round trip on its own clock: as a sender, when it had
 * the message ready, saw the receiver's CTS, handed the data WRs to the NIC (called
 * ibv_post_send) and had their completion; as a receiver, when it began the receive,
 * handed its CTS write to the NIC, found the data's completion and was done with the
 * message (flush and check included). After the step the server's stamps come to the
 * client and the out-of-band round trips taken before and after the step put them on
 * the client's clock, within a stated uncertainty (run/stamps.h).
 *
 * Each message's time, from its sender having it ready to its receiver being done,
 * is cut at those events into segments that add up to it:
 *   peer busy      the sender waits while the receiver still finishes its own
 *                  previous send (waiting for that WRITE's completion: its ACK)
 *   cts post       ... while the receiver gets its receive ready and the CTS written
 *   cts flight     ... from the later of the CTS write handed to the NIC and the
 *                  sender ready, until the sender's poll sees it (a NIC that sends
 *                  inside the post call, as rxe does, has the call's own time here)
 *   sender post    the sender's own work: from the CTS (or, the server, from its
 *                  receive) to the data WRs handed to the NIC
 *   data flight    from that hand-over until the receiver polls the completion of
 *                  the WRITE and WRITE_WITH_IMM
 *   rx completion  the receiver's own: --flush's READ, --verify's check
 * The wait for the CTS is cut at the receiver's stamps, each held inside the wait, so
 * the three are never negative; a round trip whose stamps break the protocol's order
 * across the clocks by more than their band is refused, not clamped. Segments across
 * the two clocks carry the clocks' uncertainty (a constant drift between the probes
 * assumed: NTP slewing a clock mid-step is outside the band); a message's segments add
 * up to its time exactly, and a round trip's to the client's own measurement.
 *
 * Pipelined (--window W > 1), the client sends and the server receives, each stamping
 * its half of every message by its number. Message m may go only once the receiver's
 * CTS for it is there, and that CTS is written only when message m - W, the slot's
 * last, is done: the credit loop. From message m - W handed to the NIC to CTS m seen
 * by the sender (the sender's own clock), it is cut into
 *   data flight    message m - W handed to the NIC -> its completion found
 *   rx completion  ... -> done (flush, check)
 *   cts post       the receiver's turn-around: -> CTS m handed to the NIC
 *   sender posting CTS m there (or on its way) while the sender was inside its post
 *                  calls for earlier messages (a NIC that sends in the call, as rxe
 *                  does, spends the message's wire time there)
 *   sender busy    ... while it was otherwise not looking for it: its window full of
 *                  unacknowledged sends, or its loop
 *   cts flight     the sender waiting for CTS m
 * and the loop plus the sender's post of m is the time W messages take: against the
 * engine's W x elapsed / messages, what the loop does not explain is shown.
 */
#ifndef RB_FIFO_PINGPONG_ACCOUNT_H
#define RB_FIFO_PINGPONG_ACCOUNT_H

#include "fp.h"

#include "run/run.h"

#include <stdio.h>

/* The events of one round trip at one side: its send, then its receive (the server's receive comes first). */
enum {
	AC_READY,      /* send: the message ready */
	AC_CTS_SEEN,   /* send: the CTS seen */
	AC_POSTED,     /* send: the data WRs handed to the NIC (ibv_post_send called) */
	AC_POST_RET,   /* send: the post calls returned */
	AC_SENT,       /* send: their completion */
	AC_RX_READY,   /* receive: begun */
	AC_CTS_POSTED, /* receive: the CTS write handed to the NIC */
	AC_RX_CQE,     /* receive: the data's completion found */
	AC_RX_DONE,    /* receive: done (flush, check) */
	AC_EVENTS
};

enum {
	SEG_PEER_BUSY, /* ping-pong only */
	SEG_CTS_POST,
	SEG_CTS_FLIGHT,
	SEG_SENDER_POST,
	SEG_DATA_FLIGHT,
	SEG_RX_DONE,
	SEG_SENDER_POSTING, /* pipelined only */
	SEG_SENDER_BUSY,    /* pipelined only */
	SEG_N
};

#define ACCT_ROUND_TRIPS                                                                                     \
	RB_STAMPS_ROWS /* stamped per size, the first round trips (warm-up included) or messages */

/* A size's account, the client's: per segment p50, p99 and mean over the messages (us). */
struct fp_acct_result {
	bool valid;
	bool pipelined; /* the credit loop's account (window > 1) */
	uint64_t messages,
	    dropped; /* accounted; round trips (messages) refused (out of order beyond the band) */
	double p50[SEG_N], p99[SEG_N], mean[SEG_N]; /* NAN: not this mode's */
	double loop_p50, loop_p99, loop_mean;       /* pipelined: the credit loop */
	double idle_pct;    /* pipelined: the sender's share of its time waiting for a CTS */
	double pace_gbps;   /* pipelined: W messages per loop + sender post */
	double sum_us;      /* the segments' means added up (pipelined: the loop's and the sender post's) */
	double lat_mean_us; /* what they are held to: the measured one-way mean (whole), else span_us / 2;
	                       pipelined: W x elapsed / messages */
	double span_us;     /* the accounted round trips' own mean span, client ready to client done */
	bool whole;         /* every measured round trip accounted */
	double clock_err_us, clock_offset_us; /* the band at worst over the step; the offset at its middle */
	double drift_ppm;
	char why[160]; /* no account: why */
};

struct fp_acct {
	struct rb_stamps st; /* both sides' rows of AC_EVENTS stamps (run/stamps.h) */
	uint64_t i;          /* the round trip in progress (0: none: past the cap, or STOP) */
	uint32_t window;     /* > 1: pipelined, rows by message number (fp_acct_msg) */
	double *vals;        /* the segments' values, 2 per round trip */
	struct fp_acct_result res;
};

/* The stamps' rows (the client also the server's copy and room for the segments). */
int fp_acct_init(struct fp_acct *a, bool client, uint32_t window);
void fp_acct_free(struct fp_acct *a);
/* Round trip i (1-based) begins: its events go to its row (none past ACCT_ROUND_TRIPS). */
void fp_acct_begin(struct fp_acct *a, uint64_t i);

static inline void fp_acct_at(struct fp_acct *a, unsigned ev, uint64_t t)
{
	if (a && a->i)
		rb_stamp(&a->st, a->i, ev, t);
}

static inline void fp_acct_now(struct fp_acct *a, unsigned ev)
{
	if (a && a->i)
		rb_stamp(&a->st, a->i, ev, rb_now_ns());
}

/* Pipelined: event ev of the step's message m (1-based; none past ACCT_ROUND_TRIPS). */
static inline void fp_acct_msg(struct fp_acct *a, uint64_t m, unsigned ev, uint64_t t)
{
	if (a && a->window > 1)
		rb_stamp(&a->st, m, ev, t);
}

/* Pipelined, the receiver: message seq's completion found (rx.t_cqe), and it done (now). */
static inline void fp_acct_rx(const struct fp *f, uint64_t seq)
{
	if (f->acct && f->acct->window > 1) {
		fp_acct_msg(f->acct, seq - f->rx.first + 1, AC_RX_CQE, f->rx.t_cqe);
		fp_acct_msg(f->acct, seq - f->rx.first + 1, AC_RX_DONE, rb_now_ns());
	}
}

/* Test-only (RB_TEST_FAULT=cts-delay, fp.h: fp.cts_hold): the receiver holds its CTS FP_CTS_DELAY_NS. */
void fp_acct_test_hold(void);

static inline void fp_cts_hold(const struct fp *f)
{
	if (f->cts_hold)
		fp_acct_test_hold();
}

/* Before the step, both sides: its stamps forgotten, the clocks probed. */
int fp_acct_start(struct fp_acct *a, struct rb_oob *o, bool client, int timeout_ms);
/*
 * After the step, both sides: the clocks probed again, the server's stamps to the
 * client, and the client's account of the measured round trips (warmup + 1 ..
 * warmup + count) against the measured mean.
 */
int fp_acct_finish(struct fp_acct *a, struct rb_oob *o, bool client, int timeout_ms,
                   const struct rb_lat_summary *sum);
/*
 * Pipelined, the same exchange; the client's account of messages 1..msgs (its own, the
 * step's first post to its last completion in elapsed_ns, bytes in all) against W x
 * elapsed / msgs.
 */
int fp_acct_finish_bw(struct fp_acct *a, struct rb_oob *o, bool client, int timeout_ms, uint64_t msgs,
                      uint64_t bytes, uint64_t elapsed_ns);
/* The client's account under a size's row. */
void fp_acct_print(const struct fp_acct *a, FILE *out);

#endif

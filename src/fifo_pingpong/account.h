/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * --account: where a ping-pong message's time goes (account.c). Each side stamps the
 * protocol's events of every round trip on its own clock: as a sender, when it had
 * the message ready, saw the receiver's CTS, handed the data WRs to the NIC (called
 * ibv_post_send) and had their completion; as a receiver, when it began the receive,
 * handed its CTS write to the NIC, found the data's completion and was done with the
 * message (flush and check included). After the step the server's stamps come to the
 * client (FP_MSG_STAMPS) and the out-of-band round trips taken before and after the
 * step (run/clocksync.h) put them on the client's clock, within a stated uncertainty.
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
	AC_SENT,       /* send: their completion */
	AC_RX_READY,   /* receive: begun */
	AC_CTS_POSTED, /* receive: the CTS write handed to the NIC */
	AC_RX_CQE,     /* receive: the data's completion found */
	AC_RX_DONE,    /* receive: done (flush, check) */
	AC_EVENTS
};

enum { SEG_PEER_BUSY, SEG_CTS_POST, SEG_CTS_FLIGHT, SEG_SENDER_POST, SEG_DATA_FLIGHT, SEG_RX_DONE, SEG_N };

#define ACCT_ROUND_TRIPS 65536 /* stamped per size, the first ones (warm-up included): 4 MiB a side */
#define ACCT_PROBES      16    /* clock probes before and after the step */

/* A size's account, the client's: per segment p50, p99 and mean over the messages (us). */
struct fp_acct_result {
	bool valid;
	uint64_t messages, dropped; /* accounted; round trips refused (out of order beyond the band) */
	double p50[SEG_N], p99[SEG_N], mean[SEG_N];
	double sum_us;      /* the segments' means added up */
	double lat_mean_us; /* what they are held to: the measured one-way mean (whole), else span_us / 2 */
	double span_us;     /* the accounted round trips' own mean span, client ready to client done */
	bool whole;         /* every measured round trip accounted */
	double clock_err_us, clock_offset_us; /* the band at worst over the step; the offset at its middle */
	double drift_ppm;
	char why[160]; /* no account: why */
};

struct fp_acct {
	uint64_t (*own)[AC_EVENTS];  /* round trip i at index i - 1 */
	uint64_t (*peer)[AC_EVENTS]; /* the client's copy of the server's */
	uint64_t n;                  /* round trips this side stamped this size */
	uint64_t i;                  /* the round trip in progress (0: none: past the cap, or STOP) */
	double *vals;                /* the segments' values, 2 per round trip */
	struct rb_clock_point before;
	struct fp_acct_result res;
};

/* The server's stamps, to the client (account.c): the tool's own frame type. */
enum { FP_MSG_STAMPS = 32 };
extern const struct rb_msg_def fp_msgs[1];

/* The stamps' rows (the client also the server's copy and room for the segments). */
int fp_acct_init(struct fp_acct *a, bool client);
void fp_acct_free(struct fp_acct *a);
/* Round trip i (1-based) begins: its events go to its row (none past ACCT_ROUND_TRIPS). */
void fp_acct_begin(struct fp_acct *a, uint64_t i);

static inline void fp_acct_at(struct fp_acct *a, unsigned ev, uint64_t t)
{
	if (a && a->i)
		a->own[a->i - 1][ev] = t;
}

static inline void fp_acct_now(struct fp_acct *a, unsigned ev)
{
	if (a && a->i)
		a->own[a->i - 1][ev] = rb_now_ns();
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
/* The client's account under a size's row. */
void fp_acct_print(const struct fp_acct *a, FILE *out);

#endif

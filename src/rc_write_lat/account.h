/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * --account: where a raw WRITE's one-way time goes (account.c), cut at the same
 * events as fifo_pingpong --account's, so the two tools' segments compare: each side
 * stamps every round trip on its own clock, the client when its ping began, when it
 * handed the WRITE to the NIC (ibv_post_send called) and when the call returned, and
 * when it found the reply; the server when it found the ping (its reply ready), and
 * when it handed the reply over and the call returned. After the step the server's
 * stamps come to the client and the out-of-band probes taken before and after put
 * them on the client's clock, within a stated band (run/stamps.h). Each message is
 *   sender post   the sender's own, from its message ready to the WRITE handed over
 *   data flight   from that hand-over until the receiver found it (the last byte's
 *                 marker, or the completion with --write-with-imm), the post call's
 *                 own time included: a NIC that sends in the call, as rxe does,
 *                 spends the message's wire time there
 * and a round trip's two messages add up to the client's own measurement of it.
 */
#ifndef RB_RC_WRITE_LAT_ACCOUNT_H
#define RB_RC_WRITE_LAT_ACCOUNT_H

#include "run/run.h"
#include "measure/measure.h"

#include <stdio.h>

/* A round trip's events: the client's READY .. SEEN; the server's READY .. POST_RET (SEEN unused). */
enum { LA_READY, LA_POSTED, LA_POST_RET, LA_SEEN, LA_EVENTS };
enum { LA_SEG_SENDER_POST, LA_SEG_DATA_FLIGHT, LA_SEG_N };

struct lat_acct_result {
	bool valid, whole;          /* whole: every measured round trip accounted */
	uint64_t messages, dropped; /* accounted; round trips refused (out of order beyond the band) */
	double p50[LA_SEG_N], p99[LA_SEG_N], mean[LA_SEG_N];
	double clock_err_us; /* the clocks' band at worst over the step */
	double sum_us;       /* the means added up */
	double lat_mean_us;  /* held to: the measured one-way mean (whole), else the accounted round trips' */
	char why[160];       /* no account: why */
};

struct lat_acct {
	struct rb_stamps st;
	double *vals; /* the segments' values: LA_SEG_N columns of 2 per round trip */
	struct lat_acct_result res;
};

int lat_acct_init(struct lat_acct *a, bool client);
void lat_acct_free(struct lat_acct *a);

/* Event ev of round trip i at t (a NULL account: --account off). */
static inline void lat_acct_at(struct lat_acct *a, uint64_t i, unsigned ev, uint64_t t)
{
	if (a)
		rb_stamp(&a->st, i, ev, t);
}

/* Before the step and after it, both sides (run/stamps.h); the client's account after. */
int lat_acct_start(struct lat_acct *a, struct rb_oob *o, bool client, int timeout_ms);
int lat_acct_finish(struct lat_acct *a, struct rb_oob *o, bool client, int timeout_ms,
                    const struct rb_lat_summary *sum);
/* The client's account under a size's row. */
void lat_acct_print(const struct lat_acct *a, FILE *out);

#endif

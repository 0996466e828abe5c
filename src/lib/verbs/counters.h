/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the fabric did during a measurement: the port's counters (the IB port
 * counters and the device's hw_counters in sysfs, and the driver statistics of the
 * port's netdev: ethtool -S) read before and after each size, their deltas added to
 * every row as ctr_<name> columns, and the abnormal ones (retransmissions, duplicate
 * or out-of-sequence requests, RNR NAKs, CNPs and ECN marks, link errors, transmit
 * waits and discards, out of buffer, pause frames) named under the text table, with
 * the share of the window a priority was paused. Only counters that answer one of
 * those questions are kept, those the device has: rxe, mlx5 and the IB port counters
 * use different names for the same events.
 */
#ifndef RB_COUNTERS_H
#define RB_COUNTERS_H

#include "base/base.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "host/host.h"

#define RB_CTR_MAX  36
#define RB_CTR_PRIO 8 /* 802.1p priorities */

struct rb_row;

struct rb_counters {
	unsigned n;                           /* 0: no device (a TCP tool), nothing is added */
	char key[RB_CTR_MAX][48];             /* "ctr_<name>": rows keep the pointer */
	char path[RB_CTR_MAX][256];           /* sysfs; "" for the netdev's */
	unsigned scale[RB_CTR_MAX];           /* port_xmit_data counts 4-byte words: 4 */
	int eth[RB_CTR_MAX][RB_CTR_PRIO + 1]; /* the netdev's: statistics summed (per priority, global) */
	unsigned neth[RB_CTR_MAX];
	bool abnormal[RB_CTR_MAX];  /* not a packet count: non-zero is worth a line */
	uint64_t step[RB_CTR_MAX];  /* at the start of the size */
	uint64_t ivl[RB_CTR_MAX];   /* at the start of the interval (--interval) */
	uint64_t delta[RB_CTR_MAX]; /* the last size's */
	/* The port's netdev (RoCE): its driver statistics, and per priority how long it was paused. */
	char ifname[32]; /* "" when none is read (IB, a test's recorded statistics) */
	struct rb_ethstats es;
	int paused[2][RB_CTR_PRIO]; /* rx_prio%d_pause_duration, tx_...: indexes, -1 none */
	uint64_t paused_base[2][RB_CTR_PRIO], paused_delta[2][RB_CTR_PRIO];
	uint64_t t_mark, window_ns; /* the last size's window: its mark to its row */
};

/* Every counter column a row can have: the documents' schema lists them all. */
#define RB_CTR_NCOLS 36
extern const struct rb_col rb_counters_cols[RB_CTR_NCOLS];
/*
 * The counters of port `port` of RDMA device dev under sysfs that it has (n may be 0),
 * and those of its netdev (gid_attrs/ndevs/0) that ethtool shows.
 */
void rb_counters_open(struct rb_counters *c, const char *sysfs, const char *dev, unsigned port);
/* The netdev's counters from statistics already read (es: taken over; ifname "": never read again). */
void rb_counters_use_eth(struct rb_counters *c, struct rb_ethstats *es, const char *ifname);
void rb_counters_close(struct rb_counters *c);
/* The size starts: both bases are now. */
void rb_counters_mark(struct rb_counters *c);
/* Adds each counter's delta since the size's start (interval: since the last interval row). */
void rb_counters_row(struct rb_counters *c, struct rb_row *r, bool interval);
/*
 * "completer_retry_err +12, out_of_seq_request +3; paused receiving 31 % of the window
 * on priority 3": the last size's abnormal deltas; false: none.
 */
bool rb_counters_abnormal(const struct rb_counters *c, char *buf, size_t len);

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
#include "counters.h"

#include "base/base.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * The counters worth a column, as their columns ("ctr_" and, for sysfs, the name
 * there unless src says otherwise). The first CTR_QUIET count traffic; any other is
 * abnormal when it moves.
 */
const struct rb_col rb_counters_cols[] = {
    /* packets (IB port counters; rxe) */
    {"ctr_port_xmit_packets", NULL, NULL, 0},
    {"ctr_port_rcv_packets", NULL, NULL, 0},
    {"ctr_sent_pkts", NULL, NULL, 0},
    {"ctr_rcvd_pkts", NULL, NULL, 0},
    /* bytes (port_xmit_data, port_rcv_data: 4-byte words) */
    {"ctr_port_xmit_bytes", NULL, NULL, 0},
    {"ctr_port_rcv_bytes", NULL, NULL, 0},
    /* retransmissions, duplicates, out of sequence (mlx5 and rxe names) */
    {"ctr_duplicate_request", NULL, NULL, 0},
    {"ctr_out_of_sequence", NULL, NULL, 0},
    {"ctr_out_of_seq_request", NULL, NULL, 0},
    {"ctr_packet_seq_err", NULL, NULL, 0},
    {"ctr_rcvd_seq_err", NULL, NULL, 0},
    {"ctr_local_ack_timeout_err", NULL, NULL, 0},
    {"ctr_completer_retry_err", NULL, NULL, 0},
    {"ctr_implied_nak_seq_err", NULL, NULL, 0},
    {"ctr_req_transport_retries_exceeded", NULL, NULL, 0},
    {"ctr_retry_exceeded_err", NULL, NULL, 0},
    /* RNR NAKs */
    {"ctr_rnr_nak_retry_err", NULL, NULL, 0},
    {"ctr_rcvd_rnr_err", NULL, NULL, 0},
    {"ctr_send_rnr_err", NULL, NULL, 0},
    /* congestion: CNPs and ECN marks, transmit waits, drops for want of buffers */
    {"ctr_np_cnp_sent", NULL, NULL, 0},
    {"ctr_rp_cnp_handled", NULL, NULL, 0},
    {"ctr_np_ecn_marked_roce_packets", NULL, NULL, 0},
    {"ctr_port_xmit_wait", NULL, NULL, 0},
    {"ctr_port_xmit_discards", NULL, NULL, 0},
    {"ctr_out_of_buffer", NULL, NULL, 0},
    /* the link */
    {"ctr_link_downed", NULL, NULL, 0},
    {"ctr_link_error_recovery", NULL, NULL, 0},
    {"ctr_symbol_error", NULL, NULL, 0},
    {"ctr_port_rcv_errors", NULL, NULL, 0},
    /* the netdev's (ethtool -S; mlx5's names): pause frames and time, discards, buffers */
    {"ctr_pause_rx_frames", NULL, NULL, 0},
    {"ctr_pause_tx_frames", NULL, NULL, 0},
    {"ctr_pause_rx_us", NULL, NULL, 0},
    {"ctr_pause_tx_us", NULL, NULL, 0},
    {"ctr_discards_rx_phy", NULL, NULL, 0},
    {"ctr_discards_tx_phy", NULL, NULL, 0},
    {"ctr_rx_out_of_buffer", NULL, NULL, 0},
};
#define CTR_QUIET 6
#define CTR_ETH   29 /* the first of the netdev's */

/*
 * Where a column comes from: its sysfs name and scale, or the netdev's statistics
 * summed (per priority: "rx_prio" N "_pause", then the global one).
 */
struct src {
	const char *sysfs;
	unsigned scale;
	const char *prio, *post, *global;
};
static const struct src srcs[RB_CTR_NCOLS] = {
    [4] = {"port_xmit_data", 4, NULL, NULL, NULL},
    [5] = {"port_rcv_data", 4, NULL, NULL, NULL},
    [CTR_ETH + 0] = {NULL, 1, "rx_prio", "_pause", "rx_pause_ctrl_phy"},
    [CTR_ETH + 1] = {NULL, 1, "tx_prio", "_pause", "tx_pause_ctrl_phy"},
    [CTR_ETH + 2] = {NULL, 1, "rx_prio", "_pause_duration", NULL},
    [CTR_ETH + 3] = {NULL, 1, "tx_prio", "_pause_duration", NULL},
    [CTR_ETH + 4] = {NULL, 1, NULL, NULL, "rx_discards_phy"},
    [CTR_ETH + 5] = {NULL, 1, NULL, NULL, "tx_discards_phy"},
    [CTR_ETH + 6] = {NULL, 1, NULL, NULL, "rx_out_of_buffer"},
};

_Static_assert(sizeof(rb_counters_cols) / sizeof(rb_counters_cols[0]) == RB_CTR_NCOLS, "a column each");

static void add(struct rb_counters *c, size_t k)
{
	snprintf(c->key[c->n], sizeof(c->key[0]), "%s", rb_counters_cols[k].key);
	c->abnormal[c->n] = k >= CTR_QUIET;
	c->scale[c->n] = srcs[k].scale ? srcs[k].scale : 1;
	c->n++;
}

void rb_counters_use_eth(struct rb_counters *c, struct rb_ethstats *es, const char *ifname)
{
	char name[RB_ETHSTAT_NAME];

	rb_ethstats_free(&c->es);
	c->es = *es;
	memset(es, 0, sizeof(*es));
	snprintf(c->ifname, sizeof(c->ifname), "%s", ifname);
	const unsigned first = c->n;
	for (size_t k = CTR_ETH; k < RB_CTR_NCOLS && c->n < RB_CTR_MAX; k++) {
		unsigned m = 0;

		for (unsigned p = 0; srcs[k].prio && p < RB_CTR_PRIO; p++) {
			snprintf(name, sizeof(name), "%s%u%s", srcs[k].prio, p, srcs[k].post);
			if (rb_ethstats_find(&c->es, name) >= 0)
				c->eth[c->n][m++] = rb_ethstats_find(&c->es, name);
		}
		if (srcs[k].global && rb_ethstats_find(&c->es, srcs[k].global) >= 0)
			c->eth[c->n][m++] = rb_ethstats_find(&c->es, srcs[k].global);
		if (!m)
			continue;
		c->neth[c->n] = m;
		c->path[c->n][0] = '\0';
		add(c, k);
	}
	bool used = c->n > first;

	for (unsigned d = 0; d < 2; d++)
		for (unsigned p = 0; p < RB_CTR_PRIO; p++) {
			snprintf(name, sizeof(name), "%s%u_pause_duration", d ? "tx_prio" : "rx_prio", p);
			c->paused[d][p] = rb_ethstats_find(&c->es, name);
			used = used || c->paused[d][p] >= 0;
		}
	/* A driver without any of these (veth, virtio): nothing to read again at every size. */
	if (!used) {
		rb_ethstats_free(&c->es);
		c->ifname[0] = '\0';
	}
	rb_counters_mark(c);
	memset(c->delta, 0, sizeof(c->delta));
}

/* The netdev of a RoCE port (gid_attrs/ndevs/0), its statistics read once: their names. */
static void open_eth(struct rb_counters *c, const char *sysfs, const char *dev, unsigned port)
{
	struct rb_ethstats es = {0};
	char rel[256], ifname[32];

	snprintf(rel, sizeof(rel), "class/infiniband/%s/ports/%u/gid_attrs/ndevs/0", dev, port);
	if (!rb_sysfs_line(sysfs, rel, ifname, sizeof(ifname)) || !ifname[0] || rb_ethstats_read(ifname, &es))
		return;
	rb_counters_use_eth(c, &es, ifname);
}

void rb_counters_open(struct rb_counters *c, const char *sysfs, const char *dev, unsigned port)
{
	static const char *const dirs[] = {"counters", "hw_counters", NULL, 0};
	char rel[256];

	rb_counters_close(c);
	for (size_t k = 0; k < CTR_ETH && c->n < RB_CTR_MAX; k++)
		for (size_t d = 0; d < 2; d++) {
			snprintf(rel, sizeof(rel), "class/infiniband/%s/ports/%u/%s/%s", dev, port, dirs[d],
			         srcs[k].sysfs ? srcs[k].sysfs : rb_counters_cols[k].key + 4);
			if (!rb_sysfs_exists(sysfs, rel) ||
			    !rb_sysfs_path(c->path[c->n], sizeof(c->path[0]), sysfs, rel))
				continue;
			c->neth[c->n] = 0;
			add(c, k);
			break;
		}
	if (!strcmp(sysfs, "/sys"))
		open_eth(c, sysfs, dev, port);
	rb_counters_mark(c);
	memset(c->delta, 0, sizeof(c->delta));
}

void rb_counters_close(struct rb_counters *c)
{
	rb_ethstats_free(&c->es);
	memset(c, 0, sizeof(*c));
}

/* The netdev's statistics now (a driver that changed its set: the last values stand). */
static void refresh(struct rb_counters *c)
{
	if (c->ifname[0] && c->es.n && rb_ethstats_refresh(c->ifname, &c->es))
		rb_forget_first_error();
}

static uint64_t now(const struct rb_counters *c, unsigned i)
{
	uint64_t sum = 0;

	if (c->neth[i]) {
		for (unsigned j = 0; j < c->neth[i]; j++)
			if (c->eth[i][j] >= 0 && (unsigned)c->eth[i][j] < c->es.n)
				sum += c->es.val[c->eth[i][j]];
		return sum;
	}
	long v = rb_sysfs_long("", c->path[i] + 1, -1); /* the path is absolute: root "" */
	return v < 0 ? 0 : (uint64_t)v * c->scale[i];
}

static uint64_t paused_now(const struct rb_counters *c, unsigned d, unsigned p)
{
	return c->paused[d][p] >= 0 && (unsigned)c->paused[d][p] < c->es.n ? c->es.val[c->paused[d][p]] : 0;
}

void rb_counters_mark(struct rb_counters *c)
{
	refresh(c);
	for (unsigned i = 0; i < c->n; i++)
		c->step[i] = c->ivl[i] = now(c, i);
	for (unsigned d = 0; d < 2; d++)
		for (unsigned p = 0; p < RB_CTR_PRIO; p++)
			c->paused_base[d][p] = paused_now(c, d, p);
	c->t_mark = rb_now_ns();
}

void rb_counters_row(struct rb_counters *c, struct rb_row *r, bool interval)
{
	refresh(c);
	for (unsigned i = 0; i < c->n; i++) {
		uint64_t v = now(c, i), base = interval ? c->ivl[i] : c->step[i];
		uint64_t d = v >= base ? v - base : 0; /* a counter reset mid-size counts nothing */

		if (interval)
			c->ivl[i] = v;
		else
			c->delta[i] = d;
		rb_row_u64(r, c->key[i], NULL, d);
	}
	if (interval)
		return;
	for (unsigned d = 0; d < 2; d++)
		for (unsigned p = 0; p < RB_CTR_PRIO; p++) {
			uint64_t v = paused_now(c, d, p);
			c->paused_delta[d][p] = v >= c->paused_base[d][p] ? v - c->paused_base[d][p] : 0;
		}
	c->window_ns = rb_now_ns() - c->t_mark;
}

bool rb_counters_abnormal(const struct rb_counters *c, char *buf, size_t len)
{
	static const char *const what[2] = {"told by the far end to pause sending",
	                                    "asking the far end to pause (this port's buffers full)"};
	size_t off = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < c->n && off < len; i++)
		if (c->abnormal[i] && c->delta[i])
			off += (size_t)snprintf(buf + off, len - off, "%s%s +%llu", off ? ", " : "",
			                        c->key[i] + 4, (unsigned long long)c->delta[i]);
	/* The priority paused longest, each way, as a share of the size's window (durations in us). */
	for (unsigned d = 0; d < 2 && c->window_ns && off < len; d++) {
		unsigned top = 0;

		for (unsigned p = 1; p < RB_CTR_PRIO; p++)
			if (c->paused_delta[d][p] > c->paused_delta[d][top])
				top = p;
		if (c->paused_delta[d][top])
			off += (size_t)snprintf(
			    buf + off, len - off, "%s%s %.0f %% of the window on priority %u",
			    off ? "; " : "", what[d],
			    100.0 * (double)c->paused_delta[d][top] * 1e3 / (double)c->window_ns, top);
	}
	return off > 0;
}

/* SPDX-License-Identifier: BSD-2-Clause */
#include "counters.h"

#include "base/base.h"

#include <stdio.h>
#include <string.h>

/*
 * The counters worth a column, as their columns ("ctr_" and the sysfs name). The
 * first CTR_PACKETS count packets; any other is abnormal when it moves.
 */
const struct rb_col rb_counters_cols[] = {
    /* packets (IB port counters; rxe) */
    {"ctr_port_xmit_packets", NULL, NULL, 0},
    {"ctr_port_rcv_packets", NULL, NULL, 0},
    {"ctr_sent_pkts", NULL, NULL, 0},
    {"ctr_rcvd_pkts", NULL, NULL, 0},
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
    /* congestion: CNPs and ECN marks */
    {"ctr_np_cnp_sent", NULL, NULL, 0},
    {"ctr_rp_cnp_handled", NULL, NULL, 0},
    {"ctr_np_ecn_marked_roce_packets", NULL, NULL, 0},
    /* the link */
    {"ctr_link_downed", NULL, NULL, 0},
    {"ctr_link_error_recovery", NULL, NULL, 0},
    {"ctr_symbol_error", NULL, NULL, 0},
    {"ctr_port_rcv_errors", NULL, NULL, 0},
};
#define CTR_PACKETS 4

void rb_counters_open(struct rb_counters *c, const char *sysfs, const char *dev, unsigned port)
{
	static const char *const dirs[] = {"counters", "hw_counters", NULL, 0};
	char rel[256];

	c->n = 0;
	for (size_t k = 0; k < RB_CTR_NCOLS && c->n < RB_CTR_MAX; k++)
		for (size_t d = 0; d < 2; d++) {
			snprintf(rel, sizeof(rel), "class/infiniband/%s/ports/%u/%s/%s", dev, port, dirs[d],
			         rb_counters_cols[k].key + 4);
			if (!rb_sysfs_exists(sysfs, rel) ||
			    !rb_sysfs_path(c->path[c->n], sizeof(c->path[0]), sysfs, rel))
				continue;
			snprintf(c->key[c->n], sizeof(c->key[0]), "%s", rb_counters_cols[k].key);
			c->abnormal[c->n] = k >= CTR_PACKETS;
			c->n++;
			break;
		}
	rb_counters_mark(c);
	memset(c->delta, 0, sizeof(c->delta));
}

static uint64_t now(const struct rb_counters *c, unsigned i)
{
	long v = rb_sysfs_long("", c->path[i] + 1, -1); /* the path is absolute: root "" */
	return v < 0 ? 0 : (uint64_t)v;
}

void rb_counters_mark(struct rb_counters *c)
{
	for (unsigned i = 0; i < c->n; i++)
		c->step[i] = c->ivl[i] = now(c, i);
}

void rb_counters_row(struct rb_counters *c, struct rb_row *r, bool interval)
{
	for (unsigned i = 0; i < c->n; i++) {
		uint64_t v = now(c, i), base = interval ? c->ivl[i] : c->step[i];
		uint64_t d = v >= base ? v - base : 0; /* a counter reset mid-size counts nothing */

		if (interval)
			c->ivl[i] = v;
		else
			c->delta[i] = d;
		rb_row_u64(r, c->key[i], NULL, d);
	}
}

bool rb_counters_abnormal(const struct rb_counters *c, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < c->n && off < len; i++)
		if (c->abnormal[i] && c->delta[i])
			off += (size_t)snprintf(buf + off, len - off, "%s%s +%llu", off ? ", " : "",
			                        c->key[i] + 4, (unsigned long long)c->delta[i]);
	return off > 0;
}

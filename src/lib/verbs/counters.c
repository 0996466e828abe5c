/* SPDX-License-Identifier: BSD-2-Clause */
#include "counters.h"

#include "base/base.h"

#include <stdio.h>
#include <string.h>

/*
 * The counters worth a column, as their columns ("ctr_" and the sysfs name). The
 * first CTR_PACKETS count packets; any other is abnormal when it moves.
 */
const char *const rb_counters_columns[] = {
    /* packets (IB port counters; rxe) */
    "ctr_port_xmit_packets",
    "ctr_port_rcv_packets",
    "ctr_sent_pkts",
    "ctr_rcvd_pkts",
    /* retransmissions, duplicates, out of sequence (mlx5 and rxe names) */
    "ctr_duplicate_request",
    "ctr_out_of_sequence",
    "ctr_out_of_seq_request",
    "ctr_packet_seq_err",
    "ctr_rcvd_seq_err",
    "ctr_local_ack_timeout_err",
    "ctr_completer_retry_err",
    "ctr_implied_nak_seq_err",
    "ctr_req_transport_retries_exceeded",
    "ctr_retry_exceeded_err",
    /* RNR NAKs */
    "ctr_rnr_nak_retry_err",
    "ctr_rcvd_rnr_err",
    "ctr_send_rnr_err",
    /* congestion: CNPs and ECN marks */
    "ctr_np_cnp_sent",
    "ctr_rp_cnp_handled",
    "ctr_np_ecn_marked_roce_packets",
    /* the link */
    "ctr_link_downed",
    "ctr_link_error_recovery",
    "ctr_symbol_error",
    "ctr_port_rcv_errors",
    NULL,
};
#define CTR_PACKETS 4

void rb_counters_open(struct rb_counters *c, const char *sysfs, const char *dev, unsigned port)
{
	static const char *const dirs[] = {"counters", "hw_counters"};
	char rel[256];

	c->n = 0;
	for (size_t k = 0; rb_counters_columns[k] && c->n < RB_CTR_MAX; k++)
		for (size_t d = 0; d < 2; d++) {
			snprintf(rel, sizeof(rel), "class/infiniband/%s/ports/%u/%s/%s", dev, port, dirs[d],
			         rb_counters_columns[k] + 4);
			if (!rb_sysfs_exists(sysfs, rel) ||
			    !rb_sysfs_path(c->path[c->n], sizeof(c->path[0]), sysfs, rel))
				continue;
			snprintf(c->key[c->n], sizeof(c->key[0]), "%s", rb_counters_columns[k]);
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

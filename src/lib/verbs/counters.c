/* SPDX-License-Identifier: BSD-2-Clause */
#include "counters.h"

#include "base/base.h"

#include <stdio.h>
#include <string.h>

/* The counters worth a column; false: abnormal when it moves. */
static const struct {
	const char *name;
	bool packets;
} known[] = {
    /* packets (IB port counters; rxe) */
    {"port_xmit_packets", true},
    {"port_rcv_packets", true},
    {"sent_pkts", true},
    {"rcvd_pkts", true},
    /* retransmissions, duplicates, out of sequence (mlx5 and rxe names) */
    {"duplicate_request", false},
    {"out_of_sequence", false},
    {"out_of_seq_request", false},
    {"packet_seq_err", false},
    {"rcvd_seq_err", false},
    {"local_ack_timeout_err", false},
    {"completer_retry_err", false},
    {"implied_nak_seq_err", false},
    {"req_transport_retries_exceeded", false},
    {"retry_exceeded_err", false},
    /* RNR NAKs */
    {"rnr_nak_retry_err", false},
    {"rcvd_rnr_err", false},
    {"send_rnr_err", false},
    /* congestion: CNPs and ECN marks */
    {"np_cnp_sent", false},
    {"rp_cnp_handled", false},
    {"np_ecn_marked_roce_packets", false},
    /* the link */
    {"link_downed", false},
    {"link_error_recovery", false},
    {"symbol_error", false},
    {"port_rcv_errors", false},
};

void rb_counters_open(struct rb_counters *c, const char *sysfs, const char *dev, unsigned port)
{
	static const char *const dirs[] = {"counters", "hw_counters"};
	char rel[256];

	c->n = 0;
	for (size_t k = 0; k < sizeof(known) / sizeof(known[0]) && c->n < RB_CTR_MAX; k++)
		for (size_t d = 0; d < 2; d++) {
			snprintf(rel, sizeof(rel), "class/infiniband/%s/ports/%u/%s/%s", dev, port, dirs[d],
			         known[k].name);
			if (!rb_sysfs_exists(sysfs, rel) ||
			    !rb_sysfs_path(c->path[c->n], sizeof(c->path[0]), sysfs, rel))
				continue;
			snprintf(c->key[c->n], sizeof(c->key[0]), "ctr_%s", known[k].name);
			c->abnormal[c->n] = !known[k].packets;
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

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A --pattern flow's receiving side: its server passes its rows too, and what its
 * port's counters saw (drops and out-of-sequence arrivals, the pauses it sent, the
 * ECN marks it received and the CNPs it answered with) is kept beside the client's
 * row. A round counts each rank's port once, on either side (the most any of its
 * flows' rows saw: the flows of one rank read one port), and names the receiver that
 * dropped or paused the most.
 */
#include "coord_priv.h"

#include "base/base.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* The counters of a receiver's port that mean a packet was dropped or arrived out of order. */
static bool rx_loss_key(const char *k)
{
	static const char *const keys[] = {
	    "ctr_out_of_sequence",  "ctr_out_of_seq_request", "ctr_duplicate_request", "ctr_discards_rx_phy",
	    "ctr_rx_out_of_buffer", "ctr_out_of_buffer",      "ctr_port_rcv_errors"};

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcmp(k, keys[i]))
			return true;
	return false;
}

static void rx_row(struct coord_rxfacts *x, const struct rb_row *row)
{
	/* A sweep's flow: its last size's row. */
	*x = (struct coord_rxfacts){0, 0, 0, 0, NAN, true};
	for (unsigned i = 0; i < row->n; i++) {
		const struct rb_field *f = &row->f[i];

		if (!strcmp(f->key, "elapsed_s") && f->type == RB_F_DBL && isfinite(f->v.d) && f->v.d > 0)
			x->window_s = f->v.d;
		else if (f->type != RB_F_U64)
			continue;
		else if (rx_loss_key(f->key))
			x->loss = rb_u64_sat_add(x->loss, f->v.u);
		else if (!strcmp(f->key, "ctr_pause_tx_us"))
			x->paused_us = rb_u64_sat_add(x->paused_us, f->v.u);
		else if (!strcmp(f->key, "ctr_np_ecn_marked_roce_packets"))
			x->ecn = rb_u64_sat_add(x->ecn, f->v.u);
		else if (!strcmp(f->key, "ctr_np_cnp_sent"))
			x->cnp = rb_u64_sat_add(x->cnp, f->v.u);
	}
}

int rb_coord_on_rx_row(struct coord *c, uint32_t from, struct rb_fab_row *fr)
{
	uint32_t pi = fr->server == from ? rb_coord_flow_row(c, fr, c->nrows_rx) : UINT32_MAX;

	if (pi == UINT32_MAX)
		return -EPROTO;
	rx_row(&c->rx[pi], &fr->row);
	return 0;
}

static uint64_t most(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static void merge(struct coord_rxfacts *port, const struct coord_rxfacts *x)
{
	port->loss = most(port->loss, x->loss);
	port->paused_us = most(port->paused_us, x->paused_us);
	port->ecn = most(port->ecn, x->ecn);
	port->cnp = most(port->cnp, x->cnp);
	if (isfinite(x->window_s) && !(port->window_s >= x->window_s))
		port->window_s = x->window_s;
	port->seen = true;
}

void rb_coord_ports_once(struct coord *c, const struct rb_pair *pairs, uint32_t np, bool servers)
{
	for (uint32_t r = 0; r < c->n; r++)
		c->ports[r] = (struct coord_rxfacts){0, 0, 0, 0, NAN, false};
	for (uint32_t p = 0; p < np; p++) {
		uint32_t r = servers ? pairs[p].server : pairs[p].client;

		if (r >= c->n)
			continue;
		if (servers && c->rx[p].seen)
			merge(&c->ports[r], &c->rx[p]);
		else if (!servers) {
			const struct coord_flowfacts *f = &c->facts[p];
			struct coord_rxfacts x = {f->loss, f->paused_us, 0, f->cnp, NAN, true};

			merge(&c->ports[r], &x);
		}
	}
}

void rb_coord_rx_round(struct coord *c, const struct rb_pair *pairs, uint32_t np, struct coord_rxround *out)
{
	double worst_share = -1;

	memset(out, 0, sizeof(*out));
	out->worst = UINT32_MAX;
	rb_coord_ports_once(c, pairs, np, true);
	for (uint32_t r = 0; r < c->n; r++) {
		const struct coord_rxfacts *port = &c->ports[r];
		double share;

		if (!port->seen)
			continue;
		out->loss = rb_u64_sat_add(out->loss, port->loss);
		out->paused_us = rb_u64_sat_add(out->paused_us, port->paused_us);
		out->ecn = rb_u64_sat_add(out->ecn, port->ecn);
		out->cnp = rb_u64_sat_add(out->cnp, port->cnp);
		out->receivers++;
		share = isfinite(port->window_s) ? (double)port->paused_us / 1e6 / port->window_s : NAN;
		/* The worst: of those that saw anything, the most drops, then the largest share paused. */
		if ((port->loss || port->paused_us || port->ecn) &&
		    (out->worst == UINT32_MAX || port->loss > out->worst_loss ||
		     (port->loss == out->worst_loss && isfinite(share) && share > worst_share))) {
			out->worst = r;
			out->worst_loss = port->loss;
			out->worst_paused_us = port->paused_us;
			out->worst_pause_share = share;
			out->worst_ecn = port->ecn;
			out->worst_window_s = port->window_s;
			worst_share = isfinite(share) ? share : worst_share;
		}
	}
}

void rb_coord_rx_line(const struct coord *c, const struct coord_rxround *rx)
{
	char who[160];

	if (rx->worst == UINT32_MAX)
		return;
	printf("   receiver %s: %llu drops or out-of-sequence arrivals",
	       rb_coord_who(c, rx->worst * c->rails, who, sizeof(who)), (unsigned long long)rx->worst_loss);
	if (rx->worst_paused_us && isfinite(rx->worst_pause_share))
		printf(", pauses sent %.0f %% of its %.2f s window", 100 * rx->worst_pause_share,
		       rx->worst_window_s);
	else if (rx->worst_paused_us)
		printf(", pauses sent for %.1f ms", (double)rx->worst_paused_us / 1e3);
	if (rx->worst_ecn && isfinite(rx->worst_window_s))
		printf(", ECN-marked arrivals %.0f/s", (double)rx->worst_ecn / rx->worst_window_s);
	printf("\n");
}

void rb_coord_rx_json(FILE *f, const struct coord_rxround *rx)
{
	fprintf(f,
	        ", \"receivers_counted\": %u, \"receiver_loss_events\": %llu, \"receiver_paused_us\": %llu, "
	        "\"receiver_ecn_marked\": %llu, \"receiver_cnp_sent\": %llu",
	        rx->receivers, (unsigned long long)rx->loss, (unsigned long long)rx->paused_us,
	        (unsigned long long)rx->ecn, (unsigned long long)rx->cnp);
	if (rx->worst == UINT32_MAX)
		fprintf(f, ", \"worst_receiver_rank\": null");
	else
		fprintf(f, ", \"worst_receiver_rank\": %u", rx->worst);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A --pattern round's flows together: their sum, spread and Jain's fairness index, every
 * byte over the union of their windows (the aggregate), the
 * resource they share (the one receiver of an incast, the one sender of a
 * one-to-many, every port of the others) and the share of its links they reached, and
 * the flows that got less than half the round's mean, the model's rate a flow (the
 * wire's rate over the flows that share the busiest port: the oversubscription O),
 * and a verdict on what limited the round (the shared port, loss or pauses on either
 * side, coord_receiver.c, or neither: the senders); under the table in text, and in the JSON documents'
 * outliers block
 * ("pattern").
 */
#include "coord_priv.h"

#include "base/base.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Below this fraction of the round's mean a flow is starved, and named. */
#define STARVED 0.5
/*
 * Loss limits a round when its events are at least LOSS_MIN and one in LOSS_PER of the
 * packets the flows moved, counted at 4096 bytes (RoCE's largest MTU, the fewest
 * packets): a handful of retransmissions in thousands of packets is noise, not the limit.
 */
#define LOSS_MIN 10
#define LOSS_PER 1000

/* The ports the round's flows share, and how many links of capacity that is. */
static uint32_t bottleneck(const struct coord *c, const struct rb_pair *pairs, uint32_t np, const char **what)
{
	switch (c->cfg->fab->pattern.kind) {
	case RB_PAT_INCAST: *what = "receiver"; return pairs[0].server;
	case RB_PAT_ONE_TO_MANY: *what = "sender"; return pairs[0].client;
	default: *what = NULL; return UINT32_MAX;
	}
}

/* The flows that share the busiest port: O, the pattern's oversubscription of it. */
static uint32_t sharing(const struct coord *c, uint32_t np)
{
	switch (c->cfg->fab->pattern.kind) {
	case RB_PAT_INCAST:
	case RB_PAT_ONE_TO_MANY: return np;
	case RB_PAT_ALL_TO_ALL: return c->n - 1;
	default: return 1;
	}
}

/*
 * The counters of a sender's side that mean a packet was lost or had to be sent again
 * (the responder's own, out-of-sequence and duplicate arrivals, are the receivers':
 * coord_receiver.c).
 */
static bool loss_key(const char *k)
{
	static const char *const keys[] = {"ctr_packet_seq_err",        "ctr_rcvd_seq_err",
	                                   "ctr_local_ack_timeout_err", "ctr_completer_retry_err",
	                                   "ctr_implied_nak_seq_err",   "ctr_rnr_nak_retry_err",
	                                   "ctr_rcvd_rnr_err",          "ctr_send_rnr_err",
	                                   "ctr_port_xmit_discards",    "ctr_discards_tx_phy"};

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (!strcmp(k, keys[i]))
			return true;
	return false;
}

static double number(const struct rb_field *f)
{
	if (f->type == RB_F_DBL)
		return isfinite(f->v.d) && f->v.d > 0 ? f->v.d : NAN;
	return f->type == RB_F_U64 && f->v.u > 0 ? (double)f->v.u : NAN;
}

void rb_coord_pattern_row(struct coord *c, uint32_t pi, const struct rb_row *row)
{
	struct coord_flowfacts *f = &c->facts[pi];
	const double w0 = f->w0, w1 = f->w1;

	/* A sweep's flow: its last size's row, as its headline; its span, all of its sizes'. */
	*f = (struct coord_flowfacts){NAN, NAN, 0, 0, 0, 0, NAN, NAN, w0, w1};
	for (unsigned i = 0; i < row->n; i++) {
		const struct rb_field *x = &row->f[i];

		if (!strcmp(x->key, "link_gbps"))
			f->link = number(x);
		else if (!strcmp(x->key, "flow_start_unix_s"))
			f->t0 = number(x);
		else if (!strcmp(x->key, "flow_end_unix_s"))
			f->t1 = number(x);
		else if (!strcmp(x->key, "bytes") && x->type == RB_F_U64)
			f->bytes = x->v.u;
		else if (!strcmp(x->key, "wire_max_gbps"))
			f->wire = number(x);
		else if (x->type != RB_F_U64)
			continue;
		else if (loss_key(x->key))
			f->loss = rb_u64_sat_add(f->loss, x->v.u);
		else if (!strcmp(x->key, "ctr_pause_rx_us"))
			f->paused_us = rb_u64_sat_add(f->paused_us, x->v.u);
		else if (!strcmp(x->key, "ctr_rp_cnp_handled"))
			f->cnp = rb_u64_sat_add(f->cnp, x->v.u);
	}
	if (isfinite(f->t0) && isfinite(f->t1) && f->t1 > f->t0) {
		f->w0 = isnan(w0) || f->t0 < w0 ? f->t0 : w0;
		f->w1 = isnan(w1) || f->t1 > w1 ? f->t1 : w1;
	}
}

/* What the round's flows reached together: their aggregate where their spans are known, else their sum. */
static double reached(const struct coord_pround *pr)
{
	return isfinite(pr->aggregate) ? pr->aggregate : pr->st.sum;
}

static bool lossy(const struct coord_pround *pr)
{
	uint64_t events = rb_u64_sat_add(pr->loss, pr->rx.loss), packets = pr->bytes / 4096;

	/* events x LOSS_PER >= packets, without the product (a rank's counters can be anything). */
	return events >= LOSS_MIN && events >= packets / LOSS_PER + (packets % LOSS_PER != 0);
}

/* What limited the round: the shared port, loss, pauses, or none of them (the senders). */
static void judge(const struct coord *c, struct coord_pround *pr, char *who, size_t cap)
{
	double share = pr->st.n && isfinite(pr->wire) ? reached(pr) / pr->wire : NAN;
	char *v = pr->verdict;
	size_t n = sizeof(pr->verdict);

	if (!pr->st.n)
		snprintf(v, n, "no flow measured");
	else if (share >= 0.85 && pr->what)
		snprintf(v, n, "the shared port: the %s, %s, at %.0f %% of what its wire carries", pr->what,
		         rb_coord_who(c, pr->at * c->rails, who, cap), 100 * share);
	else if (share >= 0.85)
		snprintf(v, n, "the links: %.0f %% of what their wire carries", 100 * share);
	else if (lossy(pr))
		snprintf(
		    v, n,
		    "loss: %llu retransmission, sequence or drop events on the senders' side, %llu drops or "
		    "out-of-sequence arrivals at the receivers",
		    (unsigned long long)pr->loss, (unsigned long long)pr->rx.loss);
	else if (pr->paused_us || pr->rx.paused_us)
		snprintf(
		    v, n,
		    "pauses: the far ends told the senders to pause for %.1f ms in all, the receivers sent "
		    "pauses for %.1f ms (%llu congestion notifications handled)",
		    (double)pr->paused_us / 1e3, (double)pr->rx.paused_us / 1e3, (unsigned long long)pr->cnp);
	else if (isfinite(share) && (pr->loss || pr->rx.loss))
		snprintf(
		    v, n,
		    "neither the ports (%.0f %% of what their wire carries) nor loss (%llu events: fewer "
		    "than %d, or than 1 in %d of ~%llu packets) or pauses: the senders, their hosts or NICs",
		    100 * share, (unsigned long long)rb_u64_sat_add(pr->loss, pr->rx.loss), LOSS_MIN,
		    LOSS_PER, (unsigned long long)(pr->bytes / 4096));
	else if (isfinite(share))
		snprintf(
		    v, n,
		    "neither the ports (%.0f %% of what their wire carries) nor loss or pauses the senders "
		    "saw: the senders, their hosts or NICs",
		    100 * share);
	else
		snprintf(v, n, "not named: the rows carry no link rate and no port counters (a TCP tool)");
}

static double capacity_links(const struct coord *c, uint32_t np)
{
	switch (c->cfg->fab->pattern.kind) {
	case RB_PAT_INCAST:
	case RB_PAT_ONE_TO_MANY: return 1;
	case RB_PAT_BISECTION: return np;
	default: return c->n; /* all-to-all, ring: every rank's port sends */
	}
}

void rb_coord_pattern_round(struct coord *c, const struct rb_pair *pairs, uint32_t np)
{
	struct coord_pround *pr;
	double *v = calloc(np ? np : 1, sizeof(*v)), link = NAN, wire = NAN, t0 = NAN, t1 = NAN;
	uint64_t bytes = 0;
	uint32_t spans = 0;
	char name[32], who[160];

	if (!v || !c->prounds || c->nprounds >= c->rounds) {
		free(v);
		return;
	}
	pr = &c->prounds[c->nprounds++];
	memset(pr, 0, sizeof(*pr));
	pr->round = c->round;
	pr->flows = np;
	for (uint32_t p = 0; p < np; p++) {
		const struct coord_flowfacts *f = &c->facts[p];

		v[p] = c->perr[p][0] ? NAN : c->last[p * c->rails];
		if (isfinite(f->link) && (isnan(link) || f->link < link))
			link = f->link;
		if (isfinite(f->wire) && (isnan(wire) || f->wire < wire))
			wire = f->wire;
		if (!c->perr[p][0] && isfinite(f->t0) && isfinite(f->t1) && f->t1 > f->t0) {
			t0 = isnan(t0) || f->t0 < t0 ? f->t0 : t0;
			t1 = isnan(t1) || f->t1 > t1 ? f->t1 : t1;
			bytes = rb_u64_sat_add(bytes, f->bytes);
			spans++;
		}
	}
	/* Each sending rank's port once: its flows' rows each read the whole port. */
	rb_coord_ports_once(c, pairs, np, false);
	for (uint32_t r = 0; r < c->n; r++) {
		pr->loss = rb_u64_sat_add(pr->loss, c->ports[r].loss);
		pr->paused_us = rb_u64_sat_add(pr->paused_us, c->ports[r].paused_us);
		pr->cnp = rb_u64_sat_add(pr->cnp, c->ports[r].cnp);
	}
	rb_flow_stats(v, np, &pr->st);
	pr->at = bottleneck(c, pairs, np, &pr->what);
	pr->sharing = sharing(c, np);
	pr->capacity = isfinite(link) ? link * capacity_links(c, np) : NAN;
	pr->wire = isfinite(wire) ? wire * capacity_links(c, np) : NAN;
	pr->model = isfinite(wire) ? wire / pr->sharing : NAN;
	pr->bytes = bytes;
	pr->aggregate =
	    spans && spans == pr->st.n && !c->lower_better ? (double)bytes * 8 / 1e9 / (t1 - t0) : NAN;
	rb_coord_rx_round(c, pairs, np, &pr->rx);
	judge(c, pr, who, sizeof(who));
	for (uint32_t p = 0; p < np && !c->lower_better; p++)
		if (isfinite(v[p]) && v[p] < STARVED * pr->st.mean && pr->nstarved < COORD_STARVED_MAX)
			pr->starved[pr->nstarved++] = (struct coord_starved){pairs[p], v[p]};
	free(v);
	if (!c->text)
		return;
	rb_pattern_name(&c->cfg->fab->pattern, name, sizeof(name));
	printf(" round %u, %s: %u flows", rb_coord_round_no(c, c->round), name, np);
	if (pr->what)
		printf(" through the %s, %s", pr->what, rb_coord_who(c, pr->at * c->rails, who, sizeof(who)));
	if (pr->st.n)
		printf(", sum %.2f %s, min %.2f, max %.2f, fairness %.3f", pr->st.sum, c->unit, pr->st.min,
		       pr->st.max, pr->st.jain);
	if (isfinite(pr->aggregate))
		printf(", aggregate %.2f %s", pr->aggregate, c->unit);
	if (pr->st.n && isfinite(pr->capacity) && !c->lower_better)
		printf(", %.0f %% of %.0f %s of links", 100 * reached(pr) / pr->capacity, pr->capacity,
		       c->unit);
	if (pr->st.nfailed)
		printf(", %u failed", pr->st.nfailed);
	printf("\n");
	if (isfinite(pr->model) && pr->st.n && !c->lower_better)
		printf(
		    "   model: %.2f %s a flow (%.2f %s of wire over O = %u flows sharing a port), measured "
		    "mean %.2f (%.2f of it)\n",
		    pr->model, c->unit, pr->model * pr->sharing, c->unit, pr->sharing, pr->st.mean,
		    pr->st.mean / pr->model);
	printf("   verdict: %s\n", pr->verdict);
	rb_coord_rx_line(c, &pr->rx);
	for (uint32_t i = 0; i < pr->nstarved; i++) {
		char a[160];
		const struct coord_starved *s = &pr->starved[i];

		printf("   starved: %s -> %s: %.3g %s, %.2f of the round's mean (%.3g)\n",
		       rb_coord_who(c, s->flow.client * c->rails, a, sizeof(a)),
		       rb_coord_who(c, s->flow.server * c->rails, who, sizeof(who)), s->value, c->unit,
		       s->value / pr->st.mean, pr->st.mean);
	}
	fflush(stdout);
}

static void num(FILE *f, const char *key, double v)
{
	if (isfinite(v))
		fprintf(f, ", \"%s\": %.6g", key, v);
	else
		fprintf(f, ", \"%s\": null", key);
}

void rb_coord_emit_pattern(FILE *f, const struct coord *c)
{
	char name[32];

	if (!c->flows)
		return;
	fprintf(
	    f, ",\n    \"pattern\": {\"name\": \"%s\", \"headline\": \"%s\", \"unit\": \"%s\", \"rounds\": [",
	    rb_pattern_name(&c->cfg->fab->pattern, name, sizeof(name)), c->headline ? c->headline : "",
	    c->unit ? c->unit : "");
	for (uint32_t i = 0; i < c->nprounds; i++) {
		const struct coord_pround *pr = &c->prounds[i];

		fprintf(f, "%s\n      {\"round\": %u, \"flows\": %u, \"measured\": %u, \"failed\": %u",
		        i ? "," : "", rb_coord_round_no(c, pr->round), pr->flows, pr->st.n, pr->st.nfailed);
		num(f, "sum", pr->st.n ? pr->st.sum : NAN);
		num(f, "min", pr->st.min);
		num(f, "max", pr->st.max);
		num(f, "mean", pr->st.mean);
		num(f, "jain", pr->st.jain);
		if (pr->what)
			fprintf(f, ", \"bottleneck\": \"%s\", \"bottleneck_rank\": %u", pr->what, pr->at);
		else
			fprintf(f, ", \"bottleneck\": null, \"bottleneck_rank\": null");
		num(f, "capacity", pr->capacity);
		num(f, "capacity_share",
		    pr->st.n && isfinite(pr->capacity) ? reached(pr) / pr->capacity : NAN);
		num(f, "aggregate", pr->aggregate);
		fprintf(f, ", \"oversubscription\": %u", pr->sharing);
		num(f, "model_per_flow", pr->model);
		fprintf(f, ", \"loss_events\": %llu, \"paused_us\": %llu, \"cnp\": %llu, \"verdict\": ",
		        (unsigned long long)pr->loss, (unsigned long long)pr->paused_us,
		        (unsigned long long)pr->cnp);
		rb_json_string(f, pr->verdict);
		rb_coord_rx_json(f, &pr->rx);
		fprintf(f, ", \"starved\": [");
		for (uint32_t s = 0; s < pr->nstarved; s++)
			fprintf(f,
			        "%s{\"client_rank\": %u, \"server_rank\": %u, \"value\": %.6g, \"of_mean\": "
			        "%.4f}",
			        s ? ", " : "", pr->starved[s].flow.client, pr->starved[s].flow.server,
			        pr->starved[s].value, pr->starved[s].value / pr->st.mean);
		fprintf(f, "]}");
	}
	fprintf(f, "\n    ]}");
}

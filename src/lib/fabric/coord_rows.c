/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The pairs' rows: a ROW checked against the round's pairs and written into the
 * documents (and the gates), each pair's headline per rail, the row of all rails
 * together (bandwidth over several rails), and the round's results when it ends.
 */
#include "coord_priv.h"

#include "base/base.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RB_COORD_AGG_ROWS 4096

/* A pair row as the documents hold it: who measured (and the rail, or "all"), then the tool's own fields. */
static void write_row(struct coord *c, const struct rb_fab_row *fr, const char *rail)
{
	struct rb_row row;
	const struct rank *s = &c->rk[fr->server], *k = &c->rk[fr->client];

	memset(&row, 0, sizeof(row));
	rb_row_u64(&row, "round", "rnd", rb_coord_round_no(c, fr->round));
	if (c->rails > 1)
		rb_row_str(&row, "rail", "rail", rail);
	rb_row_u64(&row, "client_rank", "cli", fr->client);
	rb_row_str(&row, "client_host", NULL, k->join.host);
	rb_row_str(&row, "client_device", NULL,
	           fr->rail < c->rails ? rb_coord_devname(c, fr->client, fr->rail) : "-");
	rb_row_u64(&row, "server_rank", "srv", fr->server);
	rb_row_str(&row, "server_host", NULL, s->join.host);
	rb_row_str(&row, "server_device", NULL,
	           fr->rail < c->rails ? rb_coord_devname(c, fr->server, fr->rail) : "-");
	for (unsigned i = 0; i < fr->row.n && row.n < RB_ROW_MAX; i++)
		row.f[row.n++] = fr->row.f[i];
	rb_reports_row(c->cfg->reps, &row);
	rb_gate_row(&c->gate, &c->cfg->gates, &row);
}

static double headline(const struct coord *c, const struct rb_row *row)
{
	if (!c->headline)
		return NAN;
	/* Another process's figure: one that is not a finite number at or above 0 is no figure. */
	for (unsigned i = 0; i < row->n; i++)
		if (!strcmp(row->f[i].key, c->headline) && row->f[i].type == RB_F_DBL)
			return isfinite(row->f[i].v.d) && row->f[i].v.d >= 0 ? row->f[i].v.d : NAN;
	return NAN;
}

/* Fields that add up across rails measuring at once; the rest are rail 0's. */
static bool sums(const char *key)
{
	return !strcmp(key, "bytes") || !strcmp(key, "msgs") || !strcmp(key, "bw_avg_gbps") ||
	       !strcmp(key, "bw_peak_gbps") || !strcmp(key, "msg_rate_mpps") || !strncmp(key, "ctr_", 4);
}

/* Several rails, bandwidth: the pair's row of all rails together, per size (seq: its rows in order). */
static void write_aggregate(struct coord *c, uint32_t server, uint32_t client)
{
	static struct rb_fab_row agg;
	uint32_t seq = 0;

	for (;; seq++) {
		uint32_t have = 0;

		for (uint32_t rail = 0; rail < c->rails; rail++) {
			uint32_t nth = 0;
			for (uint32_t i = 0; i < c->nrows; i++) {
				const struct rb_fab_row *fr = &c->rows[i];
				if (fr->server != server || fr->client != client || fr->rail != rail ||
				    nth++ != seq)
					continue;
				if (!have++) {
					agg = *fr;
					for (unsigned f = 0; f < agg.row.n; f++) {
						agg.row.f[f].key = agg.keys[f];
						agg.row.f[f].label = agg.labels[f][0] ? agg.labels[f] : NULL;
					}
				} else {
					for (unsigned f = 0; f < agg.row.n && f < fr->row.n; f++) {
						struct rb_field *a = &agg.row.f[f];
						const struct rb_field *b = &fr->row.f[f];
						if (strcmp(a->key, b->key) || a->type != b->type ||
						    !sums(a->key))
							continue;
						if (a->type == RB_F_U64)
							a->v.u += b->v.u;
						else if (a->type == RB_F_DBL)
							a->v.d += b->v.d;
					}
				}
			}
		}
		if (have < c->rails)
			return;
		write_row(c, &agg, "all");
	}
}

/* Each pair's headline is its last row's (the largest size of a sweep), per rail. */
void rb_coord_round_done(struct coord *c, const struct rb_pair *pairs, uint32_t np, bool cut)
{
	/* A re-test's figures are the planner's (coord_retest.c), not the schedule's results. */
	if (c->retesting) {
		c->nrows = 0;
		return;
	}
	for (uint32_t p = 0; p < np && c->rails > 1 && !c->lower_better; p++)
		write_aggregate(c, pairs[p].server, pairs[p].client);
	for (uint32_t p = 0; p < np; p++) {
		const struct rank *a = &c->rk[pairs[p].server], *b = &c->rk[pairs[p].client];

		/* A round cut short: a pair still running is neither measured nor failed; one with a lost
		 * rank failed. */
		if (cut && !(a->ended && b->ended) && !a->lost && !b->lost)
			continue;
		for (uint32_t rail = 0; rail < c->rails; rail++) {
			uint32_t sv = pairs[p].server * c->rails + rail,
			         cl = pairs[p].client * c->rails + rail;
			const char *why = c->perr[p][0]        ? c->perr[p]
			                  : a->lost || b->lost ? "a rank of the pair was lost"
			                  : isnan(c->last[p * c->rails + rail]) ? "no row"
			                                                        : NULL;
			/* A pair that failed part-way is failed, whatever rows it sent first. */
			double v = why ? NAN : c->last[p * c->rails + rail];

			if (rb_outliers_add(&c->out, sv, cl, v, why))
				rb_warn("--all-pairs: a result could not be kept (out of memory)");
			if (c->cell) {
				size_t at =
				    ((size_t)pairs[p].client * c->n + pairs[p].server) * c->rails + rail;

				c->cell[at] = v;
				c->cell_state[at] = why ? 2 : 1;
			}
		}
	}
	if (c->flows)
		rb_coord_pattern_round(c, pairs, np);
	c->nrows = 0;
}

/* Several rails of bandwidth: the round's rows kept for the row of all rails (bounded). */
static void keep_for_aggregate(struct coord *c, const struct rb_fab_row *fr)
{
	if (c->nrows == c->cap) {
		uint32_t cap = c->cap ? 2 * c->cap : 16;
		void *p = cap <= RB_COORD_AGG_ROWS ? realloc(c->rows, sizeof(*c->rows) * cap) : NULL;

		if (!p) {
			if (!c->agg_dropped)
				rb_warn("--all-pairs: round %u has more rows than the %u the coordinator "
				        "keeps to add "
				        "rails up: its rows of all rails are left out",
				        rb_coord_round_no(c, c->round), RB_COORD_AGG_ROWS);
			c->agg_dropped = true;
			return;
		}
		c->rows = p;
		c->cap = cap;
	}
	c->rows[c->nrows++] = *fr;
}

uint32_t rb_coord_flow_row(struct coord *c, struct rb_fab_row *fr, uint32_t *counts)
{
	uint32_t pi = UINT32_MAX;

	for (uint32_t i = 0; i < rb_coord_nflows(c) && pi == UINT32_MAX; i++)
		if (c->pairs[i].client == fr->client && c->pairs[i].server == fr->server)
			pi = i;
	if (pi == UINT32_MAX || ++counts[pi] > RB_COORD_PAIR_ROWS)
		return UINT32_MAX;
	for (unsigned i = 0; i < fr->row.n; i++) {
		fr->row.f[i].key = fr->keys[i];
		fr->row.f[i].label = fr->labels[i][0] ? fr->labels[i] : NULL;
	}
	return pi;
}

int rb_coord_on_row(struct coord *c, uint32_t from, const struct rb_frame *f)
{
	struct rb_fab_row *fr = &c->scratch;
	uint32_t pi = UINT32_MAX;
	char rail[16];

	/*
	 * Only the client of one of this round's flows sends rows, and only for that flow;
	 * with --pattern its server too (its receiver's counters, never written).
	 */
	if (c->rk[from].ended || rb_fab_row_decode(f->p, f->len, fr) || fr->round != c->round ||
	    fr->rail >= c->rails)
		return -EPROTO;
	if (rb_coord_is_victim_row(fr))
		return rb_coord_victim_row(c, from, fr);
	if (c->flows && fr->server == from && fr->client != from)
		return rb_coord_on_rx_row(c, from, fr);
	if (fr->client != from)
		return -EPROTO;
	if ((pi = rb_coord_flow_row(c, fr, c->nrows_pair)) == UINT32_MAX)
		return -EPROTO;
	if (!c->headline) {
		bool bw = false, lat = false;
		for (unsigned i = 0; i < fr->row.n; i++) {
			bw = bw || !strcmp(fr->row.f[i].key, "bw_avg_gbps");
			lat = lat || !strcmp(fr->row.f[i].key, "lat_p50_us");
		}
		c->headline = bw ? "bw_avg_gbps" : lat ? "lat_p50_us" : "tps";
		c->unit = bw ? "Gb/s" : lat ? "us" : "1/s";
		c->lower_better = !bw && lat;
		c->out.lower_better = c->lower_better;
	}
	c->last[pi * c->rails + fr->rail] = headline(c, &fr->row);
	if (c->flows)
		rb_coord_pattern_row(c, pi, &fr->row);
	if (!c->t_first_row)
		c->t_first_row = rb_now_ns();
	if (c->retesting)
		return 0;
	snprintf(rail, sizeof(rail), "%u", fr->rail);
	write_row(c, fr, rail);
	if (c->rails > 1 && !c->lower_better)
		keep_for_aggregate(c, fr);
	return 0;
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A --pattern round's flows together: their sum, spread and Jain's fairness index, the
 * resource they share (the one receiver of an incast, the one sender of a
 * one-to-many, every port of the others) and the share of its links they reached, and
 * the flows that got less than half the round's mean: under the table in text, and in
 * the JSON documents' outliers block ("pattern").
 */
#include "coord_priv.h"

#include "base/base.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Below this fraction of the round's mean a flow is starved, and named. */
#define STARVED 0.5

/* The ports the round's flows share, and how many links of capacity that is. */
static uint32_t bottleneck(const struct coord *c, const struct rb_pair *pairs, uint32_t np, const char **what)
{
	switch (c->cfg->fab->pattern.kind) {
	case RB_PAT_INCAST: *what = "receiver"; return pairs[0].server;
	case RB_PAT_ONE_TO_MANY: *what = "sender"; return pairs[0].client;
	default: *what = NULL; return UINT32_MAX;
	}
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
	double *v = calloc(np ? np : 1, sizeof(*v)), link = NAN;
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
		v[p] = c->perr[p][0] ? NAN : c->last[p * c->rails];
		if (isfinite(c->link[p]) && (isnan(link) || c->link[p] < link))
			link = c->link[p];
	}
	rb_flow_stats(v, np, &pr->st);
	pr->at = bottleneck(c, pairs, np, &pr->what);
	pr->capacity = isfinite(link) ? link * capacity_links(c, np) : NAN;
	for (uint32_t p = 0; p < np && !c->lower_better; p++)
		if (isfinite(v[p]) && v[p] < STARVED * pr->st.mean && pr->nstarved < COORD_STARVED_MAX)
			pr->starved[pr->nstarved++] = (struct coord_starved){pairs[p], v[p]};
	free(v);
	if (!c->text)
		return;
	rb_pattern_name(&c->cfg->fab->pattern, name, sizeof(name));
	printf(" round %u, %s: %u flows", c->round + 1, name, np);
	if (pr->what)
		printf(" through the %s, %s,", pr->what,
		       rb_coord_who(c, pr->at * c->rails, who, sizeof(who)));
	if (pr->st.n)
		printf(" sum %.2f %s, min %.2f, max %.2f, fairness %.3f", pr->st.sum, c->unit, pr->st.min,
		       pr->st.max, pr->st.jain);
	if (isfinite(pr->capacity) && !c->lower_better)
		printf(", %.0f %% of %.0f %s of links", 100 * pr->st.sum / pr->capacity, pr->capacity,
		       c->unit);
	if (pr->st.nfailed)
		printf(", %u failed", pr->st.nfailed);
	printf("\n");
	for (uint32_t i = 0; i < pr->nstarved; i++) {
		char a[160];
		const struct coord_starved *s = &pr->starved[i];

		printf("   starved: %s -> %s: %.2f %s, %.2f of the round's mean (%.2f)\n",
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
		        i ? "," : "", pr->round + 1, pr->flows, pr->st.n, pr->st.nfailed);
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
		    pr->st.n && isfinite(pr->capacity) ? pr->st.sum / pr->capacity : NAN);
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

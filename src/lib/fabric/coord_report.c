/* SPDX-License-Identifier: BSD-2-Clause */
/* The coordinator's findings: the N x N matrix, slow and failed pairs, suspects, in text and JSON. */
#include "coord_priv.h"

#include "report/report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

const char *rb_coord_devname(const struct coord *c, uint32_t r, uint32_t rail)
{
	return c->rk[r].dev[rail][0] ? c->rk[r].dev[rail] : "-";
}

const char *rb_coord_who(const struct coord *c, uint32_t e, char *buf, size_t cap)
{
	uint32_t r = e / c->rails;

	snprintf(buf, cap, "rank %u (%s %s)", r, c->rk[r].join.host, rb_coord_devname(c, r, e % c->rails));
	return buf;
}

/* The N x N matrix of headlines (row: client, column: server), for up to 32 ranks. */
static void print_matrix(const struct coord *c)
{
	printf(" %s [%s]%s by client (row) and server (column):\n      ", c->headline, c->unit,
	       c->rails > 1 ? (c->lower_better ? ", worst rail" : ", all rails") : "");
	for (uint32_t s = 0; s < c->n; s++)
		printf(" %8u", s);
	printf("\n");
	for (uint32_t k = 0; k < c->n; k++) {
		printf("  %3u ", k);
		for (uint32_t s = 0; s < c->n; s++) {
			/* All rails of the pair: bandwidth adds up, latency is the worst rail's. */
			uint32_t seen = 0;
			bool failed = false, slow = false;
			double v = 0, frac = c->cfg->fab->slow, med = c->out.median;

			for (uint32_t rail = 0; rail < c->rails; rail++) {
				size_t at = ((size_t)k * c->n + s) * c->rails + rail;
				double x = c->cell[at];

				if (!c->cell_state[at])
					continue;
				seen++;
				failed = failed || c->cell_state[at] == 2;
				slow = slow ||
				       (!isnan(med) && (c->lower_better ? x * frac > med : x < frac * med));
				v = c->lower_better ? (x > v ? x : v) : v + x;
			}
			if (!seen)
				printf(" %8s", k == s ? "." : "");
			else if (failed)
				printf(" %8s", "failed");
			else
				printf(" %7.*f%s", v < 100 ? 3 : 1, v, slow ? "*" : " ");
		}
		printf("\n");
	}
}

void rb_coord_outliers(struct coord *c)
{
	if (!c->out.tally)
		return;
	rb_outliers_judge(&c->out, c->cfg->fab->slow, c->cfg->fab->pairs.dirs == 2 && !c->cfg->round_trip,
	                  &c->out_complete);
	c->judged = true;
}

/* The text summary: the matrix, the slow pairs, the failed ones, the suspects (no closing line). */
void rb_coord_summary(struct coord *c)
{
	const struct rb_rank_tally *t = c->out.tally;
	const struct rb_outliers *o = &c->out;
	double med = o->median;
	uint32_t slow = 0, failed = (uint32_t)o->nfailed, nres = (uint32_t)o->results;

	if (!c->judged)
		return;
	for (uint32_t i = 0; i < o->nworst; i++)
		slow += o->worst[i].slow;
	if (c->text) {
		printf("-------------------------------------------------------------------------------------"
		       "--\n");
		/* A result is a pair's figure on one rail, one way; a pattern's, a flow's. */
		if (c->flows)
			printf(" %u ranks, %u flow%s in %u round%s: %u measured, %u failed", c->n, nres,
			       nres == 1 ? "" : "s", c->rounds - c->v.on, c->rounds - c->v.on == 1 ? "" : "s",
			       nres - failed, failed);
		else if (c->cfg->fab->pairs.dirs == 2 || c->rails > 1)
			printf(" %u ranks, %u results (%u pairs%s%s%.0u%s) in %u round%s: %u measured, %u "
			       "failed",
			       c->n, nres, nres / c->rails / (c->cfg->fab->pairs.dirs == 2 ? 2 : 1),
			       c->cfg->fab->pairs.dirs == 2 ? ", each way" : "", c->rails > 1 ? ", " : "",
			       c->rails > 1 ? c->rails : 0, c->rails > 1 ? " rails" : "", c->rounds,
			       c->rounds == 1 ? "" : "s", nres - failed, failed);
		else
			printf(" %u ranks, %u pair%s in %u round%s: %u measured, %u failed", c->n, nres,
			       nres == 1 ? "" : "s", c->rounds, c->rounds == 1 ? "" : "s", nres - failed,
			       failed);
		if (isnan(med))
			printf("; no pair measured\n");
		else
			printf("; median %s %.3f %s\n", c->headline, med, c->unit);
		/* With three ranks a bad one is in two of the three pairs: the median is its own. */
		if (c->n < 4 && !isnan(med))
			printf(" (with %u ranks the median may be a bad rank's own: compare with a "
			       "known-good run)\n",
			       c->n);
		if (c->headline && c->cell)
			print_matrix(c);
		else if (c->headline)
			printf(" matrix: %u ranks, too wide to print: every pair is a row of the documents\n",
			       c->n);
		if (c->headline)
			printf(" slow pairs (%s %s %.2f x median; * in the matrix): %u%s\n", c->headline,
			       c->lower_better ? "above 1 /" : "below", c->cfg->fab->slow, slow,
			       c->out_complete ? "" : " (at least: the worst held were all slow)");
		for (uint32_t i = 0; i < o->nworst; i++) {
			const struct rb_pair_result *x = &o->worst[i];
			char a[160], b[160];
			if (x->slow)
				printf("   %s -> %s: %.3f %s, %.2f x median\n",
				       rb_coord_who(c, x->client, a, sizeof(a)),
				       rb_coord_who(c, x->server, b, sizeof(b)), x->value, c->unit,
				       x->value / med);
		}
		for (uint32_t i = 0; i < o->nfailed_kept; i++) {
			const struct rb_pair_result *x = &o->failed[i];
			char a[160], b[160];
			printf(" failed pair: %s -> %s: %s\n", rb_coord_who(c, x->client, a, sizeof(a)),
			       rb_coord_who(c, x->server, b, sizeof(b)), o->err[i] ? o->err[i] : "?");
		}
		if (o->nfailed > o->nfailed_kept)
			printf(" ... and %llu more failed pairs (the first %u are held)\n",
			       (unsigned long long)(o->nfailed - o->nfailed_kept), o->nfailed_kept);
		/* Without re-tests, the schedule's first reading (with them, rb_coord_retest_summary). */
		for (uint32_t e = 0; !c->rt.ends && e < c->n * c->rails; e++)
			if (t[e].suspect)
				printf(" suspect: rank %u %s %s: %u of %u pairs slow (%u of %u where it "
				       "sent): suspect its "
				       "link or NIC (not re-tested)\n",
				       e / c->rails, c->rk[e / c->rails].join.host,
				       rb_coord_devname(c, e / c->rails, e % c->rails), t[e].slow,
				       t[e].measured, t[e].slow_as[0], t[e].measured_as[0]);
		fflush(stdout);
	}
}

void rb_coord_json_end(FILE *f, const struct coord *c, const char *side, uint32_t e)
{
	uint32_t r = e / c->rails;

	fprintf(f, "\"%s_rank\": %u, \"%s_host\": ", side, r, side);
	rb_json_string(f, c->rk[r].join.host);
	fprintf(f, ", \"%s_rail\": %u, \"%s_device\": ", side, e % c->rails, side);
	rb_json_string(f, rb_coord_devname(c, r, e % c->rails));
}

/*
 * The JSON documents' "outliers" block: what the text summary says, for scripts:
 * the median, the slow and the failed pairs, and the suspects (rank and NIC).
 */
void rb_coord_emit_outliers(FILE *f, void *arg)
{
	const struct coord *c = arg;
	const struct rb_outliers *o = &c->out;
	const char *sep = "";

	fputs("{\n    \"headline\": ", f);
	rb_json_string(f, c->headline ? c->headline : "");
	fprintf(f, ",\n    \"lower_is_better\": %s,\n    \"slow_fraction\": %g,\n    \"median\": ",
	        c->lower_better ? "true" : "false", c->cfg->fab->slow);
	if (!c->judged || isnan(o->median))
		fputs("null", f);
	else
		fprintf(f, "%.17g", o->median);
	fprintf(f, ",\n    \"results\": %llu,\n    \"failed\": %llu", (unsigned long long)o->results,
	        (unsigned long long)o->nfailed);
	/* The lists are held in a bounded room: they say whether they are whole. */
	fprintf(f, ",\n    \"slow_pairs_complete\": %s,\n    \"failed_pairs_complete\": %s",
	        c->out_complete ? "true" : "false", o->nfailed == o->nfailed_kept ? "true" : "false");
	for (int kind = 0; kind < 2; kind++) {
		uint32_t n = kind ? o->nfailed_kept : o->nworst;

		fprintf(f, ",\n    \"%s\": [", kind ? "failed_pairs" : "slow_pairs");
		sep = "";
		for (uint32_t i = 0; i < n; i++) {
			const struct rb_pair_result *x = kind ? &o->failed[i] : &o->worst[i];
			if (!kind && !x->slow)
				continue;
			fprintf(f, "%s\n      {", sep);
			rb_coord_json_end(f, c, "client", x->client);
			fputs(", ", f);
			rb_coord_json_end(f, c, "server", x->server);
			if (!kind)
				fprintf(f, ", \"value\": %.17g, \"of_median\": %.6g", x->value,
				        x->value / o->median);
			if (kind) {
				fputs(", \"error\": ", f);
				rb_json_string(f, o->err[i] ? o->err[i] : "");
			}
			fputs("}", f);
			sep = ",";
		}
		fputs(*sep ? "\n    ]" : "]", f);
	}
	/* The suspects: confirmed by re-tests, or without them the schedule's first reading. */
	fprintf(f, ",\n    \"suspects_confirmed_by_retests\": %s", c->rt.ends ? "true" : "false");
	fputs(",\n    \"suspects\": [", f);
	sep = "";
	for (uint32_t i = 0; c->rt.ends && i < rb_retest_count(&c->rt); i++) {
		const struct rb_rt_hyp *h = rb_retest_hyp(&c->rt, i);

		if (h->kind == RB_RT_LINK || h->state != RB_RT_CONFIRMED)
			continue;
		fprintf(f, "%s\n      {\"rank\": %u, \"host\": ", sep, h->a / c->rails);
		rb_json_string(f, c->rk[h->a / c->rails].join.host);
		fprintf(f, ", \"rail\": %u, \"device\": ", h->a % c->rails);
		rb_json_string(f, rb_coord_devname(c, h->a / c->rails, h->a % c->rails));
		fprintf(f, ", \"direction\": \"%s\", \"slow_pairs\": %u, \"measured_pairs\": %u}",
		        rb_rt_kind_name(h->kind), h->bad, h->seen);
		sep = ",";
	}
	for (uint32_t e = 0; !c->rt.ends && c->judged && e < c->n * c->rails; e++) {
		const struct rb_rank_tally *t = &o->tally[e];
		if (!t->suspect)
			continue;
		fprintf(f, "%s\n      {\"rank\": %u, \"host\": ", sep, e / c->rails);
		rb_json_string(f, c->rk[e / c->rails].join.host);
		fprintf(f, ", \"rail\": %u, \"device\": ", e % c->rails);
		rb_json_string(f, rb_coord_devname(c, e / c->rails, e % c->rails));
		fprintf(f, ", \"slow_pairs\": %u, \"measured_pairs\": %u}", t->slow, t->measured);
		sep = ",";
	}
	fputs(*sep ? "\n    ]" : "]", f);
}

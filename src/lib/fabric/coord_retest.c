/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * After the schedule: its slow and failed results become hypotheses (retest.h), and
 * re-test rounds run until each is confirmed or cleared. A re-test is a pair run like
 * the schedule's (GO, phase re-test), its figure judged by the schedule's rule
 * against the schedule's median; a re-test that fails counts as slow. Its rows are
 * not results: the documents' outliers block lists every re-test.
 */
#include "coord_priv.h"

#include "base/base.h"
#include "report/report.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static bool is_bad(const struct coord *c, double v)
{
	double frac = c->cfg->fab->slow;

	if (isnan(v))
		return true;
	if (!(c->out.median > 0))
		return false;
	return c->lower_better ? v * frac > c->out.median : v < frac * c->out.median;
}

/* One more re-test in the list (grown by half each time: it stays bounded by the planner). */
static void keep(struct coord *c, const struct coord_rerun *x)
{
	if (c->nreruns == c->rerun_cap) {
		uint32_t cap = c->rerun_cap ? c->rerun_cap + c->rerun_cap / 2 : 64;
		void *grown = realloc(c->reruns, sizeof(*c->reruns) * cap);

		if (!grown)
			return;
		c->reruns = grown;
		c->rerun_cap = cap;
	}
	c->reruns[c->nreruns++] = *x;
}

/* The round's figures: each pair's on the rail of the hypothesis it tested, to the planner and the list. */
static void take_round(struct coord *c, const struct rb_pair *pairs, const uint32_t *hyp, uint32_t np)
{
	for (uint32_t p = 0; p < np; p++) {
		const struct rank *a = &c->rk[pairs[p].server], *b = &c->rk[pairs[p].client];
		const struct rb_rt_hyp *h = rb_retest_hyp(&c->rt, hyp[p]);
		uint32_t rail = h->a % c->rails;
		bool failed = c->perr[p][0] || a->lost || b->lost;
		struct coord_rerun x = {.round = c->round,
		                        .client = pairs[p].client * c->rails + rail,
		                        .server = pairs[p].server * c->rails + rail,
		                        .hyp = hyp[p],
		                        .value = failed ? NAN : c->last[p * c->rails + rail]};

		x.bad = is_bad(c, x.value);
		rb_retest_record(&c->rt, hyp[p], x.bad);
		keep(c, &x);
		if (c->text) {
			char s1[160], s2[160];

			printf("  re-test %u (%s): %s -> %s: ", c->round + 1 - c->rounds,
			       rb_rt_kind_name(h->kind), rb_coord_who(c, x.client, s1, sizeof(s1)),
			       rb_coord_who(c, x.server, s2, sizeof(s2)));
			if (isnan(x.value))
				printf("failed: %s\n", c->perr[p][0] ? c->perr[p] : "a rank was lost");
			else
				printf("%.3f %s, %s\n", x.value, c->unit, x.bad ? "slow" : "fine");
		}
	}
	if (c->text)
		fflush(stdout);
}

int rb_coord_retests(struct coord *c, struct rb_pair *pairs)
{
	uint32_t bad = 0, *hyp;
	bool oom = false;
	int ret = 0;

	if (!c->cfg->fab->retests || !c->judged)
		return 0;
	if (rb_retest_init(&c->rt, c->n, c->rails, c->cfg->fab->retests, c->cfg->round_trip)) {
		rb_warn("--all-pairs: out of memory for the re-tests: the suspects are not re-tested");
		return 0;
	}
	/* Each end's results in each role that were fine, then each slow or failed result. */
	for (uint32_t e = 0; e < c->n * c->rails; e++)
		for (int role = 0; role < 2; role++)
			rb_retest_add_seen(&c->rt, e, role,
			                   c->out.tally[e].measured_as[role] - c->out.tally[e].slow_as[role]);
	for (int kind = 0; kind < 2 && !oom; kind++) {
		uint32_t n = kind ? c->out.nfailed_kept : c->out.nworst;

		for (uint32_t i = 0; i < n && !oom; i++) {
			const struct rb_pair_result *x = kind ? &c->out.failed[i] : &c->out.worst[i];

			if (!kind && !x->slow)
				continue;
			bad++;
			oom = rb_retest_seen(&c->rt, x->client, x->server, true) != 0;
		}
	}
	if (oom) {
		rb_warn("--all-pairs: out of memory for the re-tests: the suspects are not re-tested");
		rb_retest_free(&c->rt);
		return 0;
	}
	if (bad && c->text)
		printf(" %u slow or failed pair%s: re-tests against partners that measured well (--retests "
		       "%u: confirmed when %u in turn are slow, cleared by one that is not)\n",
		       bad, bad == 1 ? "" : "s", c->cfg->fab->retests, c->rt.need);
	c->retesting = true;
	hyp = calloc(c->n / 2 + 1, sizeof(*hyp));
	for (uint32_t np; hyp && !ret && (np = rb_retest_plan(&c->rt, pairs, hyp)) > 0; c->round++) {
		ret = rb_coord_play_round(c, pairs, np);
		take_round(c, pairs, hyp, np);
	}
	free(hyp);
	c->retesting = false;
	rb_retest_finish(&c->rt, c->out.results);
	if (ret)
		rb_coord_abort_all(c);
	return ret;
}

/* An end hypothesis's or a link's subject, "rank 3 (node-17 mlx5_1) transmit". */
static const char *subject(const struct coord *c, const struct rb_rt_hyp *h, char *buf, size_t cap)
{
	char a[160], b[160];

	if (h->kind == RB_RT_LINK)
		snprintf(buf, cap, "link %s -> %s", rb_coord_who(c, h->a, a, sizeof(a)),
		         rb_coord_who(c, h->b, b, sizeof(b)));
	else
		snprintf(buf, cap, "%s %s", rb_coord_who(c, h->a, a, sizeof(a)), rb_rt_kind_name(h->kind));
	return buf;
}

void rb_coord_retest_summary(const struct coord *c)
{
	uint32_t confirmed = 0, cleared = 0, undecided = 0;

	if (!c->rt.ends)
		return;
	if (!c->rt.nbad) {
		printf(" re-tests: none needed (no pair slow or failed)\n");
		return;
	}
	for (uint32_t i = 0; i < rb_retest_count(&c->rt); i++) {
		const struct rb_rt_hyp *h = rb_retest_hyp(&c->rt, i);
		char s[400];

		if (h->state != RB_RT_CONFIRMED && h->state != RB_RT_CLEARED && h->state != RB_RT_UNDECIDED &&
		    h->state != RB_RT_UNSTEADY)
			continue;
		confirmed += h->state == RB_RT_CONFIRMED;
		cleared += h->state == RB_RT_CLEARED;
		undecided += h->state == RB_RT_UNDECIDED || h->state == RB_RT_UNSTEADY;
		subject(c, h, s, sizeof(s));
		if (h->state == RB_RT_CONFIRMED)
			printf(
			    " confirmed: %s: %u of %u re-tests slow (%u of %u pairs slow in the schedule)\n",
			    s, h->slow, h->tests, h->bad, h->seen);
		else if (h->state == RB_RT_CLEARED)
			printf(" cleared: %s (schedule: %u of %u slow; re-tests: %u of %u slow)\n", s, h->bad,
			       h->seen, h->slow, h->tests);
		else if (h->state == RB_RT_UNSTEADY && h->kind == RB_RT_LINK)
			printf(
			    " unsteady: %s: %u of %u re-tests slow, but as many slow by chance are expected "
			    "on a fabric this noisy (below)\n",
			    s, h->slow, h->tests);
		else if (h->state == RB_RT_UNSTEADY)
			printf(" unsteady: %s: %u of %u re-tests slow, but %u of %u pairs in the schedule: "
			       "noise "
			       "that held, or a fault that comes and goes (measure longer: -D)\n",
			       s, h->slow, h->tests, h->bad, h->seen);
		else if (h->kind == RB_RT_LINK)
			printf(" undecided: %s (an end of it undecided or unsteady: the link cannot be told "
			       "apart)\n",
			       s);
		else
			printf(" undecided: %s (schedule: %u of %u slow; re-tests: %u of %u slow; no other "
			       "partner that measured well to re-test against)\n",
			       s, h->bad, h->seen, h->slow, h->tests);
	}
	if (c->rt.false_alarms > 0.05)
		printf(
		    " noise: %.0f %% of the schedule's results slow and unexplained: %u links slow in %u "
		    "re-tests each would be %.2f false alarms, so no link is confirmed (raise --retests, or "
		    "measure longer: -D)\n",
		    100 * c->rt.noise, c->rt.links_tested, c->rt.need, c->rt.false_alarms);
	printf(" re-tests: %u run%s in %u round%s; %u confirmed, %u cleared%s\n", c->rt.runs,
	       c->rt.runs == 1 ? "" : "s", c->rt.rounds, c->rt.rounds == 1 ? "" : "s", confirmed, cleared,
	       undecided ? ", the rest undecided or unsteady" : "");
}

void rb_coord_emit_retests(FILE *f, const struct coord *c)
{
	const char *sep = "";

	fprintf(f, ",\n    \"retests_per_suspect\": %u,\n    \"retest_rounds\": %u,\n    \"retest_runs\": %u",
	        c->cfg->fab->retests, c->rt.rounds, c->rt.runs);
	fprintf(f, ",\n    \"unexplained_slow_share\": %.6g,\n    \"link_false_alarms_expected\": %.6g",
	        c->rt.noise, c->rt.false_alarms);
	fputs(",\n    \"retests\": [", f);
	for (uint32_t i = 0; i < c->nreruns; i++) {
		const struct coord_rerun *x = &c->reruns[i];

		fprintf(f, "%s\n      {\"round\": %u, \"for\": \"%s\", ", sep, x->round + 1,
		        rb_rt_kind_name(rb_retest_hyp(&c->rt, x->hyp)->kind));
		rb_coord_json_end(f, c, "client", x->client);
		fputs(", ", f);
		rb_coord_json_end(f, c, "server", x->server);
		if (isnan(x->value))
			fputs(", \"value\": null", f);
		else
			fprintf(f, ", \"value\": %.17g", x->value);
		fprintf(f, ", \"slow\": %s}", x->bad ? "true" : "false");
		sep = ",";
	}
	fputs(*sep ? "\n    ]" : "]", f);
	fputs(",\n    \"findings\": [", f);
	sep = "";
	for (uint32_t i = 0; c->rt.ends && i < rb_retest_count(&c->rt); i++) {
		const struct rb_rt_hyp *h = rb_retest_hyp(&c->rt, i);

		if (h->state == RB_RT_NONE)
			continue;
		fprintf(f, "%s\n      {\"kind\": \"%s\", \"verdict\": \"%s\", ", sep,
		        rb_rt_kind_name(h->kind), rb_rt_state_name(h->state));
		if (h->kind == RB_RT_LINK) {
			rb_coord_json_end(f, c, "client", h->a);
			fputs(", ", f);
			rb_coord_json_end(f, c, "server", h->b);
		} else {
			uint32_t r = h->a / c->rails;

			fprintf(f, "\"rank\": %u, \"host\": ", r);
			rb_json_string(f, c->rk[r].join.host);
			fprintf(f, ", \"rail\": %u, \"device\": ", h->a % c->rails);
			rb_json_string(f, rb_coord_devname(c, r, h->a % c->rails));
		}
		fprintf(f,
		        ", \"schedule_slow\": %u, \"schedule_measured\": %u, \"retests\": %u, "
		        "\"retests_slow\": %u}",
		        h->bad, h->seen, h->tests, h->slow);
		sep = ",";
	}
	fputs(*sep ? "\n    ]" : "]", f);
}

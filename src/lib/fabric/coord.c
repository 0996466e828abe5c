/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The --all-pairs coordinator's life (coord.h says what it does): the documents'
 * first block, the results' room, then the JOINs (coord_join.c) and the rounds
 * (coord_round.c), and at the end the outliers, the documents' last block and the
 * summary (coord_report.c), the cause, the gates' verdict, the exit code.
 */
#include "coord_priv.h"

#include "oob/oob.h"
#include "base/base.h"
#include "host/host.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <sys/resource.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void begin_documents(struct coord *c)
{
	struct rb_row m;

	memset(&m, 0, sizeof(m));
	rb_meta_system(&m, c->cfg->tool);
	rb_row_str(&m, "role", NULL, "all-pairs");
	rb_row_u64(&m, "ranks", NULL, c->n);
	/* The pattern's rounds; --victim's idle round, which runs no flow, is said apart. */
	rb_row_u64(&m, "rounds", NULL, c->rounds - c->v.on);
	if (c->v.on)
		rb_row_u64(&m, "victim_idle_rounds", NULL, 1);
	if (c->cfg->fab->pairs.mode == RB_PAIRS_RANDOM) {
		char spec[32];
		snprintf(spec, sizeof(spec), "random:%u", c->cfg->fab->pairs.k);
		rb_row_str(&m, "pairs", NULL, spec);
	} else {
		rb_row_str(&m, "pairs", NULL, c->cfg->fab->pairs.mode == RB_PAIRS_RING ? "ring" : "all");
	}
	if (c->flows) {
		char name[32];
		rb_row_str(&m, "pattern", NULL, rb_pattern_name(&c->cfg->fab->pattern, name, sizeof(name)));
	}
	rb_row_str(&m, "rank0_reached_on", NULL, c->cfg->reached_on ? c->cfg->reached_on : "");
	rb_row_str(&m, "directions", NULL, c->cfg->fab->pairs.dirs == 2 ? "both" : "one");
	rb_row_u64(&m, "seed", NULL, c->seed);
	rb_row_u64(&m, "retests", NULL, c->cfg->fab->retests);
	rb_row_dbl(&m, "slow_fraction", NULL, 2, c->cfg->fab->slow);
	rb_reports_begin(c->cfg->reps, &m);
	c->meta = m;
	if (c->text && c->cfg->reached_on)
		printf(" %u ranks; rank 0 reached on %s, every rank by the same rule\n", c->n,
		       c->cfg->reached_on);
}

/* Seconds from the coordinator's start to t (null when t never came). */
static void since(FILE *f, const char *key, const struct coord *c, uint64_t t)
{
	if (t)
		fprintf(f, ", \"%s\": %.3f", key, (double)(t - c->t_start) / 1e9);
	else
		fprintf(f, ", \"%s\": null", key);
}

/* What the coordinator itself cost: its times and its own CPU and peak memory. */
static void emit_cost(FILE *f, const struct coord *c)
{
	struct rusage ru;

	memset(&ru, 0, sizeof(ru));
	getrusage(RUSAGE_SELF, &ru);
	/* Every round it scheduled, --victim's idle one included (victim_idle_rounds). */
	fprintf(f,
	        ",\n    \"coordinator\": {\"ranks\": %u, \"rounds\": %u, \"victim_idle_rounds\": %u, "
	        "\"retest_rounds\": %u",
	        c->n, c->rounds, c->v.on ? 1u : 0u, c->rt.rounds);
	since(f, "joined_s", c, c->t_joined);
	since(f, "first_row_s", c, c->t_first_row);
	since(f, "schedule_s", c, c->t_schedule);
	since(f, "end_s", c, rb_now_ns());
	fprintf(f, ", \"cpu_s\": %.3f, \"max_rss_kib\": %ld}",
	        (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
	            (double)ru.ru_stime.tv_usec / 1e6,
	        ru.ru_maxrss);
}

/* The JSON documents' "outliers" block: the schedule's findings, the re-tests', the cost. */
static void emit_findings(FILE *f, void *arg)
{
	rb_coord_emit_outliers(f, arg);
	rb_coord_emit_retests(f, arg);
	rb_coord_emit_pattern(f, arg);
	rb_coord_emit_victim(f, arg);
	emit_cost(f, arg);
	fputs("\n  }", f);
}

/* The schedule's rounds, or the pattern's, and the most flows a round of them has. */
static void plan(struct coord *c)
{
	const struct rb_fabric_opts *fab = c->cfg->fab;

	c->flows = fab->pattern.kind != RB_PAT_PAIRS;
	c->rounds = c->flows ? rb_pattern_rounds(&fab->pattern, c->n) : rb_sched_rounds(&fab->pairs, c->n);
	c->max_flows = c->flows ? rb_pattern_max_flows(&fab->pattern, c->n) : c->n / 2 + 1;
	/* --victim: a round of its own first (idle), and one more flow in every round. */
	c->v.on = c->flows && fab->victim.set && fab->victim.server < c->n && fab->victim.client < c->n;
	if (c->v.on) {
		c->v.pair = (struct rb_pair){.server = fab->victim.server, .client = fab->victim.client};
		c->v.tool = c->cfg->victim_tool ? c->cfg->victim_tool : "?";
		c->rounds++;
		c->max_flows++;
	}
}

/* Room for every round's results, once the ranks are in. */
static int alloc_results(struct coord *c)
{
	size_t per_round = (size_t)(c->max_flows + 1) * c->rails, cells = (size_t)c->n * c->n * c->rails;
	uint32_t ends = c->n * c->rails;

	c->last = calloc(per_round, sizeof(*c->last));
	c->facts = calloc(c->max_flows + 1, sizeof(*c->facts));
	c->nrows_pair = calloc(c->max_flows + 1, sizeof(*c->nrows_pair));
	c->rx = calloc(c->max_flows + 1, sizeof(*c->rx));
	c->ports = calloc(c->n, sizeof(*c->ports));
	c->nrows_rx = calloc(c->max_flows + 1, sizeof(*c->nrows_rx));
	c->perr = calloc(c->max_flows + 1, sizeof(*c->perr));
	if (c->flows && !(c->prounds = calloc(c->rounds, sizeof(*c->prounds))))
		c->last = NULL;
	if (rb_coord_victim_alloc(c))
		c->last = NULL;
	/* The worst and the failed results held: room for every slow one of 16 bad ends. */
	if (rb_outliers_init(&c->out, ends, ends * 16 > 1024 ? ends * 16 : 1024))
		c->last = NULL;
	if (c->n <= 32) {
		c->cell = calloc(cells, sizeof(*c->cell));
		c->cell_state = calloc(cells, sizeof(*c->cell_state));
	}
	if (!c->last || !c->facts || !c->nrows_pair || !c->rx || !c->ports || !c->nrows_rx || !c->perr ||
	    (c->n <= 32 && (!c->cell || !c->cell_state))) {
		rb_err("--all-pairs: the coordinator is out of memory for %u ranks' results", c->n);
		return -ENOMEM;
	}
	return 0;
}

/* Everything the coordinator holds: the ranks' channels and every round's results. */
static void release(struct coord *c)
{
	for (uint32_t r = 0; r < c->n; r++)
		rb_oob_close(&c->rk[r].oob);
	rb_retest_free(&c->rt);
	free(c->reruns);
	free(c->rows);
	rb_outliers_free(&c->out);
	free(c->cell);
	free(c->cell_state);
	free(c->last);
	free(c->facts);
	free(c->prounds);
	free(c->nrows_pair);
	free(c->rx);
	free(c->ports);
	free(c->nrows_rx);
	free(c->perr);
	rb_coord_victim_free(c);
	free(c->rk);
}

int rb_coord_run(const struct rb_coord_cfg *cfg, int lfd)
{
	struct coord c = {.cfg = cfg, .n = cfg->size, .t_start = rb_now_ns()};
	struct rb_pair *pairs;
	int ret;

	plan(&c);
	/* The ranks checked it (job.c); the coordinator does not plan what it cannot hold either. */
	if (c.flows && rb_pattern_fits(&cfg->fab->pattern, c.n, c.cause, sizeof(c.cause))) {
		rb_err("%s", c.cause);
		return RB_EXIT_USAGE;
	}
	pairs = calloc(c.max_flows + 1, sizeof(*pairs));
	c.rk = calloc(c.n, sizeof(*c.rk));
	c.rails = 1; /* until the first JOIN says */
	c.seed = cfg->fab->seed.set ? cfg->fab->seed.v
	                            : ((uint64_t)random() << 32) ^ (uint64_t)random() ^ rb_now_ns();
	if (!c.rk || !pairs) {
		rb_err("--all-pairs: the coordinator is out of memory for %u ranks", c.n);
		return RB_EXIT_RUNTIME;
	}
	for (uint32_t r = 0; r < c.n; r++)
		c.rk[r].oob.fd = -1;
	if (rb_coord_room_for(c.n)) {
		free(c.rk);
		free(pairs);
		return RB_EXIT_RUNTIME;
	}
	/* A terminal or launcher pipe that closes under us is not a reason to lose the documents. */
	signal(SIGPIPE, SIG_IGN);
	c.text = rb_reports_text(cfg->reps);
	begin_documents(&c);
	ret = rb_coord_join_all(&c, lfd);
	c.t_joined = ret ? 0 : rb_now_ns();
	if (!ret)
		ret = alloc_results(&c);
	/* rb_coord_join_all names its own failures (a stop, the deadline, a rank of another rail count). */
	if (ret && !c.cause[0])
		snprintf(c.cause, sizeof(c.cause), "%s", rb_first_error());
	/* Every rank is in: a connection from now on is a stranger's, refused by the kernel. */
	close(lfd);
	if (!ret)
		ret = rb_coord_all_rounds(&c, &cfg->fab->pairs, pairs);
	else
		rb_coord_abort_all(&c);
	c.t_schedule = ret ? 0 : rb_now_ns();
	rb_coord_outliers(&c);
	/* What the schedule found slow or failed, re-tested until decided; then every rank is done. */
	/* A pattern's flows are measured under load: a re-test alone would measure another thing. */
	if (!ret && !c.flows)
		ret = rb_coord_retests(&c, pairs);
	if (!ret)
		rb_coord_over(&c);
	/* Every round ran, but a pair that failed makes the documents say so. */
	if (!ret && c.out.nfailed_kept) {
		char a[160], b[160];

		snprintf(c.cause, sizeof(c.cause), "%llu of %llu %s failed; the first: %s -> %s: %s",
		         (unsigned long long)c.out.nfailed, (unsigned long long)c.out.results,
		         c.rails > 1 ? "results (a pair on one rail)" : "pairs",
		         rb_coord_who(&c, c.out.failed[0].client, a, sizeof(a)),
		         rb_coord_who(&c, c.out.failed[0].server, b, sizeof(b)),
		         c.out.err[0] ? c.out.err[0] : "?");
	}
	{
		const struct rb_section sec = {"outliers", emit_findings, &c};

		if (rb_coord_findings_csv(&c, &c.meta) && !ret)
			ret = -EIO;
		if (rb_reports_finish_section(cfg->reps, c.cause[0] ? c.cause : NULL, &sec) && !ret)
			ret = -EIO;
	}
	rb_coord_summary(&c);
	if (c.text && c.judged) {
		rb_coord_retest_summary(&c);
		printf("-------------------------------------------------------------------------------------"
		       "--\n");
		fflush(stdout);
	}
	if (c.cause[0])
		rb_err("%s", c.cause);
	if (!ret && rb_gate_verdict(&c.gate, &cfg->gates))
		ret = -EIO;
	release(&c);
	free(pairs);
	if (ret)
		return RB_EXIT_RUNTIME;
	return c.out.nfailed ? RB_EXIT_RUNTIME : RB_EXIT_OK;
}

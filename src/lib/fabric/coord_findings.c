/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The CSV document's companion: what the JSON outliers block says, as rows a
 * spreadsheet or pandas reads beside the results (FILE.csv -> FILE.findings.csv,
 * written atomically like every document). One row per slow pair, failed pair,
 * re-test and finding, all with the same columns:
 *
 *   kind     slow_pair, failed_pair, retest, or a finding: transmit, receive,
 *            both directions, link
 *   verdict  a re-test: slow or fine; a finding: confirmed, cleared, explained,
 *            undecided, unsteady
 *   client_* / server_*  the ends (a transmit finding is the client side, a receive
 *            finding the server side; the other side empty)
 *   value, of_median, schedule_slow, schedule_measured, retests, retests_slow,
 *   detail (a failed pair's error), then the CSV reporter's own error column
 */
#include "coord_priv.h"

#include "base/base.h"
#include "report/report.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* "a number", or "" where it does not apply. */
static void num(struct rb_row *row, const char *key, double v, int prec)
{
	char s[40] = "";

	if (!isnan(v))
		snprintf(s, sizeof(s), "%.*f", prec, v);
	rb_row_str(row, key, NULL, s);
}

/* An end's four columns (keys[0..3]: rank, host, rail, device); e UINT32_MAX: empty. */
static void end(struct rb_row *row, const struct coord *c, const char *const *keys, uint32_t e)
{
	bool have = e != UINT32_MAX;
	uint32_t r = have ? e / c->rails : 0;

	num(row, keys[0], have ? r : NAN, 0);
	rb_row_str(row, keys[1], NULL, have ? c->rk[r].join.host : "");
	num(row, keys[2], have ? e % c->rails : NAN, 0);
	rb_row_str(row, keys[3], NULL, have ? rb_coord_devname(c, r, e % c->rails) : "");
}

static const char *const cli[] = {"client_rank", "client_host", "client_rail", "client_device"};
static const char *const srv[] = {"server_rank", "server_host", "server_rail", "server_device"};

/* One row, every column in order (counts NaN where they do not apply). */
static void put(struct rb_report *doc, const struct coord *c, const char *kind, const char *verdict,
                uint32_t client, uint32_t server, double value, const double counts[4], const char *error)
{
	static const char *const ckeys[] = {"schedule_slow", "schedule_measured", "retests", "retests_slow"};
	struct rb_row row;

	memset(&row, 0, sizeof(row));
	rb_row_str(&row, "kind", NULL, kind);
	rb_row_str(&row, "verdict", NULL, verdict);
	end(&row, c, cli, client);
	end(&row, c, srv, server);
	num(&row, "value", value, 6);
	num(&row, "of_median", isnan(c->out.median) ? NAN : value / c->out.median, 4);
	for (int i = 0; i < 4; i++)
		num(&row, ckeys[i], counts[i], 0);
	rb_row_str(&row, "detail", NULL, error ? error : "");
	rb_report_row(doc, &row);
}

static void rows(struct rb_report *doc, const struct coord *c)
{
	const struct rb_outliers *o = &c->out;
	const double none[4] = {NAN, NAN, NAN, NAN};

	for (uint32_t i = 0; i < o->nworst; i++)
		if (o->worst[i].slow)
			put(doc, c, "slow_pair", "", o->worst[i].client, o->worst[i].server,
			    o->worst[i].value, none, NULL);
	for (uint32_t i = 0; i < o->nfailed_kept; i++)
		put(doc, c, "failed_pair", "", o->failed[i].client, o->failed[i].server, NAN, none,
		    o->err[i]);
	for (uint32_t i = 0; i < c->nreruns; i++) {
		const struct coord_rerun *x = &c->reruns[i];

		put(doc, c, "retest", x->bad ? "slow" : "fine", x->client, x->server, x->value, none, NULL);
	}
	for (uint32_t i = 0; c->rt.ends && i < rb_retest_count(&c->rt); i++) {
		const struct rb_rt_hyp *h = rb_retest_hyp(&c->rt, i);
		const double counts[4] = {h->bad, h->seen, h->tests, h->slow};

		if (h->state == RB_RT_NONE)
			continue;
		put(doc, c, rb_rt_kind_name(h->kind), rb_rt_state_name(h->state),
		    h->kind == RB_RT_RX ? UINT32_MAX : h->a,
		    h->kind == RB_RT_RX     ? h->a
		    : h->kind == RB_RT_LINK ? h->b
		                            : UINT32_MAX,
		    NAN, counts, NULL);
	}
}

int rb_coord_findings_csv(const struct coord *c, const struct rb_row *meta)
{
	const struct rb_reports *rs = c->cfg->reps;
	struct rb_report doc;
	char path[PATH_MAX];

	for (unsigned i = 0; i < rs->n; i++) {
		const struct rb_report *r = &rs->r[i];
		const char *dot;
		size_t stem;

		if (strcmp(r->ops->name, "csv") || r->is_stdout)
			continue;
		/* FILE.csv -> FILE.findings.csv (FILE -> FILE.findings.csv without an extension). */
		dot = strrchr(r->path, '.');
		stem = dot && !strchr(dot, '/') ? (size_t)(dot - r->path) : strlen(r->path);
		if (snprintf(path, sizeof(path), "%.*s.findings.csv", (int)stem, r->path) >=
		        (int)sizeof(path) ||
		    rb_report_open(&doc, "csv", path)) {
			rb_warn("--all-pairs: cannot write the findings beside %s", r->path);
			return -EIO;
		}
		rb_report_begin(&doc, meta);
		rows(&doc, c);
		return rb_report_finish(&doc, c->cause[0] ? c->cause : NULL) ? -EIO : 0;
	}
	return 0;
}

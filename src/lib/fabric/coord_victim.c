/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * --victim in the coordinator: its run's stretches (--interval rows from its client's
 * leg, victim.c), kept per round apart from the flows' results; after the round, the
 * stretches that count (all of them alone; inside the flows' window beside a round)
 * summed up, said under the round's table against the idle round, and written as the
 * JSON outliers block's "victim" member.
 */
#include "coord_priv.h"

#include "base/base.h"
#include "report/report.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VICTIM_ROWS 1024 /* a round's rows: its stretches (victim.c makes at most 1000), and errors */

uint32_t rb_coord_round_no(const struct coord *c, uint32_t round)
{
	return round + 1 - (c->v.on ? 1 : 0);
}

int rb_coord_victim_alloc(struct coord *c)
{
	struct coord_victim *v = &c->v;

	if (!v->on)
		return 0;
	v->p50 = calloc(c->rounds, sizeof(*v->p50));
	v->p99 = calloc(c->rounds, sizeof(*v->p99));
	v->worst = calloc(c->rounds, sizeof(*v->worst));
	v->coverage = calloc(c->rounds, sizeof(*v->coverage));
	v->w0 = calloc(c->rounds, sizeof(*v->w0));
	v->w1 = calloc(c->rounds, sizeof(*v->w1));
	v->used = calloc(c->rounds, sizeof(*v->used));
	v->nrows = calloc(c->rounds, sizeof(*v->nrows));
	v->err = calloc(c->rounds, sizeof(*v->err));
	v->st = calloc(VICTIM_ROWS, sizeof(*v->st));
	if (!v->p50 || !v->p99 || !v->worst || !v->coverage || !v->w0 || !v->w1 || !v->used || !v->nrows ||
	    !v->err || !v->st)
		return -ENOMEM;
	for (uint32_t i = 0; i < c->rounds; i++)
		v->p50[i] = v->p99[i] = v->worst[i] = v->coverage[i] = v->w0[i] = v->w1[i] = NAN;
	return 0;
}

void rb_coord_victim_free(struct coord *c)
{
	struct coord_victim *v = &c->v;

	free(v->p50);
	free(v->p99);
	free(v->worst);
	free(v->coverage);
	free(v->w0);
	free(v->w1);
	free(v->used);
	free(v->nrows);
	free(v->err);
	free(v->st);
}

bool rb_coord_is_victim_row(const struct rb_fab_row *fr)
{
	for (unsigned i = 0; i < fr->row.n; i++)
		if (!strcmp(fr->keys[i], "victim"))
			return true;
	return false;
}

int rb_coord_victim_row(struct coord *c, uint32_t from, const struct rb_fab_row *fr)
{
	const uint32_t r = c->round;
	struct coord_stretch s = {NAN, NAN, NAN, NAN, 0};
	uint64_t size = 0;
	const char *err = NULL;

	/* Another process's word: only the victim's own ends, about its own run, a bounded count a round. */
	if (!c->v.on || c->retesting || fr->server != c->v.pair.server || fr->client != c->v.pair.client ||
	    (from != fr->server && from != fr->client) || ++c->v.nrows[r] > VICTIM_ROWS)
		return -EPROTO;
	for (unsigned i = 0; i < fr->row.n; i++) {
		const struct rb_field *x = &fr->row.f[i];
		const char *k = fr->keys[i];

		if (!strcmp(k, "lat_p50_us") && x->type == RB_F_DBL)
			s.p50 = x->v.d;
		else if (!strcmp(k, "lat_p99_us") && x->type == RB_F_DBL)
			s.p99 = x->v.d;
		else if (!strcmp(k, "flow_start_unix_s") && x->type == RB_F_DBL)
			s.t0 = x->v.d;
		else if (!strcmp(k, "flow_end_unix_s") && x->type == RB_F_DBL)
			s.t1 = x->v.d;
		else if (!strcmp(k, "iterations") && x->type == RB_F_U64)
			s.iters = x->v.u;
		else if (!strcmp(k, "size_bytes") && x->type == RB_F_U64)
			size = x->v.u;
		else if (!strcmp(k, "victim_error") && x->type == RB_F_STR)
			err = x->s;
	}
	if (err) {
		if (!c->v.err[r][0])
			snprintf(c->v.err[r], sizeof(c->v.err[r]), "rank %u: %.400s", from, err);
		return 0;
	}
	/* Figures come from the client alone: latencies (finite, p99 not under p50) over a span. */
	if (from != fr->client || !isfinite(s.p50) || !isfinite(s.p99) || s.p50 < 0 || s.p99 < s.p50 ||
	    !isfinite(s.t0) || !isfinite(s.t1) || !(s.t1 > s.t0) || !size || !s.iters)
		return -EPROTO;
	c->v.size = size;
	c->v.st[c->v.nst++] = s;
	return 0;
}

/* The round's flows' window: the union of their spans, every size's (NaN: none known). */
static void flows_window(const struct coord *c, double *t0, double *t1)
{
	*t0 = *t1 = NAN;
	for (uint32_t p = 0; c->facts && p + 1 < c->np; p++) {
		const struct coord_flowfacts *f = &c->facts[p];

		if (isfinite(f->w0) && isfinite(f->w1) && f->w1 > f->w0) {
			*t0 = isnan(*t0) || f->w0 < *t0 ? f->w0 : *t0;
			*t1 = isnan(*t1) || f->w1 > *t1 ? f->w1 : *t1;
		}
	}
}

static int by_p50(const void *a, const void *b)
{
	double x = ((const struct coord_stretch *)a)->p50, y = ((const struct coord_stretch *)b)->p50;

	return (x > y) - (x < y);
}

static int by_p99(const void *a, const void *b)
{
	double x = ((const struct coord_stretch *)a)->p99, y = ((const struct coord_stretch *)b)->p99;

	return (x > y) - (x < y);
}

/* The round's figures from its stretches: all of them alone (round 0), those inside the flows' window else.
 */
static void sum_up(struct coord *c, uint32_t r)
{
	struct coord_victim *v = &c->v;
	double f0 = NAN, f1 = NAN, span = 0;
	uint64_t iters = 0, half = 0;
	uint32_t n = 0;

	for (uint32_t i = 0; i < v->nst; i++) {
		v->w0[r] = isnan(v->w0[r]) || v->st[i].t0 < v->w0[r] ? v->st[i].t0 : v->w0[r];
		v->w1[r] = isnan(v->w1[r]) || v->st[i].t1 > v->w1[r] ? v->st[i].t1 : v->w1[r];
	}
	if (r > 0) {
		flows_window(c, &f0, &f1);
		if (isnan(f0))
			return;
	}
	for (uint32_t i = 0; i < v->nst; i++)
		if (r == 0 || (v->st[i].t0 >= f0 && v->st[i].t1 <= f1)) {
			v->st[n++] = v->st[i];
			span += v->st[i].t1 - v->st[i].t0;
			iters += v->st[i].iters;
		}
	v->used[r] = n;
	if (!n)
		return;
	/* p50: the stretches' p50 at the middle of their iterations; p99: their median tail. */
	qsort(v->st, n, sizeof(*v->st), by_p50);
	for (uint32_t i = 0; i < n; i++)
		if ((half += v->st[i].iters) * 2 >= iters) {
			v->p50[r] = v->st[i].p50;
			break;
		}
	qsort(v->st, n, sizeof(*v->st), by_p99);
	v->p99[r] = n % 2 ? v->st[n / 2].p99 : (v->st[n / 2 - 1].p99 + v->st[n / 2].p99) / 2;
	v->worst[r] = v->st[n - 1].p99;
	v->coverage[r] = r > 0 ? span / (f1 - f0) : 1;
}

void rb_coord_victim_round(struct coord *c)
{
	struct coord_victim *v = &c->v;
	const uint32_t r = c->round;
	char a[160], b[160];

	if (!v->on)
		return;
	sum_up(c, r);
	v->nst = 0;
	if (!c->text)
		return;
	rb_coord_who(c, v->pair.client * c->rails, a, sizeof(a));
	rb_coord_who(c, v->pair.server * c->rails, b, sizeof(b));
	if (r == 0)
		printf(" victim %s -> %s (%s, %llu B), alone: ", a, b, v->tool, (unsigned long long)v->size);
	else
		printf(" victim beside round %u: ", rb_coord_round_no(c, r));
	if (isnan(v->p50[r]))
		printf("no figures: %s\n", v->err[r][0] ? v->err[r]
		                           : r && !isnan(v->w0[r])
		                               ? "none of its stretches was inside the flows' window"
		                               : "no row came");
	else if (r == 0 || !(v->p99[0] > 0))
		printf("p50 %.2f us, p99 %.2f us (the median of %u stretches' p99s; the worst %.2f us)\n",
		       v->p50[r], v->p99[r], v->used[r], v->worst[r]);
	else
		printf("p50 %.2f us, p99 %.2f us: p99 x %.2f of its idle %.2f us (%u stretches inside the "
		       "flows' "
		       "window, %.0f %% of it; worst p99 %.2f us)\n",
		       v->p50[r], v->p99[r], v->p99[r] / v->p99[0], v->p99[0], v->used[r],
		       100 * v->coverage[r], v->worst[r]);
	fflush(stdout);
}

static void str(FILE *f, const char *s)
{
	if (s && s[0])
		rb_json_string(f, s);
	else
		fputs("null", f);
}

static void num(FILE *f, const char *key, double v)
{
	if (isfinite(v))
		fprintf(f, ", \"%s\": %.3f", key, v);
	else
		fprintf(f, ", \"%s\": null", key);
}

/* One round's member: its figures, how many stretches they are from, their share, its window. */
static void figures(FILE *f, const struct coord_victim *v, uint32_t r)
{
	fprintf(f, "\"stretches\": %u", v->used[r]);
	num(f, "lat_p50_us", v->p50[r]);
	num(f, "lat_p99_stretch_median_us", v->p99[r]);
	num(f, "lat_p99_stretch_worst_us", v->worst[r]);
	if (r > 0) {
		num(f, "p99_vs_idle", v->p99[r] / v->p99[0]);
		num(f, "coverage", v->coverage[r]);
	}
	num(f, "window_start_unix_s", v->w0[r]);
	num(f, "window_end_unix_s", v->w1[r]);
	fputs(", \"error\": ", f);
	str(f, v->err[r]);
}

void rb_coord_emit_victim(FILE *f, const struct coord *c)
{
	const struct coord_victim *v = &c->v;

	if (!v->on)
		return;
	fprintf(f,
	        ",\n    \"victim\": {\"server_rank\": %u, \"client_rank\": %u, \"tool\": \"%s\", "
	        "\"size_bytes\": %llu, "
	        "\"idle\": {",
	        v->pair.server, v->pair.client, v->tool, (unsigned long long)v->size);
	figures(f, v, 0);
	fputs("}, \"rounds\": [", f);
	for (uint32_t r = 1; r < c->rounds && r <= c->round; r++) {
		fprintf(f, "%s\n      {\"round\": %u, ", r > 1 ? "," : "", rb_coord_round_no(c, r));
		figures(f, v, r);
		fputs("}", f);
	}
	fputs("]}", f);
}

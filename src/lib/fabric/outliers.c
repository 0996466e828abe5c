/* SPDX-License-Identifier: BSD-2-Clause */
#include "outliers.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Values to the histogram's integers: micro-units (1e-6 Gb/s, 1e-6 us), 2^44 of them at most. */
#define SCALE 1e6

int rb_outliers_init(struct rb_outliers *o, uint32_t ends, uint32_t keep)
{
	memset(o, 0, sizeof(*o));
	o->ends = ends;
	o->keep = keep ? keep : 1;
	o->median = NAN;
	o->worst = calloc(o->keep, sizeof(*o->worst));
	o->failed = calloc(o->keep, sizeof(*o->failed));
	o->err = calloc(o->keep, sizeof(*o->err));
	o->vcap = 1024;
	o->values = malloc(sizeof(*o->values) * o->vcap);
	o->tally = calloc(ends ? ends : 1, sizeof(*o->tally));
	if (!o->worst || !o->failed || !o->err || !o->values || !o->tally || rb_hist_init(&o->hist)) {
		rb_outliers_free(o);
		return -ENOMEM;
	}
	return 0;
}

void rb_outliers_free(struct rb_outliers *o)
{
	for (uint32_t i = 0; o->err && i < o->nfailed_kept; i++)
		free(o->err[i]);
	free(o->err);
	free(o->worst);
	free(o->failed);
	free(o->values);
	free(o->tally);
	if (o->hist.counts)
		rb_hist_free(&o->hist);
	memset(o, 0, sizeof(*o));
}

/* a is worse than b: lower bandwidth, higher latency. */
static bool worse(const struct rb_outliers *o, double a, double b)
{
	return o->lower_better ? a > b : a < b;
}

/* The heap of the worst: its top (index 0) is the best of them, the first to go. */
static void sift_down(struct rb_outliers *o, uint32_t i)
{
	for (;;) {
		uint32_t l = 2 * i + 1, r = l + 1, top = i;

		if (l < o->nworst && worse(o, o->worst[top].value, o->worst[l].value))
			top = l;
		if (r < o->nworst && worse(o, o->worst[top].value, o->worst[r].value))
			top = r;
		if (top == i)
			return;
		struct rb_pair_result t = o->worst[i];
		o->worst[i] = o->worst[top];
		o->worst[top] = t;
		i = top;
	}
}

static void sift_up(struct rb_outliers *o, uint32_t i)
{
	while (i > 0 && worse(o, o->worst[(i - 1) / 2].value, o->worst[i].value)) {
		struct rb_pair_result t = o->worst[i];
		o->worst[i] = o->worst[(i - 1) / 2];
		o->worst[(i - 1) / 2] = t;
		i = (i - 1) / 2;
	}
}

/*
 * The value for the median: the histogram always, the exact values while there are
 * at most RB_OUT_EXACT of them (their array grows by doubling up to that, then goes;
 * a growth that fails lets it go early: the median is then the histogram's).
 */
static void count(struct rb_outliers *o, double v)
{
	double scaled = v * SCALE;

	rb_hist_add(&o->hist, scaled <= 0 ? 0 : scaled >= 1.7e19 ? UINT64_MAX : (uint64_t)scaled);
	if (o->values && o->hist.n > o->vcap) {
		uint64_t cap = 2 * (uint64_t)o->vcap;
		double *p = cap <= RB_OUT_EXACT ? realloc(o->values, sizeof(*p) * cap) : NULL;

		if (!p) {
			free(o->values);
			o->values = NULL;
			return;
		}
		o->values = p;
		o->vcap = (uint32_t)cap;
	}
	if (o->values)
		o->values[o->hist.n - 1] = v;
}

int rb_outliers_add(struct rb_outliers *o, uint32_t server, uint32_t client, double value, const char *err)
{
	struct rb_pair_result x = {
	    .server = server, .client = client, .seq = (uint32_t)o->results, .value = value};
	uint32_t ends[2] = {client, server};

	if (server >= o->ends || client >= o->ends)
		return -EINVAL;
	o->results++;
	for (int role = 0; role < 2; role++) {
		o->tally[ends[role]].failed += isnan(value);
		o->tally[ends[role]].measured += !isnan(value);
		o->tally[ends[role]].measured_as[role] += !isnan(value);
	}
	if (isnan(value)) {
		o->nfailed++;
		if (o->nfailed_kept < o->keep) {
			o->err[o->nfailed_kept] = err ? strdup(err) : NULL;
			o->failed[o->nfailed_kept++] = x;
		}
		return 0;
	}
	if (o->nworst < o->keep) {
		o->worst[o->nworst++] = x;
		sift_up(o, o->nworst - 1);
	} else if (worse(o, value, o->worst[0].value)) {
		o->worst[0] = x;
		sift_down(o, 0);
		o->dropped = true;
	} else {
		o->dropped = true;
	}
	count(o, value);
	return 0;
}

static int cmp_dbl(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static int by_seq(const void *a, const void *b)
{
	uint32_t x = ((const struct rb_pair_result *)a)->seq, y = ((const struct rb_pair_result *)b)->seq;
	return (x > y) - (x < y);
}

double rb_outliers_judge(struct rb_outliers *o, double frac, bool directional, bool *complete)
{
	uint64_t n = o->hist.n;
	bool all_slow = o->nworst > 0;

	if (n == 0)
		o->median = NAN;
	else if (o->values) {
		qsort(o->values, n, sizeof(*o->values), cmp_dbl);
		o->median = n % 2 ? o->values[n / 2] : (o->values[n / 2 - 1] + o->values[n / 2]) / 2;
	} else {
		o->median = rb_hist_percentile(&o->hist, 50) / SCALE;
	}
	qsort(o->worst, o->nworst, sizeof(*o->worst), by_seq);
	for (uint32_t i = 0; i < o->nworst; i++) {
		struct rb_pair_result *x = &o->worst[i];
		uint32_t ends[2] = {x->client, x->server};

		x->slow = o->median > 0 &&
		          (o->lower_better ? x->value * frac > o->median : x->value < frac * o->median);
		all_slow = all_slow && x->slow;
		for (int role = 0; role < 2 && x->slow; role++) {
			o->tally[ends[role]].slow++;
			o->tally[ends[role]].slow_as[role]++;
		}
	}
	for (uint32_t e = 0; e < o->ends; e++) {
		struct rb_rank_tally *t = &o->tally[e];

		t->suspect =
		    t->slow * 2 > t->measured || (directional && (t->slow_as[0] * 2 > t->measured_as[0] ||
		                                                  t->slow_as[1] * 2 > t->measured_as[1]));
	}
	/* Every one held was slow and some were let go: there may have been more. */
	if (complete)
		*complete = !(o->dropped && all_slow);
	return o->median;
}

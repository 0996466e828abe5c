/* SPDX-License-Identifier: BSD-2-Clause */
/* --account: where a raw WRITE's one-way time goes (account.h). */
#include "account.h"

#include "base/base.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define COL ((size_t)2 * RB_STAMPS_ROWS)

static const char *const seg_names[LA_SEG_N] = {"sender post", "data flight"};

int lat_acct_init(struct lat_acct *a, bool client)
{
	int ret;

	memset(a, 0, sizeof(*a));
	if ((ret = rb_stamps_init(&a->st, LA_EVENTS, client)))
		return ret;
	if (client && !(a->vals = calloc(LA_SEG_N * COL, sizeof(*a->vals)))) {
		lat_acct_free(a);
		rb_err("--account: out of memory for %u round trips' segments", RB_STAMPS_ROWS);
		return -ENOMEM;
	}
	return 0;
}

void lat_acct_free(struct lat_acct *a)
{
	rb_stamps_free(&a->st);
	free(a->vals);
	a->vals = NULL;
}

int lat_acct_start(struct lat_acct *a, struct rb_oob *o, bool client, int timeout_ms)
{
	memset(&a->res, 0, sizeof(a->res));
	return rb_stamps_start(&a->st, o, client, timeout_ms);
}

/* Events from..to of a row, in order and none missing. */
static bool sane(const uint64_t *t, unsigned from, unsigned to)
{
	for (unsigned e = from; e <= to; e++)
		if (!t[e] || (e > from && t[e] < t[e - 1]))
			return false;
	return true;
}

static double clampd(double x, double lo, double hi)
{
	return x < lo ? lo : x > hi ? hi : x;
}

/*
 * Round trip i's two messages (ns) into seg[0] (the client's) and seg[1] (the
 * server's), cut on the client's clock at the server's stamps, each held between the
 * one before and the reply found; false where a row is missing or the order breaks by
 * more than the band err.
 */
static bool round_trip(const struct lat_acct *a, uint64_t i, double err, double seg[2][LA_SEG_N],
                       double *span)
{
	const uint64_t *c = rb_stamps_own(&a->st, i), *v = rb_stamps_peer(&a->st, i);
	double q[5];

	if (!sane(c, LA_READY, LA_SEEN) || !sane(v, LA_READY, LA_POST_RET))
		return false;
	q[0] = (double)c[LA_READY];
	q[1] = (double)c[LA_POSTED];
	q[4] = (double)c[LA_SEEN];
	if (rb_stamps_local(&a->st, v[LA_READY]) < q[1] - err ||
	    rb_stamps_local(&a->st, v[LA_POSTED]) > q[4] + err)
		return false;
	q[2] = clampd(rb_stamps_local(&a->st, v[LA_READY]), q[1], q[4]);
	q[3] = clampd(rb_stamps_local(&a->st, v[LA_POSTED]), q[2], q[4]);
	seg[0][LA_SEG_SENDER_POST] = q[1] - q[0];
	seg[0][LA_SEG_DATA_FLIGHT] = q[2] - q[1];
	seg[1][LA_SEG_SENDER_POST] = q[3] - q[2];
	seg[1][LA_SEG_DATA_FLIGHT] = q[4] - q[3];
	*span = q[4] - q[0];
	return true;
}

int lat_acct_finish(struct lat_acct *a, struct rb_oob *o, bool client, int timeout_ms,
                    const struct rb_lat_summary *sum)
{
	struct lat_acct_result *r = &a->res;
	uint64_t first = sum->warmup + 1, last = sum->warmup + sum->count, n = 0;
	double span = 0;
	int ret;

	if ((ret = rb_stamps_finish(&a->st, o, client, timeout_ms)) || !client)
		return ret;
	if (!a->st.fit_ok) {
		snprintf(r->why, sizeof(r->why), "%s", a->st.why);
		return 0;
	}
	r->clock_err_us = a->st.err_ns / 1e3;
	last = last < a->st.peer_n ? last : a->st.peer_n;
	last = last < a->st.n ? last : a->st.n;
	for (uint64_t i = first; i <= last; i++) {
		double seg[2][LA_SEG_N], s;

		if (!round_trip(a, i, a->st.err_ns, seg, &s)) {
			r->dropped++;
			continue;
		}
		for (unsigned k = 0; k < LA_SEG_N; k++) {
			a->vals[k * COL + n] = seg[0][k];
			a->vals[k * COL + n + 1] = seg[1][k];
		}
		span += s;
		n += 2;
	}
	if (!n) {
		snprintf(r->why, sizeof(r->why),
		         "no round trip stamped at both ends in order (%llu here, %llu there, %llu refused)",
		         (unsigned long long)a->st.n, (unsigned long long)a->st.peer_n,
		         (unsigned long long)r->dropped);
		return 0;
	}
	for (unsigned k = 0; k < LA_SEG_N; k++) {
		rb_stamps_stats(a->vals + k * COL, n, &r->p50[k], &r->p99[k], &r->mean[k]);
		r->sum_us += r->mean[k];
	}
	r->messages = n;
	/* Held to the measured mean where every measured round trip is here; else to their own span. */
	r->whole = n == 2 * sum->count;
	r->lat_mean_us = r->whole ? sum->mean : span / (double)n / 1e3;
	r->valid = true;
	return 0;
}

void lat_acct_print(const struct lat_acct *a, FILE *out)
{
	const struct lat_acct_result *r = &a->res;

	if (!r->valid) {
		if (r->why[0])
			fprintf(out, " account: none: %s\n", r->why);
		return;
	}
	rb_stamps_print_head(&a->st, out, r->messages, r->dropped, "round trips");
	for (unsigned k = 0; k < LA_SEG_N; k++)
		fprintf(out, "   %-14s %10.2f %10.2f %10.2f\n", seg_names[k], r->p50[k], r->p99[k],
		        r->mean[k]);
	fprintf(out,
	        "   the means add up to %.2f us; the one-way latency's mean %.2f us%s: %.2f us unexplained\n",
	        r->sum_us, r->lat_mean_us, r->whole ? "" : " (the accounted round trips')",
	        r->lat_mean_us - r->sum_us);
}

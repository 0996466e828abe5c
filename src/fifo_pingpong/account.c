/* SPDX-License-Identifier: BSD-2-Clause */
/* --account: where a ping-pong message's time goes (account.h). */
#include "account.h"

#include "base/base.h"
#include "measure/measure.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* STAMPS: from, count, then count rows of AC_EVENTS stamps. */
#define STAMPS_PER_FRAME 1000
#define STAMPS_HDR       8
#define ROW_BYTES        (AC_EVENTS * 8)

const struct rb_msg_def fp_msgs[1] = {
    {FP_MSG_STAMPS, "STAMPS", STAMPS_HDR + STAMPS_PER_FRAME *ROW_BYTES, false},
};

static const char *const seg_names[SEG_N] = {"peer busy",   "cts post",    "cts flight",
                                             "sender post", "data flight", "rx completion"};

int fp_acct_init(struct fp_acct *a, bool client)
{
	memset(a, 0, sizeof(*a));
	a->own = calloc(ACCT_ROUND_TRIPS, sizeof(*a->own));
	if (client) {
		a->peer = calloc(ACCT_ROUND_TRIPS, sizeof(*a->peer));
		a->vals = calloc((size_t)SEG_N * 2 * ACCT_ROUND_TRIPS, sizeof(*a->vals));
	}
	if (a->own && (!client || (a->peer && a->vals)))
		return 0;
	fp_acct_free(a);
	rb_err("--account: out of memory for %u round trips' stamps", ACCT_ROUND_TRIPS);
	return -ENOMEM;
}

void fp_acct_free(struct fp_acct *a)
{
	free(a->own);
	free(a->peer);
	free(a->vals);
	a->own = a->peer = NULL;
	a->vals = NULL;
}

void fp_acct_begin(struct fp_acct *a, uint64_t i)
{
	a->i = i <= ACCT_ROUND_TRIPS ? i : 0;
	if (a->i && a->i > a->n)
		a->n = a->i;
}

void fp_acct_test_hold(void)
{
	for (uint64_t t0 = rb_now_ns(); rb_now_ns() - t0 < FP_CTS_DELAY_NS;)
		;
}

int fp_acct_start(struct fp_acct *a, struct rb_oob *o, bool client, int timeout_ms)
{
	memset(a->own, 0, sizeof(*a->own) * a->n); /* the last size's rows: none is taken for this one's */
	a->n = a->i = 0;
	memset(&a->res, 0, sizeof(a->res));
	return rb_clock_sync(o, client, ACCT_PROBES, timeout_ms, &a->before);
}

/* ---------------------------------------------------------------- the stamps, server to client */

/* Frames of up to STAMPS_PER_FRAME rows in order; the last holds fewer (none, if need be). */
static int send_stamps(const struct fp_acct *a, struct rb_oob *o)
{
	static uint8_t buf[STAMPS_HDR + STAMPS_PER_FRAME * ROW_BYTES];

	for (uint64_t from = 0;;) {
		uint64_t k = a->n - from < STAMPS_PER_FRAME ? a->n - from : STAMPS_PER_FRAME;
		struct rb_wbuf w = {buf, 0, sizeof(buf), false};
		int ret;

		rb_put_u32(&w, (uint32_t)from);
		rb_put_u32(&w, (uint32_t)k);
		for (uint64_t i = from; i < from + k; i++)
			for (unsigned e = 0; e < AC_EVENTS; e++)
				rb_put_u64(&w, a->own[i][e]);
		if ((ret = rb_oob_send_w(o, FP_MSG_STAMPS, &w)))
			return ret;
		from += k;
		if (k < STAMPS_PER_FRAME)
			return 0;
	}
}

/*
 * The server's rows into peer, as a hostile peer may send them: each frame the next
 * in order, its count within the frame and the cap, its length exactly its rows.
 * Returns the rows received, or -EPROTO.
 */
static int64_t recv_stamps(struct fp_acct *a, struct rb_oob *o, int timeout_ms)
{
	uint64_t got = 0;

	for (;;) {
		struct rb_frame f;
		struct rb_rbuf r;
		uint32_t from, k;
		int ret;

		if ((ret = rb_oob_expect(o, FP_MSG_STAMPS, &f, timeout_ms)))
			return ret;
		r = (struct rb_rbuf){f.p, f.len, 0, false};
		from = rb_get_u32(&r);
		k = rb_get_u32(&r);
		if (r.err || from != got || k > STAMPS_PER_FRAME || got + k > ACCT_ROUND_TRIPS ||
		    f.len != STAMPS_HDR + (uint64_t)k * ROW_BYTES) {
			rb_err("--account: the peer's stamps: a frame of %u bytes for rows %u..+%u (expected "
			       "row %llu, at most %u rows a frame and %u in all)",
			       f.len, r.err ? 0 : from, r.err ? 0 : k, (unsigned long long)got,
			       STAMPS_PER_FRAME, ACCT_ROUND_TRIPS);
			return -EPROTO;
		}
		for (uint32_t i = 0; i < k; i++)
			for (unsigned e = 0; e < AC_EVENTS; e++)
				a->peer[got + i][e] = rb_get_u64(&r);
		got += k;
		if (k < STAMPS_PER_FRAME)
			return (int64_t)got;
	}
}

/* ---------------------------------------------------------------- the account */

/* A row's own order: each half's events in sequence, none missing. */
static bool sane(const uint64_t *t)
{
	for (unsigned e = 0; e < AC_EVENTS; e++)
		if (!t[e] || (e != AC_READY && e != AC_RX_READY && t[e] < t[e - 1]))
			return false;
	return true;
}

static double clampd(double x, double lo, double hi)
{
	return x < lo ? lo : x > hi ? hi : x;
}

/* One side's stamps of a round trip; the server's are put on the client's clock. */
struct side {
	const uint64_t *t;
	bool server;
};

static double at(const struct rb_clock_fit *fit, struct side s, unsigned e)
{
	double err;

	return s.server ? rb_clock_to_local(fit, (double)s.t[e], &err) : (double)s.t[e];
}

/*
 * Whether a message's cross-clock order holds within the band (err, ns): the sender
 * saw no CTS before it was handed over, the receiver found no data before it was.
 * A row that breaks it is refused, not clamped into the segments.
 */
static bool causal(const struct rb_clock_fit *fit, struct side snd, struct side rcv, double err)
{
	return at(fit, rcv, AC_CTS_POSTED) <= at(fit, snd, AC_CTS_SEEN) + err &&
	       at(fit, rcv, AC_RX_CQE) >= at(fit, snd, AC_POSTED) - err;
}

/* One message's segments (ns): the sender's stamps snd, the receiver's rcv. */
static void message(const struct rb_clock_fit *fit, struct side snd, struct side rcv, double *seg)
{
	const double b0 = at(fit, snd, AC_READY), b3 = at(fit, snd, AC_CTS_SEEN);
	const double p1 = clampd(at(fit, rcv, AC_RX_READY), b0, b3);
	const double p2 = clampd(at(fit, rcv, AC_CTS_POSTED), p1, b3);

	seg[SEG_PEER_BUSY] = p1 - b0;
	seg[SEG_CTS_POST] = p2 - p1;
	seg[SEG_CTS_FLIGHT] = b3 - p2;
	seg[SEG_SENDER_POST] = (double)(snd.t[AC_POSTED] - snd.t[AC_CTS_SEEN]);
	seg[SEG_DATA_FLIGHT] = at(fit, rcv, AC_RX_CQE) - at(fit, snd, AC_POSTED);
	seg[SEG_RX_DONE] = (double)(rcv.t[AC_RX_DONE] - rcv.t[AC_RX_CQE]);
}

static int by_value(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

/* The p50, p99 and mean of n values (sorted here), in us. */
static void stats(double *v, uint64_t n, double *p50, double *p99, double *mean)
{
	double sum = 0;

	qsort(v, n, sizeof(*v), by_value);
	for (uint64_t i = 0; i < n; i++)
		sum += v[i];
	*p50 = v[(n - 1) / 2] / 1e3;
	*p99 = v[(uint64_t)ceil(0.99 * (double)n) - 1] / 1e3;
	*mean = sum / (double)n / 1e3;
}

/* Round trip i's rows, both sane and in causal order within the band (err, ns). */
static bool usable(const struct fp_acct *a, const struct rb_clock_fit *fit, uint64_t i, double err)
{
	const uint64_t *c = a->own[i - 1], *v = a->peer[i - 1];
	const struct side cs = {c, false}, vs = {v, true};

	return sane(c) && sane(v) && v[AC_READY] >= v[AC_RX_DONE] && c[AC_RX_READY] >= c[AC_SENT] &&
	       causal(fit, cs, vs, err) && causal(fit, vs, cs, err);
}

/*
 * The measured round trips first..last that both sides stamped, in one pass: each
 * usable round trip's two messages into every segment's column of vals (column s at
 * s x 2 x ACCT_ROUND_TRIPS), then each column's figures.
 */
static void account(struct fp_acct *a, const struct rb_clock_fit *fit, uint64_t first, uint64_t last,
                    uint64_t rows, double err)
{
	struct fp_acct_result *res = &a->res;
	const size_t col = (size_t)2 * ACCT_ROUND_TRIPS;
	double span = 0;
	uint64_t n = 0;

	last = last < rows ? last : rows;
	for (uint64_t i = first; i <= last; i++) {
		const struct side c = {a->own[i - 1], false}, v = {a->peer[i - 1], true};
		double seg[2][SEG_N];

		if (!usable(a, fit, i, err)) {
			res->dropped++;
			continue;
		}
		span += (double)(c.t[AC_RX_DONE] - c.t[AC_READY]);
		/* The client's message, then the server's (which began at its receive's end). */
		message(fit, c, v, seg[0]);
		message(fit, v, c, seg[1]);
		seg[1][SEG_SENDER_POST] += (double)(v.t[AC_READY] - v.t[AC_RX_DONE]);
		for (unsigned s = 0; s < SEG_N; s++) {
			a->vals[s * col + n] = seg[0][s];
			a->vals[s * col + n + 1] = seg[1][s];
		}
		n += 2;
	}
	for (unsigned s = 0; n && s < SEG_N; s++) {
		stats(a->vals + s * col, n, &res->p50[s], &res->p99[s], &res->mean[s]);
		res->sum_us += res->mean[s];
	}
	res->messages = n;
	res->span_us = n ? span / (double)(n / 2) / 1e3 : NAN;
}

int fp_acct_finish(struct fp_acct *a, struct rb_oob *o, bool client, int timeout_ms,
                   const struct rb_lat_summary *sum)
{
	struct fp_acct_result *res = &a->res;
	struct rb_clock_point after;
	struct rb_clock_fit fit;
	int64_t rows;
	double err;
	int ret;

	a->i = 0;
	if ((ret = rb_clock_sync(o, client, ACCT_PROBES, timeout_ms, &after)))
		return ret;
	if (!client)
		return send_stamps(a, o);
	if ((rows = recv_stamps(a, o, timeout_ms)) < 0)
		return (int)rows;
	rb_clock_fit(&a->before, &after, &fit);
	if (!rb_clock_fit_sane(&fit)) {
		snprintf(res->why, sizeof(res->why),
		         "the clocks drift %.0f ppm apart by the probes, past what two clocks do (%.0f)",
		         fit.drift * 1e6, RB_CLOCK_DRIFT_MAX * 1e6);
		return 0;
	}
	/* The band over the step: the widest of the two batches' (it is interpolated between them). */
	res->clock_err_us = (fit.a.err > fit.b.err ? fit.a.err : fit.b.err) / 1e3;
	res->clock_offset_us = rb_clock_offset_at(&fit, (fit.a.t + fit.b.t) / 2, &err) / 1e3;
	res->drift_ppm = fit.drift * 1e6;
	account(a, &fit, sum->warmup + 1, sum->warmup + sum->count, (uint64_t)rows, res->clock_err_us * 1e3);
	if (!res->messages) {
		snprintf(res->why, sizeof(res->why),
		         "no round trip stamped at both ends in order (%llu here, %lld there, %llu refused)",
		         (unsigned long long)a->n, (long long)rows, (unsigned long long)res->dropped);
		return 0;
	}
	/*
	 * What the segments add up to is held against the measured mean where they cover every
	 * measured round trip; else against their own round trips' span (the stamps' reach).
	 */
	res->whole = res->messages == 2 * sum->count;
	res->lat_mean_us = res->whole ? sum->mean : res->span_us / 2;
	res->valid = true;
	return 0;
}

void fp_acct_print(const struct fp_acct *a, FILE *out)
{
	const struct fp_acct_result *r = &a->res;

	if (!r->valid) {
		if (r->why[0])
			fprintf(out, " account: none: %s\n", r->why);
		return;
	}
	fprintf(out, " account of %llu messages (the clocks within +-%.2f us: offset %.1f us, drift %.2f ppm",
	        (unsigned long long)r->messages, r->clock_err_us, r->clock_offset_us, r->drift_ppm);
	if (r->dropped)
		fprintf(out, "; %llu round trips' stamps refused as impossible",
		        (unsigned long long)r->dropped);
	fprintf(out, ")\n");
	fprintf(out, "   %-14s %10s %10s %10s\n", "segment", "p50 us", "p99 us", "mean us");
	for (unsigned s = 0; s < SEG_N; s++)
		fprintf(out, "   %-14s %10.2f %10.2f %10.2f\n", seg_names[s], r->p50[s], r->p99[s],
		        r->mean[s]);
	fprintf(out,
	        "   the means add up to %.2f us; the one-way latency's mean %.2f us: %.2f us unexplained\n",
	        r->sum_us, r->lat_mean_us, r->lat_mean_us - r->sum_us);
}

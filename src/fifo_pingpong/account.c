/* SPDX-License-Identifier: BSD-2-Clause */
/* --account: where a message's time goes (account.h). */
#include "account.h"

#include "base/base.h"
#include "measure/measure.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char *const seg_names[SEG_N] = {"peer busy",   "cts post",      "cts flight",     "sender post",
                                             "data flight", "rx completion", "sender posting", "sender busy"};

/* The segments' columns of vals, and then the credit loop's: 2 values per round trip, 1 per message. */
#define COL  ((size_t)2 * ACCT_ROUND_TRIPS)
#define LOOP SEG_N

int fp_acct_init(struct fp_acct *a, bool client, uint32_t window)
{
	int ret;

	memset(a, 0, sizeof(*a));
	a->window = window;
	if ((ret = rb_stamps_init(&a->st, AC_EVENTS, client)))
		return ret;
	if (client && !(a->vals = calloc((SEG_N + 1) * COL, sizeof(*a->vals)))) {
		fp_acct_free(a);
		rb_err("--account: out of memory for %u round trips' segments", ACCT_ROUND_TRIPS);
		return -ENOMEM;
	}
	return 0;
}

void fp_acct_free(struct fp_acct *a)
{
	rb_stamps_free(&a->st);
	free(a->vals);
	a->vals = NULL;
}

void fp_acct_begin(struct fp_acct *a, uint64_t i)
{
	a->i = i <= ACCT_ROUND_TRIPS ? i : 0;
}

void fp_acct_test_hold(void)
{
	for (uint64_t t0 = rb_now_ns(); rb_now_ns() - t0 < FP_CTS_DELAY_NS;)
		;
}

int fp_acct_start(struct fp_acct *a, struct rb_oob *o, bool client, int timeout_ms)
{
	a->i = 0;
	memset(&a->res, 0, sizeof(a->res));
	return rb_stamps_start(&a->st, o, client, timeout_ms);
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
	seg[SEG_SENDER_POSTING] = seg[SEG_SENDER_BUSY] = NAN; /* the pipelined account's */
}

/* Round trip i's rows, both sane and in causal order within the band (err, ns). */
static bool usable(const struct fp_acct *a, const struct rb_clock_fit *fit, uint64_t i, double err)
{
	const uint64_t *c = rb_stamps_own(&a->st, i), *v = rb_stamps_peer(&a->st, i);
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
	const size_t col = COL;
	double span = 0;
	uint64_t n = 0;

	last = last < rows ? last : rows;
	for (uint64_t i = first; i <= last; i++) {
		const struct side c = {rb_stamps_own(&a->st, i), false},
		                  v = {rb_stamps_peer(&a->st, i), true};
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
		if (s == SEG_SENDER_POSTING || s == SEG_SENDER_BUSY) {
			res->p50[s] = res->p99[s] = res->mean[s] = NAN;
			continue;
		}
		rb_stamps_stats(a->vals + s * col, n, &res->p50[s], &res->p99[s], &res->mean[s]);
		res->sum_us += res->mean[s];
	}
	res->messages = n;
	res->span_us = n ? span / (double)(n / 2) / 1e3 : NAN;
}

/* ---------------------------------------------------------------- the pipelined account */

/* A pipelined row's own half in order, none missing: the sender's events, or the receiver's. */
static bool half_sane(const uint64_t *t, bool sender)
{
	const unsigned from = sender ? AC_READY : AC_RX_READY, to = sender ? AC_RX_READY : AC_EVENTS;

	for (unsigned e = from; e < to; e++)
		if (!t[e] || (e > from && t[e] < t[e - 1]))
			return false;
	return true;
}

/* Of [from, to] (the sender's clock), the time inside the post calls of messages m - W .. m - 1. */
static double in_posts(const struct fp_acct *a, uint64_t m, uint64_t from, uint64_t to)
{
	double sum = 0;

	for (uint64_t k = m - 1; k >= m - a->window; k--) {
		const uint64_t *c = rb_stamps_own(&a->st, k);
		uint64_t lo = c[AC_POSTED] > from ? c[AC_POSTED] : from;
		uint64_t hi = c[AC_POST_RET] < to ? c[AC_POST_RET] : to;

		if (c[AC_POST_RET] <= from)
			break; /* posted in order: the ones before ended earlier */
		sum += hi > lo ? (double)(hi - lo) : 0;
	}
	return sum;
}

/*
 * Message m's credit loop (m > W): m - W handed to the NIC -> CTS m seen, the sender's
 * clock at both ends, cut at the receiver's stamps (on the client's clock). Refused
 * (false) where a stamp is missing or the order breaks by more than the band err.
 */
static bool credit_loop(const struct fp_acct *a, const struct rb_clock_fit *fit, uint64_t m, double err,
                        double *seg, double *loop)
{
	const uint64_t *c = rb_stamps_own(&a->st, m), *v = rb_stamps_peer(&a->st, m);
	const uint64_t *cw = rb_stamps_own(&a->st, m - a->window),
	               *vw = rb_stamps_peer(&a->st, m - a->window);
	const struct side cs = {c, false}, vs = {v, true}, cws = {cw, false}, vws = {vw, true};
	double q[6];

	if (!half_sane(c, true) || !half_sane(cw, true) || !half_sane(v, false) || !half_sane(vw, false) ||
	    v[AC_CTS_POSTED] < vw[AC_RX_DONE] ||
	    at(fit, vs, AC_CTS_POSTED) > at(fit, cs, AC_CTS_SEEN) + err ||
	    at(fit, vws, AC_RX_CQE) < at(fit, cws, AC_POSTED) - err)
		return false;
	/* Points on the client's time line, each held between the one before and CTS m seen. */
	q[0] = at(fit, cws, AC_POSTED);
	q[5] = at(fit, cs, AC_CTS_SEEN);
	q[1] = clampd(at(fit, vws, AC_RX_CQE), q[0], q[5]);
	q[2] = clampd(at(fit, vws, AC_RX_DONE), q[1], q[5]);
	q[3] = clampd(at(fit, vs, AC_CTS_POSTED), q[2], q[5]);
	q[4] = clampd(at(fit, cs, AC_READY), q[3], q[5]);
	seg[SEG_DATA_FLIGHT] = q[1] - q[0];
	seg[SEG_RX_DONE] = q[2] - q[1];
	seg[SEG_CTS_POST] = q[3] - q[2];
	/* The sender's stretch, back on its own clock: between q[3] and q[4], which are its. */
	seg[SEG_SENDER_POSTING] =
	    q[4] > q[3] ? in_posts(a, m, c[AC_READY] - (uint64_t)(q[4] - q[3]), c[AC_READY]) : 0;
	seg[SEG_SENDER_BUSY] = q[4] - q[3] - seg[SEG_SENDER_POSTING];
	seg[SEG_CTS_FLIGHT] = q[5] - q[4];
	seg[SEG_SENDER_POST] = (double)(c[AC_POSTED] - c[AC_CTS_SEEN]);
	*loop = (double)(c[AC_CTS_SEEN] - cw[AC_POSTED]);
	return true;
}

/* Messages W + 1 .. last: each one's loop into the columns of vals, then each column's figures. */
static void account_bw(struct fp_acct *a, const struct rb_clock_fit *fit, uint64_t last, double err)
{
	struct fp_acct_result *res = &a->res;
	double idle = 0, period;
	uint64_t n = 0;

	res->pipelined = true;
	for (uint64_t m = a->window + 1; m <= last; m++) {
		double seg[SEG_N], loop;

		if (!credit_loop(a, fit, m, err, seg, &loop)) {
			res->dropped++;
			continue;
		}
		seg[SEG_PEER_BUSY] = NAN;
		for (unsigned s = 0; s < SEG_N; s++)
			a->vals[s * COL + n] = seg[s];
		a->vals[LOOP * COL + n] = loop;
		n++;
	}
	/* The sender's waits are its own clock's: every message it stamped whole, refused or not. */
	for (uint64_t m = a->window + 1; m <= last; m++) {
		const uint64_t *c = rb_stamps_own(&a->st, m);

		idle += half_sane(c, true) ? (double)(c[AC_CTS_SEEN] - c[AC_READY]) : 0;
	}
	res->messages = n;
	if (!n)
		return;
	for (unsigned s = 0; s < SEG_N; s++) {
		if (s == SEG_PEER_BUSY) {
			res->p50[s] = res->p99[s] = res->mean[s] = NAN;
			continue;
		}
		rb_stamps_stats(a->vals + s * COL, n, &res->p50[s], &res->p99[s], &res->mean[s]);
	}
	rb_stamps_stats(a->vals + LOOP * COL, n, &res->loop_p50, &res->loop_p99, &res->loop_mean);
	res->sum_us = res->loop_mean + res->mean[SEG_SENDER_POST];
	/* The sender's time from message W's post to the last accounted one's. */
	period =
	    (double)(rb_stamps_own(&a->st, last)[AC_POSTED] - rb_stamps_own(&a->st, a->window)[AC_POSTED]);
	res->idle_pct = period > 0 ? 100.0 * idle / period : NAN;
}

/*
 * After the step: the clocks probed again, the server's stamps to the client. The
 * client's rows received (>= 0), or < 0 on failure; 0 rows with res.why where there is
 * no believable clock line.
 */
static int64_t exchange(struct fp_acct *a, struct rb_oob *o, bool client, int timeout_ms)
{
	struct fp_acct_result *res = &a->res;
	int ret;

	a->i = 0;
	if ((ret = rb_stamps_finish(&a->st, o, client, timeout_ms)) || !client)
		return ret;
	if (!a->st.fit_ok) {
		snprintf(res->why, sizeof(res->why), "%s", a->st.why);
		return 0;
	}
	res->clock_err_us = a->st.err_ns / 1e3;
	res->clock_offset_us = a->st.offset_ns / 1e3;
	res->drift_ppm = a->st.drift_ppm;
	return (int64_t)a->st.peer_n;
}

static void none_stamped(struct fp_acct_result *res, const struct fp_acct *a, int64_t rows, const char *what)
{
	snprintf(res->why, sizeof(res->why),
	         "no %s stamped at both ends in order (%llu here, %lld there, %llu refused)", what,
	         (unsigned long long)a->st.n, (long long)rows, (unsigned long long)res->dropped);
}

int fp_acct_finish(struct fp_acct *a, struct rb_oob *o, bool client, int timeout_ms,
                   const struct rb_lat_summary *sum)
{
	struct fp_acct_result *res = &a->res;
	int64_t rows = exchange(a, o, client, timeout_ms);

	if (rows < 0 || !client || res->why[0])
		return rows < 0 ? (int)rows : 0;
	account(a, &a->st.fit, sum->warmup + 1, sum->warmup + sum->count, (uint64_t)rows,
	        res->clock_err_us * 1e3);
	if (!res->messages) {
		none_stamped(res, a, rows, "round trip");
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

int fp_acct_finish_bw(struct fp_acct *a, struct rb_oob *o, bool client, int timeout_ms, uint64_t msgs,
                      uint64_t bytes, uint64_t elapsed_ns)
{
	struct fp_acct_result *res = &a->res;
	int64_t rows = exchange(a, o, client, timeout_ms);
	uint64_t last = msgs;

	if (rows < 0 || !client || res->why[0])
		return rows < 0 ? (int)rows : 0;
	last = last < (uint64_t)rows ? last : (uint64_t)rows;
	last = last < a->st.n ? last : a->st.n;
	if (last <= a->window) {
		snprintf(
		    res->why, sizeof(res->why),
		    "%llu message(s) stamped at both ends: a credit loop needs more than the window (%u)",
		    (unsigned long long)last, a->window);
		return 0;
	}
	account_bw(a, &a->st.fit, last, res->clock_err_us * 1e3);
	if (!res->messages) {
		none_stamped(res, a, rows, "message");
		return 0;
	}
	/*
	 * Held to the engine's W x elapsed / messages where every message was stamped; else (past the
	 * stamps' cap) to the stamped messages' own pace, W x the sender's time from message W's post
	 * to the last one's per message between.
	 */
	res->whole = last == msgs;
	res->lat_mean_us = res->whole ? (double)a->window * (double)elapsed_ns / (double)msgs / 1e3
	                              : (double)a->window *
	                                    (double)(rb_stamps_own(&a->st, last)[AC_POSTED] -
	                                             rb_stamps_own(&a->st, a->window)[AC_POSTED]) /
	                                    (double)(last - a->window) / 1e3;
	res->pace_gbps = (double)a->window * (double)bytes / (double)msgs * 8 / (res->sum_us * 1e3);
	res->valid = true;
	return 0;
}

static void print_seg(const struct fp_acct_result *r, unsigned s, FILE *out)
{
	fprintf(out, "   %-14s %10.2f %10.2f %10.2f\n", seg_names[s], r->p50[s], r->p99[s], r->mean[s]);
}

/* The credit loop's segments, in its order, then the window's time against the engine's. */
static void print_bw(const struct fp_acct *a, FILE *out)
{
	static const unsigned order[] = {SEG_DATA_FLIGHT,    SEG_RX_DONE,     SEG_CTS_POST,
	                                 SEG_SENDER_POSTING, SEG_SENDER_BUSY, SEG_CTS_FLIGHT};
	const struct fp_acct_result *r = &a->res;
	unsigned most = order[0];

	fprintf(out, "   credit loop, message m - %u handed to the NIC -> CTS m seen:\n", a->window);
	for (unsigned k = 0; k < sizeof(order) / sizeof(order[0]); k++) {
		print_seg(r, order[k], out);
		most = r->mean[order[k]] > r->mean[most] ? order[k] : most;
	}
	fprintf(out, "   %-14s %10.2f %10.2f %10.2f   (mostly %s: %.0f %% of its mean)\n", "= loop",
	        r->loop_p50, r->loop_p99, r->loop_mean, seg_names[most], 100 * r->mean[most] / r->loop_mean);
	print_seg(r, SEG_SENDER_POST, out);
	fprintf(out,
	        "   a window of %u messages every %.2f us (loop + sender post: %.4g Gb/s); measured %.2f us ",
	        a->window, r->sum_us, r->pace_gbps, r->lat_mean_us);
	if (r->whole)
		fprintf(out, "(%u x elapsed / messages)", a->window);
	else
		fprintf(out, "(the stamped messages' own pace: not every message was stamped at both ends)");
	fprintf(out, ": %.2f us unexplained\n", r->lat_mean_us - r->sum_us);
	fprintf(out,
	        "   the sender waited for a CTS %.1f %% of its time from message %u's post to the last's\n",
	        r->idle_pct, a->window);
}

void fp_acct_print(const struct fp_acct *a, FILE *out)
{
	const struct fp_acct_result *r = &a->res;

	if (!r->valid) {
		if (r->why[0])
			fprintf(out, " account: none: %s\n", r->why);
		return;
	}
	rb_stamps_print_head(&a->st, out, r->messages, r->dropped, r->pipelined ? "messages" : "round trips");
	if (r->pipelined) {
		print_bw(a, out);
		return;
	}
	for (unsigned s = 0; s < SEG_SENDER_POSTING; s++)
		print_seg(r, s, out);
	fprintf(out,
	        "   the means add up to %.2f us; the one-way latency's mean %.2f us%s: %.2f us unexplained\n",
	        r->sum_us, r->lat_mean_us, r->whole ? "" : " (the accounted round trips')",
	        r->lat_mean_us - r->sum_us);
}

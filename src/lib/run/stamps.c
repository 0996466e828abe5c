/* SPDX-License-Identifier: BSD-2-Clause */
/* Both sides' event stamps on one time line (stamps.h). */
#include "stamps.h"
#include "clocksync.h"

#include "base/base.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* STAMPS: the first row's number (0-based), the rows, the events a row; then the rows. */
#define HDR 12
_Static_assert(HDR + RB_STAMPS_FRAME_ROWS * RB_STAMPS_EVENTS_MAX * 8 == RB_WIRE_STAMPS_MAX,
               "the STAMPS frame's cap (oob/wire.h) is its largest frame");

int rb_stamps_init(struct rb_stamps *s, unsigned events, bool client)
{
	memset(s, 0, sizeof(*s));
	if (!events || events > RB_STAMPS_EVENTS_MAX)
		return -EINVAL;
	s->events = events;
	s->own = calloc((size_t)RB_STAMPS_ROWS * events, sizeof(*s->own));
	if (client)
		s->peer = calloc((size_t)RB_STAMPS_ROWS * events, sizeof(*s->peer));
	if (s->own && (!client || s->peer))
		return 0;
	rb_stamps_free(s);
	rb_err("out of memory for %u rows of stamps", RB_STAMPS_ROWS);
	return -ENOMEM;
}

void rb_stamps_free(struct rb_stamps *s)
{
	free(s->own);
	free(s->peer);
	s->own = s->peer = NULL;
}

int rb_stamps_start(struct rb_stamps *s, struct rb_oob *o, bool client, int timeout_ms)
{
	/* None of the last step's rows is this one's. */
	memset(s->own, 0, s->n * s->events * sizeof(*s->own));
	if (s->peer)
		memset(s->peer, 0, s->peer_n * s->events * sizeof(*s->peer));
	s->n = s->peer_n = 0;
	s->fit_ok = false;
	s->why[0] = '\0';
	return rb_clock_sync(o, client, RB_STAMPS_PROBES, timeout_ms, &s->before);
}

/* The server's rows, all within timeout_ms: each frame gets what is left of it (a client that stops
 * reading holds this side no longer). */
static int send_rows(const struct rb_stamps *s, struct rb_oob *o, int timeout_ms)
{
	static uint8_t buf[HDR + RB_STAMPS_FRAME_ROWS * RB_STAMPS_EVENTS_MAX * 8];
	const uint64_t end = rb_now_ns() + (uint64_t)timeout_ms * 1000000;
	const int own = o->timeout_ms;

	for (uint64_t from = 0;;) {
		uint64_t k = s->n - from < RB_STAMPS_FRAME_ROWS ? s->n - from : RB_STAMPS_FRAME_ROWS,
		         now = rb_now_ns();
		struct rb_wbuf w = {buf, 0, sizeof(buf), false};
		int ret;

		if (now >= end) {
			rb_err("the stamps to the peer: not all out within %d ms (%llu of %llu rows)",
			       timeout_ms, (unsigned long long)from, (unsigned long long)s->n);
			return -ETIMEDOUT;
		}
		rb_put_u32(&w, (uint32_t)from);
		rb_put_u32(&w, (uint32_t)k);
		rb_put_u32(&w, s->events);
		for (uint64_t i = from * s->events; i < (from + k) * s->events; i++)
			rb_put_u64(&w, s->own[i]);
		o->timeout_ms = (int)((end - now + 999999) / 1000000); /* the send's own bound */
		ret = rb_oob_send_w(o, RB_MSG_STAMPS, &w);
		o->timeout_ms = own;
		if (ret)
			return ret;
		from += k;
		if (k < RB_STAMPS_FRAME_ROWS)
			return 0;
	}
}

int rb_stamps_decode(const uint8_t *p, uint32_t len, unsigned events, uint64_t *rows, uint64_t *got,
                     char *why, size_t why_len)
{
	struct rb_rbuf r = {p, len, 0, false};
	uint32_t from = rb_get_u32(&r), k = rb_get_u32(&r), ev = rb_get_u32(&r);

	if (r.err || from != *got || ev != events || k > RB_STAMPS_FRAME_ROWS || *got + k > RB_STAMPS_ROWS ||
	    len != HDR + (uint64_t)k * events * 8) {
		snprintf(
		    why, why_len,
		    "a frame of %u bytes for rows %u..+%u of %u events (expected row %llu, %u events, at "
		    "most %u rows a frame and %u in all)",
		    len, r.err ? 0 : from, r.err ? 0 : k, r.err ? 0 : ev, (unsigned long long)*got, events,
		    RB_STAMPS_FRAME_ROWS, RB_STAMPS_ROWS);
		return -EPROTO;
	}
	for (uint64_t i = *got * events; i < (*got + k) * events; i++)
		rows[i] = rb_get_u64(&r);
	*got += k;
	return k < RB_STAMPS_FRAME_ROWS;
}

/* The server's rows, within one timeout for them all (a peer dripping frames gains nothing). */
static int recv_rows(struct rb_stamps *s, struct rb_oob *o, int timeout_ms)
{
	const uint64_t end = rb_now_ns() + (uint64_t)timeout_ms * 1000000;
	char why[224];

	for (int ret = 0; !ret;) {
		uint64_t now = rb_now_ns();
		struct rb_frame f;

		if (now >= end) {
			rb_err("the peer's stamps: not all in within %d ms (%llu rows)", timeout_ms,
			       (unsigned long long)s->peer_n);
			return -ETIMEDOUT;
		}
		if ((ret = rb_oob_expect(o, RB_MSG_STAMPS, &f, (int)((end - now + 999999) / 1000000))))
			return ret;
		if ((ret = rb_stamps_decode(f.p, f.len, s->events, s->peer, &s->peer_n, why, sizeof(why))) <
		    0) {
			rb_err("the peer's stamps: %s", why);
			return ret;
		}
	}
	return 0;
}

int rb_stamps_finish(struct rb_stamps *s, struct rb_oob *o, bool client, int timeout_ms)
{
	struct rb_clock_point after;
	double err;
	int ret;

	if ((ret = rb_clock_sync(o, client, RB_STAMPS_PROBES, timeout_ms, &after)))
		return ret;
	if (!client)
		return send_rows(s, o, timeout_ms);
	if ((ret = recv_rows(s, o, timeout_ms)))
		return ret;
	rb_clock_fit(&s->before, &after, &s->fit);
	if (!rb_clock_fit_sane(&s->fit)) {
		snprintf(s->why, sizeof(s->why),
		         "the clocks drift %.0f ppm apart by the probes, past what two clocks do (%.0f)",
		         s->fit.drift * 1e6, RB_CLOCK_DRIFT_MAX * 1e6);
		return 0;
	}
	/* The band over the step: the wider of the two batches' (it is interpolated between them). */
	s->err_ns = s->fit.a.err > s->fit.b.err ? s->fit.a.err : s->fit.b.err;
	s->offset_ns = rb_clock_offset_at(&s->fit, (s->fit.a.t + s->fit.b.t) / 2, &err);
	s->drift_ppm = s->fit.drift * 1e6;
	s->fit_ok = true;
	return 0;
}

double rb_stamps_local(const struct rb_stamps *s, uint64_t peer_t)
{
	double err;

	return rb_clock_to_local(&s->fit, (double)peer_t, &err);
}

static int by_value(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return (a > b) - (a < b);
}

void rb_stamps_stats(double *v, uint64_t n, double *p50, double *p99, double *mean)
{
	double sum = 0;

	qsort(v, n, sizeof(*v), by_value);
	for (uint64_t i = 0; i < n; i++)
		sum += v[i];
	*p50 = v[(n - 1) / 2] / 1e3;
	*p99 = v[(uint64_t)ceil(0.99 * (double)n) - 1] / 1e3;
	*mean = sum / (double)n / 1e3;
}

void rb_stamps_print_head(const struct rb_stamps *s, FILE *out, uint64_t messages, uint64_t refused,
                          const char *what)
{
	fprintf(out, " account of %llu messages (the clocks within +-%.2f us: offset %.1f us, drift %.2f ppm",
	        (unsigned long long)messages, s->err_ns / 1e3, s->offset_ns / 1e3, s->drift_ppm);
	if (refused)
		fprintf(out, "; %llu %s' stamps refused as impossible", (unsigned long long)refused, what);
	fprintf(out, ")\n   %-14s %10s %10s %10s\n", "segment", "p50 us", "p99 us", "mean us");
}

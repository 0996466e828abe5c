/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A step's event stamps from both sides on one time line (stamps.c), for a tool's
 * per-message account: each side stamps the events of every round trip or message on
 * its own clock (rb_now_ns) into a row of its own, the first RB_STAMPS_ROWS of them;
 * around the step both call start and finish at the same point of their protocol.
 * start forgets the last step's rows and probes the clocks (clocksync.h); finish
 * probes them again and sends the server's rows to the client in STAMPS frames, where
 * the two batches of probes give the line that puts the server's stamps on the
 * client's clock (measure/clockfit.h), within a stated band. What the rows mean and
 * which segments they cut is the tool's.
 *
 * The server's rows are a peer's figures: each frame must be the next in order, hold
 * this side's number of events a row, at most RB_STAMPS_FRAME_ROWS rows and no row past
 * RB_STAMPS_ROWS, be exactly that long, and the whole transfer must end within one
 * timeout; anything else is -EPROTO (or -ETIMEDOUT), never a guess. A stamp's value
 * is not checked here: the tool refuses a row whose order breaks.
 */
#ifndef RB_STAMPS_H
#define RB_STAMPS_H

#include "oob/oob.h"
#include "measure/measure.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define RB_STAMPS_ROWS       65536 /* a step's rows at most, each side */
#define RB_STAMPS_EVENTS_MAX 12
#define RB_STAMPS_FRAME_ROWS 512
#define RB_STAMPS_PROBES     16 /* clock probes before and after the step */

struct rb_stamps {
	unsigned events; /* stamps a row */
	uint64_t *own;   /* this side's rows: row r (1-based) at (r - 1) x events */
	uint64_t *peer;  /* the client's copy of the server's */
	uint64_t n;      /* the highest row this side stamped this step */
	uint64_t peer_n; /* the client: the server's rows received */
	struct rb_clock_point before;
	/* The client's, after finish: the server's clock on this one's. */
	struct rb_clock_fit fit;
	bool fit_ok;
	double err_ns;               /* the band at worst over the step */
	double offset_ns, drift_ppm; /* the offset at the step's middle, the drift */
	char why[160];               /* !fit_ok: why */
};

int rb_stamps_init(struct rb_stamps *s, unsigned events, bool client);
/* What init allocates: a server's own rows, a client's and its copy of the server's (a run's memory). */
static inline uint64_t rb_stamps_bytes(unsigned events, bool client)
{
	return (uint64_t)RB_STAMPS_ROWS * events * sizeof(uint64_t) * (client ? 2 : 1);
}
void rb_stamps_free(struct rb_stamps *s);

/* Event ev of row r (1-based), at t on this side's clock: none past RB_STAMPS_ROWS. */
static inline void rb_stamp(struct rb_stamps *s, uint64_t r, unsigned ev, uint64_t t)
{
	if (r && r <= RB_STAMPS_ROWS) {
		s->own[(r - 1) * s->events + ev] = t;
		s->n = r > s->n ? r : s->n;
	}
}

static inline const uint64_t *rb_stamps_own(const struct rb_stamps *s, uint64_t r)
{
	return s->own + (r - 1) * s->events;
}

static inline const uint64_t *rb_stamps_peer(const struct rb_stamps *s, uint64_t r)
{
	return s->peer + (r - 1) * s->events;
}

/* Before the step, both sides: the last step's rows forgotten, the clocks probed. */
int rb_stamps_start(struct rb_stamps *s, struct rb_oob *o, bool client, int timeout_ms);
/*
 * After the step, both sides: the clocks probed again, the server's rows to the
 * client (all within timeout_ms), and the client's line between the clocks (fit_ok,
 * else why: drift past what two clocks do).
 */
int rb_stamps_finish(struct rb_stamps *s, struct rb_oob *o, bool client, int timeout_ms);
/* The client: a server stamp on this side's clock (ns). */
double rb_stamps_local(const struct rb_stamps *s, uint64_t peer_t);

/* A segment's n values (ns; sorted here, n >= 1): its p50 and p99 (nearest rank) and mean, in us. */
void rb_stamps_stats(double *v, uint64_t n, double *p50, double *p99, double *mean);

/* An account's first lines: its messages, the clocks' band, offset and drift, what was refused, the
 * segments' heading. */
void rb_stamps_print_head(const struct rb_stamps *s, FILE *out, uint64_t messages, uint64_t refused,
                          const char *what);

/*
 * One STAMPS frame of payload p, len bytes, checked as above: its rows into rows (room
 * for RB_STAMPS_ROWS x events) from row *got on, *got advanced. 1 if it was the last
 * frame (fewer than RB_STAMPS_FRAME_ROWS rows), 0 if more follow, -EPROTO if refused
 * (the reason in why).
 */
int rb_stamps_decode(const uint8_t *p, uint32_t len, unsigned events, uint64_t *rows, uint64_t *got,
                     char *why, size_t why_len);

#endif

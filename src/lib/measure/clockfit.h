/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Two hosts' clocks on one time line: the peer's clock against this side's, from
 * out-of-band round trips before and after a run (oob/clocksync.h takes them).
 *
 * A probe: this side sends at t1 (its clock), the peer receives at t2 and answers at
 * t3 (its clock), the answer arrives at t4. Whatever the two one-way delays, the
 * offset (peer - this side) lies within half the round trip the peer did not spend,
 * ((t4 - t1) - (t3 - t2)) / 2, of the midpoint estimate ((t2 - t1) + (t3 - t4)) / 2:
 * the narrowest probe of a batch is kept as a point. Two points, before and after,
 * give the line (offset and drift), and at any time between them an uncertainty no
 * wider than the interpolation of the two points' (a constant drift's line lies
 * within both bands, so within their interpolation). Outside them it widens with the
 * drift's own uncertainty. The drift is assumed constant between the two batches: a
 * clock slewed by NTP mid-run, at another rate, is outside the band.
 */
#ifndef RB_CLOCKFIT_H
#define RB_CLOCKFIT_H

#include <stdbool.h>
#include <stdint.h>

struct rb_clock_probe {
	uint64_t t1, t2, t3, t4; /* ns: t1, t4 this side's clock; t2, t3 the peer's */
};

/* The peer's offset at one moment of this side's clock, within +- err (ns). */
struct rb_clock_point {
	double t, offset, err;
};

/*
 * The narrowest of n probes as a point. False when none is consistent (t4 < t1,
 * t3 < t2, or the peer's turn longer than the round trip): a peer's figures are
 * checked, not trusted.
 */
bool rb_clock_point(const struct rb_clock_probe *p, unsigned n, struct rb_clock_point *out);

/* The line through a point before and one after (the same point twice: no drift known). */
struct rb_clock_fit {
	struct rb_clock_point a, b; /* a.t <= b.t */
	double drift;               /* (b.offset - a.offset) / (b.t - a.t): ppm x 1e-6 */
};

void rb_clock_fit(const struct rb_clock_point *before, const struct rb_clock_point *after,
                  struct rb_clock_fit *f);
/*
 * Whether the drift is one two running clocks can have (at most RB_CLOCK_DRIFT_MAX;
 * crystals are tens of ppm apart, NTP slews by at most 500): a peer's answers that
 * make it more are not believed.
 */
#define RB_CLOCK_DRIFT_MAX 1e-3
bool rb_clock_fit_sane(const struct rb_clock_fit *f);
/* The offset at this side's time t, and its uncertainty (ns) in *err. */
double rb_clock_offset_at(const struct rb_clock_fit *f, double t, double *err);
/* A time of the peer's clock as this side's clock reads it, and its uncertainty in *err. */
double rb_clock_to_local(const struct rb_clock_fit *f, double peer_t, double *err);

#endif

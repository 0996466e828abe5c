/* SPDX-License-Identifier: BSD-2-Clause */
/* Two hosts' clocks on one time line (clockfit.h). */
#include "clockfit.h"

#include <math.h>

bool rb_clock_point(const struct rb_clock_probe *p, unsigned n, struct rb_clock_point *out)
{
	bool found = false;

	for (unsigned i = 0; i < n; i++) {
		const struct rb_clock_probe *q = &p[i];
		double rtt, turn, err;

		if (q->t4 < q->t1 || q->t3 < q->t2)
			continue;
		rtt = (double)(q->t4 - q->t1);
		turn = (double)(q->t3 - q->t2);
		if (turn > rtt)
			continue;
		err = (rtt - turn) / 2;
		if (found && err >= out->err)
			continue;
		/* Differences first: the clocks' absolute values are far apart, their deltas small. */
		out->offset = ((double)q->t2 - (double)q->t1 + (double)q->t3 - (double)q->t4) / 2;
		out->t = (double)q->t1 + rtt / 2;
		out->err = err;
		found = true;
	}
	return found;
}

void rb_clock_fit(const struct rb_clock_point *before, const struct rb_clock_point *after,
                  struct rb_clock_fit *f)
{
	f->a = before->t <= after->t ? *before : *after;
	f->b = before->t <= after->t ? *after : *before;
	f->drift = f->b.t > f->a.t ? (f->b.offset - f->a.offset) / (f->b.t - f->a.t) : 0;
}

bool rb_clock_fit_sane(const struct rb_clock_fit *f)
{
	return fabs(f->drift) <= RB_CLOCK_DRIFT_MAX;
}

double rb_clock_offset_at(const struct rb_clock_fit *f, double t, double *err)
{
	const double span = f->b.t - f->a.t;
	double x;

	if (!(span > 0)) {
		*err = f->a.err > f->b.err ? f->a.err : f->b.err;
		return f->a.offset;
	}
	x = (t - f->a.t) / span;
	if (x >= 0 && x <= 1) {
		*err = f->a.err + (f->b.err - f->a.err) * x;
	} else {
		/* Past the points: the nearer one's band, and the drift's own doubt carried the distance. */
		const double near = x < 0 ? f->a.err : f->b.err, d = x < 0 ? -x : x - 1;

		*err = near + (f->a.err + f->b.err) * d;
	}
	return f->a.offset + (f->b.offset - f->a.offset) * x;
}

double rb_clock_to_local(const struct rb_clock_fit *f, double peer_t, double *err)
{
	/* local = peer - offset(local), offset(t) = a.offset + drift (t - a.t): solved. */
	const double local = (peer_t - f->a.offset + f->drift * f->a.t) / (1 + f->drift);

	rb_clock_offset_at(f, local, err);
	return local;
}

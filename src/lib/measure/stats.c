/* SPDX-License-Identifier: BSD-2-Clause */
#include "stats.h"

#include "base/base.h"

#include <math.h>
#include <stdio.h>

void rb_peak_init(struct rb_peak *p, uint64_t total_msgs, uint64_t t0)
{
	p->step = total_msgs / 16 ? total_msgs / 16 : 1;
	p->next = p->step;
	p->t_last = t0;
	p->bytes_last = 0;
	p->windows = 0;
	p->best = 0;
}

void rb_peak_mark(struct rb_peak *p, uint64_t msgs_done, uint64_t bytes_done, uint64_t now)
{
	double bw = rb_gbps(bytes_done - p->bytes_last, now - p->t_last);

	if (now > p->t_last && bw > p->best)
		p->best = bw;
	p->windows++;
	p->t_last = now;
	p->bytes_last = bytes_done;
	while (p->next <= msgs_done)
		p->next += p->step;
}

double rb_peak_gbps(const struct rb_peak *p)
{
	return p->windows >= 2 ? p->best : 0.0;
}

void rb_rate_init(struct rb_rate *r, uint64_t t0, uint64_t grid_ns)
{
	r->t0 = t0;
	r->grid = r->min_span = grid_ns ? grid_ns : 1;
	r->next = t0 + r->grid;
	r->n = 1;
	r->m[0] = (struct rb_rate_mark){t0, 0, 0};
}

void rb_rate_mark(struct rb_rate *r, uint64_t now, uint64_t posted_bytes, uint64_t done_bytes)
{
	if (r->n == RB_RATE_MARKS) {
		/* Keep marks 0, 2, 4, ...: the grid doubles, the start stays. */
		for (unsigned i = 1; 2 * i < RB_RATE_MARKS; i++)
			r->m[i] = r->m[2 * i];
		r->n = RB_RATE_MARKS / 2;
		r->grid *= 2;
	}
	r->m[r->n++] = (struct rb_rate_mark){now, posted_bytes, done_bytes};
	/* The next mark is due one grid step after this one (the grid may be coarse now). */
	r->next = now + r->grid;
}

double rb_rate_peak_gbps(const struct rb_rate *r, uint64_t t_end, uint64_t bytes)
{
	struct rb_rate_mark end = {t_end, bytes, bytes};
	uint64_t span = r->grid > r->min_span ? r->grid : r->min_span;
	double best;
	unsigned n = 0;

	if (t_end <= r->t0 || !bytes)
		return 0;
	best = rb_gbps(bytes, t_end - r->t0); /* the whole step: the average */
	if (t_end - r->t0 < 2 * r->min_span)
		return best; /* too short for two windows */
	/* Marks taken after the last completion add nothing: it closes the step. */
	while (n < r->n && r->m[n].t < t_end)
		n++;
	for (unsigned j = 1; j <= n; j++) {
		const struct rb_rate_mark *b = j < n ? &r->m[j] : &end;
		for (unsigned i = 0; i < j; i++) {
			const struct rb_rate_mark *a = &r->m[i];
			double bw;

			if (b->t - a->t < span || b->done <= a->posted)
				continue;
			bw = rb_gbps(b->done - a->posted, b->t - a->t);
			if (bw > best)
				best = bw;
		}
	}
	return best;
}

const struct rb_col rb_thread_cols[] = {
    {"threads", NULL, NULL, 0},
    {"thread_gbps_min", NULL, NULL, 4},
    {"thread_gbps_max", NULL, NULL, 4},
    {"thread_gbps", NULL, NULL, 0},
};

void rb_row_threads(struct rb_row *r, unsigned n, const uint64_t *msgs, const uint64_t *ns,
                    uint64_t bytes_per_msg)
{
	char list[sizeof(r->f[0].s)];
	double lo = NAN, hi = NAN;
	size_t len = 0;

	if (!n)
		return;
	rb_row_put_u64(r, &rb_thread_cols[0], n);
	if (n < 2 || !ns[0])
		return;
	list[0] = '\0';
	for (unsigned t = 0; t < n; t++) {
		double g = rb_gbps(msgs[t] * bytes_per_msg, ns[t]);
		int w = snprintf(list + len, sizeof(list) - len, "%s%.4g", t ? " " : "", g);

		len = w < 0 || (size_t)w >= sizeof(list) - len ? sizeof(list) : len + (size_t)w;
		lo = t && lo < g ? lo : g;
		hi = t && hi > g ? hi : g;
	}
	rb_row_put_dbl(r, &rb_thread_cols[1], lo);
	rb_row_put_dbl(r, &rb_thread_cols[2], hi);
	if (len < sizeof(list))
		rb_row_put_str(r, &rb_thread_cols[3], list);
}

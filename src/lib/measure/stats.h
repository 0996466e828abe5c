/* SPDX-License-Identifier: BSD-2-Clause */
/* Bandwidth, message rate and peak-window arithmetic. */
#ifndef RB_STATS_H
#define RB_STATS_H

#include "base/base.h"

#include <stdint.h>

/* 1 Gb/s = 1e9 bit/s. */
static inline double rb_gbps(uint64_t bytes, uint64_t ns)
{
	return ns ? (double)bytes * 8.0 / (double)ns : 0.0;
}

static inline double rb_mpps(uint64_t msgs, uint64_t ns)
{
	return ns ? (double)msgs * 1e3 / (double)ns : 0.0;
}

/*
 * Old peak (windows of 1/16 of the completed messages), kept only for
 * tests/unit/test_report.c; the engines use rb_rate below.
 */
struct rb_peak {
	uint64_t step, next;
	uint64_t t_last, bytes_last;
	unsigned windows;
	double best;
};

void rb_peak_init(struct rb_peak *p, uint64_t total_msgs, uint64_t t0);
void rb_peak_mark(struct rb_peak *p, uint64_t msgs_done, uint64_t bytes_done, uint64_t now);
double rb_peak_gbps(const struct rb_peak *p);

static inline void rb_peak_update(struct rb_peak *p, uint64_t msgs_done, uint64_t bytes_done, uint64_t now)
{
	if (msgs_done >= p->next)
		rb_peak_mark(p, msgs_done, bytes_done, now);
}

/*
 * Peak bandwidth of one direction of a step, bounded by what the link can carry
 * whatever the QP count or CQ moderation (the bandwidth tools' man pages, MEASUREMENTS).
 *
 * The sender marks, about every `grid` ns of its clock, the bytes it has posted and
 * the bytes whose completions it has seen. Bytes posted after a mark at t_i and
 * completed by a later mark at t_j crossed the link inside [t_i, t_j], so
 * (done_j - posted_i) / (t_j - t_i) never exceeds the link rate. The peak is the best
 * such rate over every pair of marks at least `grid` apart; the pair (start of the
 * step, last completion) is always one of them, and its rate is the average, so the
 * peak is never below the average and is the average when the step is shorter than
 * two first grid steps. At most RB_RATE_MARKS marks are kept: when they run out, every
 * other one is dropped and the grid doubles, so a step of any length is covered by
 * 32 to 64 of them.
 */
#define RB_RATE_MARKS 64

struct rb_rate_mark {
	uint64_t t, posted, done; /* ns, bytes, bytes */
};

struct rb_rate {
	uint64_t t0, grid, min_span, next;
	unsigned n;
	struct rb_rate_mark m[RB_RATE_MARKS];
};

/* A step that starts (first post) at t0; marks every grid_ns (> 0) at first. */
void rb_rate_init(struct rb_rate *r, uint64_t t0, uint64_t grid_ns);
void rb_rate_mark(struct rb_rate *r, uint64_t now, uint64_t posted_bytes, uint64_t done_bytes);
/* Marks when one is due; cheap enough for every clock read of a loop. */
static inline void rb_rate_update(struct rb_rate *r, uint64_t now, uint64_t posted_bytes, uint64_t done_bytes)
{
	if (now >= r->next)
		rb_rate_mark(r, now, posted_bytes, done_bytes);
}
/* The peak in Gb/s for a step whose last completion (of `bytes` in all) came at t_end; 0 if none. */
double rb_rate_peak_gbps(const struct rb_rate *r, uint64_t t_end, uint64_t bytes);

/* --threads' columns: threads, thread_gbps_min, thread_gbps_max, thread_gbps. */
extern const struct rb_col rb_thread_cols[4];
/*
 * --threads: a row's threads (n; nothing when 0, a side that sent nothing) and, with
 * two or more whose times are known, each thread's Gb/s (msgs[t] x bytes_per_msg over
 * ns[t]): thread_gbps_min, thread_gbps_max, and the list in thread_gbps where it fits.
 */
void rb_row_threads(struct rb_row *r, unsigned n, const uint64_t *msgs, const uint64_t *ns,
                    uint64_t bytes_per_msg);

#endif

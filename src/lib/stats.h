/* Bandwidth, message rate and peak-window arithmetic. */
#ifndef RB_STATS_H
#define RB_STATS_H

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
 * Peak bandwidth: the run is cut into consecutive windows of `step` completed
 * messages (1/16 of the run, at least one); peak is the best window's bandwidth.
 * With fewer than two windows there is no peak (0).
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

#endif

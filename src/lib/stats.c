#include "stats.h"

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

/* DONE (and socket_bw's RXDONE): a side's figures for one step of a bandwidth run. */
#ifndef RB_STEPEND_H
#define RB_STEPEND_H

#include "wire.h"

/*
 * A side's figures for one step (DONE; socket_bw's RXDONE too). A figure a tool
 * does not measure is NaN; the decoder refuses negative and infinite ones, and a
 * tool that needs a figure checks that it is there (rb_stepend_has).
 */
struct rb_stepend {
	uint64_t msgs, bytes, elapsed_ns;
	double peak_gbps; /* the best rate over short windows (stats.h) */
	double cpu_pct;   /* user+sys of the process over the step, 100 = one core */
};

static inline bool rb_stepend_has(double figure)
{
	return figure == figure; /* not NaN */
}

/* The payload; the decoder returns 0 or -EPROTO. */
void rb_stepend_encode(struct rb_wbuf *w, const struct rb_stepend *e);
/* Also refuses messages in no time and fewer bytes than messages (messages with no bytes among them). */
int rb_stepend_decode(const uint8_t *p, size_t len, struct rb_stepend *e);

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The message-time model of a sweep: a message of N bytes takes T(N) = t_lat + N / B_eff,
 * and eta = B_eff / B_link is the share of the link the transfer sustains. T is the
 * time per message: N x 8 / bandwidth in a bandwidth sweep (t_lat is then the cost of
 * a message beyond its bytes: posting, completion, per-packet work), the median
 * latency in a latency sweep. Fitted by least squares weighted by 1 / T^2, so every
 * size counts by its relative error (unweighted, the largest sizes would decide the
 * intercept alone). n_1/2 = t_lat x B_eff is the size that reaches half of B_eff.
 */
#ifndef RB_MODEL_H
#define RB_MODEL_H

#include "sizes.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct rb_row;

struct rb_model {
	unsigned n;
	const char *metric; /* "bw_avg_gbps" or "lat_p50_us": the first size row's */
	double link_gbps;   /* a bandwidth row's own link_gbps (both directions' when summed) */
	double size[RB_SIZES_MAX], t_us[RB_SIZES_MAX];
};

struct rb_model_fit {
	const char *metric;
	double t_lat_us, b_eff_gbps;
	double eta; /* B_eff / the link's data rate; NaN when unknown */
	double n_half_bytes;
	double rel_rms_residual; /* RMS of (fit - T) / T over the sizes */
	unsigned sizes;
};

void rb_model_reset(struct rb_model *m);
/* One size's row (not an interval's or a single repeat's): its time per message, if it has one. */
void rb_model_add(struct rb_model *m, const struct rb_row *row);
/*
 * The fit; link_gbps (the port's, NaN or 0 when unknown) is used when the rows had none.
 * 0, or -EDOM with fewer than three sizes (two fit any line), no positive slope or a
 * singular system, or -ERANGE when the intercept is negative (the time per byte grows
 * with size, as when large messages overrun a queue): then f holds that t_lat and B_eff.
 */
int rb_model_fit(const struct rb_model *m, double link_gbps, struct rb_model_fit *f);
/* "t_lat 1.25 us, B_eff 9.87 Gb/s (eta 98.7 % of the link), n_1/2 1543 B, residual 1.2 % RMS over 23 sizes"
 */
void rb_model_text(const struct rb_model_fit *f, char *buf, size_t len);
/* The fit as one JSON object. */
void rb_model_json(FILE *out, const struct rb_model_fit *f);

#endif

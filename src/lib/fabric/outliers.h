/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What an all-pairs schedule found, from a summary whose size does not grow with the
 * number of pairs (N^2): every end's counts in each role, the worst results (the
 * slow ones are among them), the failed ones, and the median of all measured
 * results: exact from their values up to RB_OUT_EXACT results (8 MiB of them),
 * beyond that from a log-linear histogram (measure/hist.h: within 0.05 %), the
 * values let go.
 *
 * A result is slow when its figure is worse than --slow times the median (when the
 * median is above 0): below
 * frac x median where higher is better (bandwidth), above median / frac where lower
 * is better (latency). An end is a suspect when more than half of its measured
 * results are slow: one bad link or NIC makes every pair through it slow, while its
 * partners each have one slow pair among many. With both directions measured, also
 * when more than half of its results in one role are: a bad transmit path slows the
 * half of its pairs where it sent. (Only a first reading: the re-tests, retest.h,
 * decide.)
 */
#ifndef RB_OUTLIERS_H
#define RB_OUTLIERS_H

#include "measure/measure.h"

#include <stdbool.h>
#include <stdint.h>

/* Results whose values are kept for an exact median (8 MB); the histogram beyond. */
#define RB_OUT_EXACT (1u << 20)

struct rb_pair_result {
	uint32_t server, client; /* ends: rank x rails + rail */
	uint32_t seq;            /* the order it came in */
	double value;            /* the headline figure; NaN when the pair failed */
	bool slow;               /* set by rb_outliers_judge */
};

struct rb_rank_tally {
	uint32_t measured, slow, failed;
	uint32_t measured_as[2], slow_as[2]; /* as the client (it sent), as the server */
	bool suspect;
};

struct rb_outliers {
	uint32_t ends, keep; /* keep: the most worst and failed results held */
	bool lower_better;   /* set before the first result */
	uint64_t results, nfailed;
	/* The worst measured results: a heap whose top is the best of them, then (judged) in order. */
	struct rb_pair_result *worst;
	uint32_t nworst;
	bool dropped; /* a measured result fell out of worst */
	/* The failed ones, in order, the first keep of them, with their errors. */
	struct rb_pair_result *failed;
	char **err;
	uint32_t nfailed_kept;
	/* For the median. */
	double *values;
	uint32_t vcap;
	struct rb_hist hist;
	struct rb_rank_tally *tally; /* per end */
	double median;
};

/* For ends (ranks x rails); keep: the worst and failed results held (each). 0 or -ENOMEM. */
int rb_outliers_init(struct rb_outliers *o, uint32_t ends, uint32_t keep);
void rb_outliers_free(struct rb_outliers *o);
/* One result between ends (value NaN: failed, err why). 0, -EINVAL (an end out of range) or -ENOMEM. */
int rb_outliers_add(struct rb_outliers *o, uint32_t server, uint32_t client, double value, const char *err);
/*
 * After the last result: the median (NaN when none was measured), the slow among the
 * worst (which go back in order), the tallies and suspects. complete: false when more
 * results were slow than the worst could hold (the tallies' slow counts are then at
 * least what they say).
 */
double rb_outliers_judge(struct rb_outliers *o, double frac, bool directional, bool *complete);

#endif

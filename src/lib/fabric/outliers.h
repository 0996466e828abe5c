/*
 * Which pairs of an all-pairs run are slow, and which ranks they have in common.
 * Pure functions over the pairs' headline figures.
 *
 * A pair is slow when its figure is worse than --slow times the median of all
 * measured pairs: below frac x median where higher is better (bandwidth), above
 * median / frac where lower is better (latency). A rank is a suspect when more
 * than half of its measured pairs are slow: one bad link or NIC makes every pair
 * through it slow, while its partners each have one slow pair among many. With both
 * directions measured, also when more than half of its pairs in one role are: a bad
 * transmit path slows the half of its pairs where it sent. (Only a first reading:
 * the re-tests, retest.h, decide.)
 */
#ifndef RB_OUTLIERS_H
#define RB_OUTLIERS_H

#include <stdbool.h>
#include <stdint.h>

struct rb_pair_result {
	uint32_t server, client;
	double value; /* the headline figure; NaN when the pair failed */
	bool slow;    /* set by rb_outliers */
};

struct rb_rank_tally {
	uint32_t measured, slow, failed;
	uint32_t measured_as[2], slow_as[2]; /* as the client (it sent), as the server */
	bool suspect;
};

/*
 * Marks slow pairs and tallies each rank (tally: n entries, zeroed here). Returns
 * the median of the measured pairs (NaN when none was measured).
 */
double rb_outliers(struct rb_pair_result *p, uint32_t np, uint32_t n, double frac, bool lower_better,
                   bool directional, struct rb_rank_tally *tally);

#endif

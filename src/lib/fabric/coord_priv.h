/*
 * What the coordinator's files share. coord.c runs its life: the JOINs (coord_join.c),
 * then the rounds (coord_round.c), whose rows coord_rows.c writes; coord_report.c says
 * what they found (the matrix, the slow and failed pairs, the suspects, in text and in
 * the JSON documents' outliers block). The calls go one way: coord.c calls the other
 * four; coord_round.c calls coord_rows.c, and coord_join.c for a rank's devices (an
 * END corrects them); coord_rows.c calls coord_report.c; none calls back.
 */
#ifndef RB_COORD_PRIV_H
#define RB_COORD_PRIV_H

#include "coord.h"
#include "verbs/verbs.h"
#include "fabmsg.h"
#include "outliers.h"
#include "measure/measure.h"

#include <stdio.h>

struct rank {
	struct rb_oob oob; /* fd -1: not joined, or gone */
	struct rb_fab_join join;
	char dev[RB_MAX_RAILS]
	        [RB_RAIL_NAME]; /* per rail: as JOIN named it, then as its runs opened it (END) */
	bool ended;             /* sent END for the current round */
	uint64_t deadline;      /* by when its END must come (UINT64_MAX: no bound yet) */
	bool lost;
};

struct coord {
	const struct rb_coord_cfg *cfg;
	uint32_t n, rounds, round;
	uint32_t rails; /* every rank's (JOIN); results are per rank and rail: rank x rails + rail */
	uint64_t seed;
	struct rank *rk;
	/* This round: its pairs, each pair's latest headline per rail (pair x rails + rail). */
	const struct rb_pair *pairs;
	uint32_t np;
	double *last;
	uint32_t *nrows_pair;          /* rows each pair sent this round */
	char (*perr)[RB_WIRE_MSG_LEN]; /* a pair's failure this round ("" none) */
	char **res_err;                /* per result: why it failed (NULL: measured) */
	/*
	 * Rows are written as they come. Only several rails of bandwidth keep the round's
	 * rows, up to RB_COORD_AGG_ROWS, for the row of all rails together.
	 */
	struct rb_fab_row *rows;
	uint32_t nrows, cap;
	bool agg_dropped;
	struct rb_fab_row scratch;
	/* Every pair's headline (NaN: failed), in the order the rounds ended. */
	struct rb_pair_result *res;
	uint32_t nres;
	uint32_t failed_pairs;
	char cause[RB_WIRE_MSG_LEN];
	/* The matrix's figure, chosen by the first row: bandwidth, else latency (p50). */
	const char *headline, *unit;
	bool lower_better;
	struct rb_rank_tally *tally; /* per rank, after the last round */
	double median;
	bool text;           /* the table goes to stdout: the summary follows it */
	struct rb_gate gate; /* --min-bw, --max-lat-p99 over every pair's rows */
};

/* coord_join.c */
/* One control connection per rank: the open-file limit raised to N + 128 (64 pending JOINs), or why not. */
int coord_room_for(uint32_t n);
/* Every rank's JOIN on listener lfd: 0, or an error (c->cause says why). */
int coord_join_all(struct coord *c, int lfd);
/* "a,b" into the rank's per-rail names: all of them (JOIN), or only those named already (END). */
void coord_set_devs(struct rank *k, const char *list, bool named_only);

/* coord_round.c */
/* Every round in turn (GO, the pairs' rows and ENDs), then the GO past the last, or ABORT. */
int coord_all_rounds(struct coord *c, const struct rb_pairs_spec *spec, struct rb_pair *pairs);
/* The run is over for everyone: each living rank is told why (c->cause). */
void coord_abort_all(struct coord *c);

/* coord_rows.c */
/* A ROW from rank from (pi: its pair this round): 0, written and its headline kept, or -EPROTO. */
int coord_on_row(struct coord *c, uint32_t from, const struct rb_frame *f, uint32_t pi);
/* The round's results, per pair and rail (cut: the round ended early), and rows of all rails. */
void coord_round_done(struct coord *c, const struct rb_pair *pairs, uint32_t np, bool cut);

/* coord_report.c */
/* Rank r's device on a rail ("-" before anyone named it). */
const char *coord_devname(const struct coord *c, uint32_t r, uint32_t rail);
/* A result's end (rank x rails + rail) as "rank 3 (node-17 mlx5_1)". */
const char *coord_who(const struct coord *c, uint32_t e, char *buf, size_t cap);
/* Marks the slow pairs and the suspect ranks, counts the failed pairs. */
void coord_outliers(struct coord *c);
/* The text summary under the rows: the matrix, slow and failed pairs, suspects. */
void coord_summary(struct coord *c);
/* The JSON documents' "outliers" block (a struct rb_section's writer; arg: the coord). */
void coord_emit_outliers(FILE *f, void *arg);

#endif

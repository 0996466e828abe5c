/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the coordinator's files share. coord.c runs its life: the JOINs (coord_join.c),
 * then the rounds (coord_round.c), whose rows coord_rows.c writes; coord_report.c says
 * what they found (the matrix, the slow and failed pairs, in text and in the JSON
 * documents' outliers block); coord_pattern.c a --pattern round's flows together; coord_retest.c re-tests the
 * suspects (more rounds) and says what they decided; coord_findings.c writes both as the CSV's companion. The
 * calls go one way: coord.c calls the other six; coord_findings.c calls coord_report.c;
 * coord_retest.c calls coord_round.c and coord_report.c; coord_round.c calls
 * coord_rows.c, and coord_join.c for a rank's devices (an END corrects them);
 * coord_rows.c calls coord_report.c and coord_pattern.c, which calls coord_report.c;
 * none calls back.
 */
#ifndef RB_COORD_PRIV_H
#define RB_COORD_PRIV_H

#include "coord.h"
#include "verbs/verbs.h"
#include "fabmsg.h"
#include "outliers.h"
#include "retest.h"
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

/* One --interval stretch of the victim's run, as its client's row gave it (its clock). */
struct coord_stretch {
	double t0, t1, p50, p99;
	uint64_t iters;
};

/*
 * --victim: its pair (appended to each round's flows, never among their results) and,
 * per round (0: alone, idle), its figures from the stretches that count: all of them
 * idle, those inside the flows' window beside a round. p50 is the stretches' median
 * p50 by iterations, p99 their median p99 (a stretch's tail), worst their highest;
 * coverage the share of the flows' window those stretches span (NaN: none; err says
 * why when it said).
 */
struct coord_victim {
	bool on;
	struct rb_pair pair;
	const char *tool;
	uint64_t size;
	double *p50, *p99, *worst, *coverage, *w0, *w1;
	uint32_t *used, *nrows;
	char (*err)[RB_WIRE_MSG_LEN];
	struct coord_stretch *st; /* this round's stretches */
	uint32_t nst;
};

struct coord {
	const struct rb_coord_cfg *cfg;
	uint32_t n, rounds, round;
	bool flows;         /* --pattern other than pairs: a rank may have several flows a round */
	uint32_t max_flows; /* the most flows a round has: the room of the per-round arrays */
	uint32_t rails;     /* every rank's (JOIN); results are per rank and rail: rank x rails + rail */
	uint64_t seed;
	struct rank *rk;
	/* This round: its pairs, each pair's latest headline per rail (pair x rails + rail). */
	const struct rb_pair *pairs;
	uint32_t np;
	double *last;
	struct coord_flowfacts *facts; /* each flow's, from its rows (--pattern) */
	struct coord_rxfacts *rx;      /* each flow's receiver, from its server's rows (--pattern) */
	struct coord_rxfacts *ports;   /* a round's ports by rank, each counted once (c->n) */
	uint32_t *nrows_rx;            /* rows each flow's server sent this round */
	/* --pattern: each round's flows together. */
	struct coord_pround *prounds;
	uint32_t nprounds;
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
	/*
	 * Every result of the schedule (a pair's headline per rail, NaN: failed), summed up
	 * in a size that does not grow with the pairs (outliers.h); judged after the last
	 * round. For up to 32 ranks, the matrix too (cell: client x n + server, x rails + rail).
	 */
	struct rb_outliers out;
	bool judged, out_complete;
	double *cell;
	uint8_t *cell_state; /* 0 none, 1 measured, 2 failed */
	char cause[RB_WIRE_MSG_LEN];
	/* The matrix's figure, chosen by the first row: bandwidth, else latency (p50). */
	const char *headline, *unit;
	bool lower_better;
	bool text;           /* the table goes to stdout: the summary follows it */
	struct rb_gate gate; /* --min-bw, --max-lat-p99 over every pair's rows */
	/* After the schedule: the re-tests of what it found slow or failed (coord_retest.c). */
	bool retesting;
	struct rb_retest rt;
	struct coord_rerun *reruns; /* every re-test's figure, in order */
	uint32_t nreruns, rerun_cap;
	struct rb_row meta;    /* the documents' meta block, for the CSV's companion too */
	struct coord_victim v; /* --victim */
	/* Its own cost (the JSON's "coordinator"): when it started, every rank joined, the first row came,
	 * the schedule ended. */
	uint64_t t_start, t_joined, t_first_row, t_schedule;
};

/* What a flow's rows (its client's side) say beyond its headline (coord_pattern.c). */
struct coord_flowfacts {
	double link, wire;  /* link_gbps, wire_max_gbps (NaN: not said) */
	uint64_t loss;      /* retransmissions, sequence errors, duplicates, timeouts, RNR NAKs */
	uint64_t paused_us; /* the far end told it to pause (ctr_pause_rx_us) */
	uint64_t cnp;       /* congestion notifications it handled (ctr_rp_cnp_handled) */
	uint64_t bytes;     /* what it moved */
	double t0, t1;      /* when it measured, on its client's wall clock (NaN: not said) */
	double w0, w1;      /* the span of all its sizes this round (the victim's window; NaN: none) */
};

/* Rows one pair (and one flow's server) may send in a round: sizes x rails x interval rows, with room to
 * spare. */
#define RB_COORD_PAIR_ROWS 1000000

/* A flow's receiving port, from its server's rows (--pattern): what its counters saw. */
struct coord_rxfacts {
	uint64_t loss;      /* drops and out-of-sequence arrivals */
	uint64_t paused_us; /* the pauses it sent its link partner (ctr_pause_tx_us) */
	uint64_t ecn, cnp;  /* ECN-marked packets it received, CNPs it sent */
	double window_s;    /* its row's elapsed_s (NaN: not said) */
	bool seen;          /* a row came */
};

/* A round's receivers together: each receiving rank's port counted once. */
struct coord_rxround {
	uint32_t receivers; /* ports with rows */
	uint64_t loss, paused_us, ecn, cnp;
	uint32_t worst; /* the receiver that dropped (else paused) the most; UINT32_MAX none */
	uint64_t worst_loss, worst_paused_us, worst_ecn;
	double worst_pause_share, worst_window_s; /* NaN: its window not said */
};

/* A --pattern round's flow that got less than half the round's mean. */
struct coord_starved {
	struct rb_pair flow;
	double value;
};
#define COORD_STARVED_MAX 8

/* A --pattern round's flows together (coord_pattern.c). */
struct coord_pround {
	uint32_t round, flows;
	struct rb_flow_stats st;
	const char *what; /* the shared end ("receiver", "sender"), or NULL: every flow its own ports */
	uint32_t at;      /* its rank */
	double capacity;  /* the links' rate the flows could reach together (NaN: unknown) */
	double wire;      /* the same in what the wire can carry (wire_max_gbps): the model's */
	uint32_t sharing; /* O: the flows that share the busiest port */
	double model;     /* the model's rate a flow: wire over O (NaN: no wire rate) */
	/* Every byte of the round over the union of its flows' windows (NaN: no spans): the
	 * aggregate, which flows that started apart cannot inflate as a sum of their rates can. */
	double aggregate;
	uint64_t loss, paused_us, cnp;
	uint64_t bytes;          /* what the flows moved (those whose windows are known) */
	struct coord_rxround rx; /* the receivers' counters */
	char verdict[320];
	struct coord_starved starved[COORD_STARVED_MAX];
	uint32_t nstarved;
};

/* One re-test between two ends, as measured. */
struct coord_rerun {
	uint32_t round, client, server; /* ends */
	uint32_t hyp;                   /* the hypothesis it tested (rb_retest_hyp) */
	double value;                   /* NaN: failed */
	bool bad;
};

/* The round's pattern flows (c->pairs[0..]): the victim's pair, after them, is none of them. */
static inline uint32_t rb_coord_nflows(const struct coord *c)
{
	return c->np - (c->v.on && !c->retesting && c->np ? 1 : 0);
}

/* coord_victim.c */
/* A round's number as the documents give it: from 1, the victim's idle round 0. */
uint32_t rb_coord_round_no(const struct coord *c, uint32_t round);
/* Room for the victim's figures (c->rounds); 0 or -ENOMEM. */
int rb_coord_victim_alloc(struct coord *c);
void rb_coord_victim_free(struct coord *c);
/* Whether a decoded row is the victim's (its "victim" field). */
bool rb_coord_is_victim_row(const struct rb_fab_row *fr);
/* The victim's ROW from rank from: its figures or its error kept for the round. 0, or -EPROTO. */
int rb_coord_victim_row(struct coord *c, uint32_t from, const struct rb_fab_row *fr);
/* After a round: what the victim measured in it, said under the table (text). */
void rb_coord_victim_round(struct coord *c);
/* The JSON outliers block's "victim" member (nothing without --victim). */
void rb_coord_emit_victim(FILE *f, const struct coord *c);

/* coord_join.c */
/* One control connection per rank: the open-file limit raised to N + 128 (64 pending JOINs), or why not. */
int rb_coord_room_for(uint32_t n);
/* Every rank's JOIN on listener lfd: 0, or an error (c->cause says why). */
int rb_coord_join_all(struct coord *c, int lfd);
/* "a,b" into the rank's per-rail names: all of them (JOIN), or only those named already (END). */
void rb_coord_set_devs(struct rank *k, const char *list, bool named_only);

/* coord_round.c */
/* One round of np pairs: GO to every rank (its part), the pairs' rows and ENDs. 0 or why it ended. */
int rb_coord_play_round(struct coord *c, const struct rb_pair *pairs, uint32_t np);
/* The schedule's rounds in turn (pairs: room for n / 2), or ABORT to all. */
int rb_coord_all_rounds(struct coord *c, const struct rb_pairs_spec *spec, struct rb_pair *pairs);
/* The run is over: GO with nothing to do to every rank. */
void rb_coord_over(struct coord *c);
/* The run is over for everyone: each living rank is told why (c->cause). */
void rb_coord_abort_all(struct coord *c);

/* coord_rows.c */
/* A ROW from rank from (the client of one of this round's flows): 0, written and its headline kept, or
 * -EPROTO. */
int rb_coord_on_row(struct coord *c, uint32_t from, const struct rb_frame *f);
/*
 * This round's flow fr names (its client and server): its index, with counts[it]
 * raised and fr's fields bound to its key and label arrays; UINT32_MAX when no flow
 * of the round is that pair, or it sent more rows than a round holds.
 */
uint32_t rb_coord_flow_row(struct coord *c, struct rb_fab_row *fr, uint32_t *counts);
/* The round's results, per pair and rail (cut: the round ended early), and rows of all rails. */
void rb_coord_round_done(struct coord *c, const struct rb_pair *pairs, uint32_t np, bool cut);

/* coord_pattern.c */
/* A row of flow pi (--pattern): what it says beyond its headline, kept for the round's verdict. */
void rb_coord_pattern_row(struct coord *c, uint32_t pi, const struct rb_row *row);
/* A --pattern round's flows together, kept and (text) said under the table. */
void rb_coord_pattern_round(struct coord *c, const struct rb_pair *pairs, uint32_t np);
/* The JSON outliers block's "pattern" member (nothing without --pattern). */
void rb_coord_emit_pattern(FILE *f, const struct coord *c);

/* coord_receiver.c */
/* A ROW from rank from, the server of one of this round's flows: its receiver's counters kept (never
 * written); 0 or -EPROTO. */
int rb_coord_on_rx_row(struct coord *c, uint32_t from, struct rb_fab_row *fr);
/* The port of each rank that holds one of the round's flows, once: per rank, the most its flows' rows said.
 */
void rb_coord_ports_once(struct coord *c, const struct rb_pair *pairs, uint32_t np, bool servers);
/* The round's receivers together (each receiving rank once), and the worst of them. */
void rb_coord_rx_round(struct coord *c, const struct rb_pair *pairs, uint32_t np, struct coord_rxround *out);
/* Text: the worst receiver's line under the round's verdict (nothing when none saw anything). */
void rb_coord_rx_line(const struct coord *c, const struct coord_rxround *rx);
/* JSON: the round's receiver members. */
void rb_coord_rx_json(FILE *f, const struct coord_rxround *rx);

/* coord_retest.c */
/* The re-tests after the schedule (--retests), until every suspect is decided. 0 or why they stopped. */
int rb_coord_retests(struct coord *c, struct rb_pair *pairs);
/* The findings in text (confirmed, cleared, undecided), under the summary. */
void rb_coord_retest_summary(const struct coord *c);
/* The JSON outliers block's "retests" and "findings" (after its other members). */
void rb_coord_emit_retests(FILE *f, const struct coord *c);

/* coord_findings.c */
/* With --csv FILE.csv: FILE.findings.csv, the outliers block as rows. 0 or -EIO (said). */
int rb_coord_findings_csv(const struct coord *c, const struct rb_row *meta);

/* coord_report.c */
/* Rank r's device on a rail ("-" before anyone named it). */
const char *rb_coord_devname(const struct coord *c, uint32_t r, uint32_t rail);
/* A result's end (rank x rails + rail) as "rank 3 (node-17 mlx5_1)". */
const char *rb_coord_who(const struct coord *c, uint32_t e, char *buf, size_t cap);
/* One end of a result in JSON: "side_rank", "side_host", "side_rail", "side_device". */
void rb_coord_json_end(FILE *f, const struct coord *c, const char *side, uint32_t e);
/* Marks the slow pairs and the suspect ranks, counts the failed pairs. */
void rb_coord_outliers(struct coord *c);
/* The text summary under the rows: the matrix, slow and failed pairs, suspects. */
void rb_coord_summary(struct coord *c);
/* The JSON documents' "outliers" block but its closing brace (rb_coord_emit_retests adds to it). */
void rb_coord_emit_outliers(FILE *f, void *arg);

#endif

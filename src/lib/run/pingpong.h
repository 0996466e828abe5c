/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The ping-pong engine shared by every latency measurement (each tool brings its
 * transport: RDMA WRITE, TCP, a FIFO protocol): warm-up, iterations or duration, the
 * timestamps around each round trip, statistics (a constant-memory histogram, and
 * exact nearest-rank percentiles while the samples fit under a cap), raw samples
 * streamed to a file on request, and the client's summary sent to the server so
 * both print the same row.
 *
 * A transport supplies the exchange. The client side measures:
 *     for each round trip i: [untimed: ready(i)] t0, ping(i), t1 [untimed: after(i)]
 * and, in -D mode, end(i) tells the server that no round trip i will come. The
 * server echoes with pong(i) until the client's last round trip or end.
 */
#ifndef RB_PINGPONG_H
#define RB_PINGPONG_H

#include "measure/measure.h"
#include "oob/oob.h"
#include "report/report.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Exact percentiles up to this many samples per size (8 bytes each); the histogram beyond. */
#define RB_PP_EXACT_MAX (1u << 22)

struct rb_pp_result;

struct rb_pp_ops {
	/* Client, untimed: get round trip i ready (fill the payload). Optional. */
	int (*ready)(void *t, uint64_t i);
	/* Client, timed: send round trip i and wait for its echo. */
	int (*ping)(void *t, uint64_t i);
	/* Client, untimed: after round trip i (check the echo, reap completions). Optional. */
	int (*after)(void *t, uint64_t i);
	/* Client, -D mode: tell the server the run ended before round trip i. Optional. */
	int (*end)(void *t, uint64_t i);
	/* Server: wait for round trip i and echo it. 0 echoed, 1 the client ended instead, or -errno. */
	int (*pong)(void *t, uint64_t i);
	/*
	 * Client, untimed, with cfg->interval_s: one interval of this size ended; res holds
	 * its own statistics (always from the histogram), from_s..to_s its place in the
	 * size's measured time. Writes the interval's row. Optional.
	 */
	int (*interval)(void *t, const struct rb_pp_result *res, double from_s, double to_s);
};

struct rb_pp_cfg {
	uint32_t iters;    /* measured round trips; 0 = duration mode */
	double duration_s; /* -D */
	uint32_t warmup;   /* round trips before the measured ones */
	unsigned divisor;  /* a sample is a round trip / divisor (2: one way) */
	/*
	 * How long the server waits for the client's summary after its last echo, at
	 * least (never less than the channel's default): a transport with its own
	 * --timeout passes that, so a slow client is not cut short.
	 */
	int summary_ms;
	/* --interval: a row every interval_s seconds of measuring, each with its own statistics. */
	double interval_s;
};

struct rb_pp_result {
	struct rb_lat_summary sum; /* microseconds, one way */
	bool exact;                /* nearest rank on every sample, else the histogram's */
};

struct rb_pp {
	struct rb_hist hist;  /* round trips of this size, ns */
	struct rb_hist ihist; /* of the interval in progress (--interval) */
	uint64_t *exact;      /* every measured round trip when -n allows */
	uint64_t iter;        /* the round trip in progress (for messages) */
	uint64_t total;       /* this size's round trips, warm-up included; 0 in -D mode */
	/* Client: the size in progress so far (rb_pp_partial). */
	uint64_t t_meas, t_last, measured;
	unsigned divisor, warmup;
	bool client;
	/* Server: the client's summary, when the transport was handed it mid-step. */
	bool have_summary;
	struct rb_lat_summary summary;
	FILE *samples; /* --samples: written under tmp, renamed to path when closed */
	char *samples_path, *samples_tmp;
	uint64_t samples_written; /* lines written: none, and no file is left behind */
};

/* The client keeps samples for exact percentiles when -n allows; the server only the summary. */
int rb_pp_init(struct rb_pp *pp, const struct rb_pp_cfg *cfg, bool client);
/* Closes (and renames into place) the samples file too. */
void rb_pp_free(struct rb_pp *pp);
/*
 * --samples FILE: every measured one-way latency as a CSV line (size_bytes,
 * iteration, latency_us), streamed to disk, not held in memory. Opened before the
 * run (a bad path is exit 2); the file appears at path when the engine is freed.
 * "-" streams them to stdout, each size's lines before its row.
 */
int rb_pp_samples_open(struct rb_pp *pp, const char *path);
/*
 * --samples and -U/--report-unsorted (perftest's: every sample on stdout, as
 * --samples - does) checked together: the client's only, one of them, and stdout
 * not taken by a document or --output. *samples becomes "-" for -U.
 */
int rb_pp_samples_check(const char **samples, bool unsorted, bool client, const struct rb_out_opts *out);

/*
 * One size, after the barrier. The client measures and sends LATSTATS; the server
 * echoes and receives it, so res is the same on both sides.
 */
int rb_pp_step(struct rb_pp *pp, const struct rb_pp_ops *ops, void *t, struct rb_oob *oob,
               const struct rb_pp_cfg *cfg, bool client, uint64_t size, struct rb_pp_result *res);

/*
 * Server, mid-step: may the client's summary (LATSTATS) legitimately arrive now that
 * round trip echoed was echoed? After the last echo, and in -D mode at any time (it
 * can overtake the end message on its way). Anything else on the control connection
 * mid-step means the peer failed or left. Always false on the client.
 */
bool rb_pp_summary_due(const struct rb_pp *pp, uint64_t echoed);
/*
 * Server: a transport that reads the control connection mid-step and finds the
 * client's LATSTATS hands it over here; the step then does not wait for it again.
 * 0, or -EPROTO when it is malformed (logged).
 */
int rb_pp_take_summary(struct rb_pp *pp, const struct rb_frame *f, const char *peer);

/*
 * Client, after a step cut short (SIGINT): its statistics of the measured round trips so
 * far. false when none was measured.
 */
bool rb_pp_partial(struct rb_pp *pp, struct rb_pp_result *res);

/* LATSTATS, the client's summary of a size; the decoder returns 0 or -EPROTO. */
void rb_latstats_encode(struct rb_wbuf *w, const struct rb_lat_summary *l);
/* Refuses negative, non-finite or out-of-order figures (min <= p50 <= ... <= max). */
int rb_latstats_decode(const uint8_t *p, size_t len, struct rb_lat_summary *l);

/* "exact" or "histogram": the documents say which produced a row. */
const char *rb_pp_method(const struct rb_pp_result *res);
/* The client's log2 histogram of this size's one-way samples (--histogram). */
void rb_pp_print_histogram(const struct rb_pp *pp, FILE *f, unsigned divisor);

#endif

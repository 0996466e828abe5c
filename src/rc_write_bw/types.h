/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The RDMA WRITE bandwidth engine's types: its configuration (what main.c asks of a
 * step), one --interval stretch, and one step's result. Every part of the engine and
 * main.c share them; this header calls no function.
 */
#ifndef RB_RC_WRITE_BW_TYPES_H
#define RB_RC_WRITE_BW_TYPES_H

#include "measure/measure.h"
#include "oob/oob.h"

#include <stdbool.h>
#include <stdint.h>

/* --interval: one stretch of a step on the sending side's clock, and its sends. */
struct bw_interval {
	uint64_t msgs, bytes;
	uint64_t from_ns, to_ns; /* from the step's first post */
};

/* --threads: the most posting threads (one send CQ each). */
#define BW_MAX_THREADS 64

struct bw_cfg {
	uint64_t iters;    /* per QP; 0 in duration mode */
	double duration_s; /* > 0: duration mode */
	bool forever;      /* --run_infinitely: sends until a stop signal */
	bool no_peak;      /* -N: no peak measured (DONE carries none) */
	/* > 0 on a sending side: interval(arg, ...) every interval_ns within a step, and for its rest. */
	uint64_t interval_ns;
	void (*interval)(void *arg, const struct bw_interval *iv);
	void *arg;
	uint32_t tx_depth, cq_mod, inline_bytes, rx_depth;
	uint32_t post_list;      /* -l; 0: chosen per size (bw_post_list) */
	bool sending, receiving; /* this side's roles */
	bool imm, verify;
	bool reg_per_iter;        /* the source MR registered anew for every -t messages per QP */
	unsigned slots;           /* target slots per QP (verify windows); 1 otherwise */
	uint32_t timeout_s;       /* completion stall / peer silence bound */
	unsigned threads;         /* --threads: posting threads (> 1: workers, threads.c) */
	struct rb_pace_opts pace; /* --rate_limit: the sends paced (rate 0: as fast as they go) */
};

struct bw_result {
	struct rb_stepend own, peer; /* each side's sending measurement (no CPU figure: NaN) */
	uint64_t msgs, bytes, elapsed_ns;
	double peak_gbps; /* each direction's peak (stats.h, rb_rate), summed; NaN when nothing moved or -N */
	double cpu_pct;   /* this process, user+sys over wall time of the step */
	uint32_t cq_mod;  /* the moderation used for this size (see SIGNAL_BYTES) */
	uint32_t post_list;               /* the post list used for this size */
	struct rb_lat_summary reg, dereg; /* --reg-per-iter, this side's (count 0: none) */
	/* This side's posting threads, and each one's sends: completed, and its first post to last
	 * completion. */
	unsigned threads;
	uint64_t thread_msgs[BW_MAX_THREADS], thread_ns[BW_MAX_THREADS];
};

/*
 * -D: what may be in flight when the clock runs out, so the step ends within its grace
 * at any size, depth and QP count (ib_write_bw refuses -a -D instead): at most
 * BW_INFLIGHT_NS of data at the rate the step has measured so far, and before its
 * first completion BW_INFLIGHT_FIRST_MIB; a message per QP at least. Each QP's send
 * queue gets its share as a limit in WRs (sendq.h); with --threads the workers' QPs
 * keep their depth.
 */
#define BW_INFLIGHT_NS        250000000ull
#define BW_INFLIGHT_FIRST_MIB 16u

#endif

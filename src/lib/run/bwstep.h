/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The bandwidth engine: one step of a bandwidth run, whatever moves its bytes. A tool
 * brings its transport as ops (a turn of it, what it moved, the peer's frames it
 * speaks, how it stops, its figures); the engine owns the rest, the same for every
 * tool:
 *
 *   the clock     t0 when the step starts, the timed window (run/window.h) around it
 *   -D            the step ends by this side's clock at -D plus the grace, whatever the
 *                 peer does (rb_step_overdue: a host that stalled is not the peer's fault)
 *   --timeout     nothing moved and nothing heard for that long fails the step
 *   --interval    a row per stretch of the grid (measure/grid.h), the last one ending
 *                 where the step's own clock does
 *   the peer      its frames during the step: the tool's own go to ops->frame, an
 *                 ERROR ends the step with the peer's cause (oob/channel.h)
 *   SIGINT        the cut: what this side moved so far and when, for a partial row
 *   the end       once this side's part is done: its figures as DONE; then the peer's
 *                 DONE, taken as it comes and held to what this side knows
 *                 (oob/stepend.h's one rule), and the tool's trailing frames
 *   heartbeats    PROGRESS while the peer waits, if asked; the peer's are skipped
 */
#ifndef RB_BWSTEP_H
#define RB_BWSTEP_H

#include "oob/oob.h"

#include <stdbool.h>
#include <stdint.h>

struct rb_bw;

struct rb_bw_ops {
	/* The clock started (b->t0, b->deadline set): set the transport going. Optional. */
	int (*start)(void *t, struct rb_bw *b);
	/* A turn of the transport, never blocking long: 1 when this side's part is done, 0 to go on, -errno
	 * (said). */
	int (*turn)(void *t);
	/* Bytes this side moved so far this step, both directions (--interval, the --timeout bound). */
	uint64_t (*moved)(void *t);
	/* A frame of the peer's during the step: 0 taken, -EPROTO when it is none the tool expects (said
	 * here). */
	int (*frame)(void *t, const struct rb_frame *f);
	/*
	 * The peer's DONE arrived before this side's part is done: 0 when that can be, or
	 * -EPROTO (said) when the tool still awaits frames of the peer's, which a DONE ends.
	 * Optional (then it can be).
	 */
	int (*peer_done)(void *t);
	/* What the peer is still doing when the deadline passes ("sending"), for the message. */
	const char *(*pending)(void *t);
	/*
	 * This side's part ended with ret (0: done; else its cause): stop and join the
	 * transport; the step's cause. Once a step, before its figures.
	 */
	int (*finish)(void *t, int ret);
	/* After a clean finish: this side's figures (DONE) and what it knows to hold the peer's to. */
	int (*figures)(void *t, struct rb_stepend *own, struct rb_step_view *v);
	/* Right after this side's DONE: the tool's own trailing frames (optional). */
	int (*sent)(void *t);
	/* After the peer's DONE was taken and held: the tool's own trailing frames (optional). */
	int (*taken)(void *t, const struct rb_stepend *peer);
	/*
	 * --interval: the stretch [from, to) ns from t0, this side's bytes moved at its ends
	 * (optional with no --interval).
	 */
	void (*interval)(void *t, uint64_t from_ns, uint64_t to_ns, uint64_t from_bytes, uint64_t to_bytes);
	/* True once what is left of the step belongs to its last stretch (a sender done): no sliver row.
	 * Optional. */
	bool (*settling)(void *t);
};

struct rb_bw_cfg {
	double duration_s;    /* -D (0: -n, or --run-infinitely) */
	bool forever;         /* --run-infinitely: no deadline */
	unsigned timeout_s;   /* --timeout: silence bound */
	uint64_t interval_ns; /* --interval on this side (0: none) */
	int wait_ms;          /* how long a turn may wait for the peer's frames (0: spin) */
	uint64_t beat_ns;     /* a heartbeat (PROGRESS) that often while the peer waits (0: none) */
};

/* A step in progress: what ops may ask of it. */
struct rb_bw {
	struct rb_oob *o;
	const struct rb_bw_cfg *cfg;
	uint64_t t0;       /* the step's clock started */
	uint64_t deadline; /* -D plus the grace on t0's clock (0: none) */
	uint64_t last_heard;
};

struct rb_bw_result {
	struct rb_stepend own, peer;
	bool doubt; /* the clock rule could not judge the peer's clock (stepend.h) */
	/* SIGINT or SIGTERM mid-step: what this side moved so far and when (valid). */
	bool cut;
	uint64_t cut_bytes, cut_ns;
};

/*
 * One step, from the clock's start (right after the barrier) to the peer's DONE held:
 * 0, or the first cause (said). res->cut is set on a stop signal whatever the return.
 */
int rb_bw_step(struct rb_oob *o, const struct rb_bw_cfg *cfg, const struct rb_bw_ops *ops, void *t,
               struct rb_bw *b, struct rb_bw_result *res);

/*
 * For a tool waiting inside a turn or a frame: the deadline passed. 0 when this host's
 * own stall excuses it (the deadline moves 50 ms on), else -ETIMEDOUT (said).
 */
int rb_bw_overdue(struct rb_bw *b, const char *doing);

#endif

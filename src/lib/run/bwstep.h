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
 *   --timeout     nothing moved and nothing heard for that long fails the step, while
 *                 the peer owes its DONE (after it, a stuck part of this side's is its
 *                 transport's to name)
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
	/*
	 * A turn of the transport: 1 when this side's part is done, 0 to go on, -errno
	 * (said). A turn that runs long calls rb_bw_tend() at least every 10 ms.
	 */
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
	/*
	 * What the peer is still doing when the deadline passes ("sending", "ending its
	 * step"), for the message. Once its DONE is in the peer owes nothing: this side's
	 * own part, if late, is its transport's bounds to judge, not -D's deadline.
	 */
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
	uint64_t grace_ns;    /* past -D before the peer is overdue (0: rb_step_grace_ns's) */
	bool untimed; /* no timed transfer of its own (a load's end): run/window.h's marks left alone */
};

struct rb_bw_result {
	struct rb_stepend own, peer;
	bool doubt; /* the clock rule could not judge the peer's clock (stepend.h) */
	/* SIGINT or SIGTERM mid-step: what this side moved so far and when (valid). */
	bool cut;
	uint64_t cut_bytes, cut_ns;
};

/* A step in progress: what ops may ask of it, then the engine's own. */
struct rb_bw {
	struct rb_oob *o;
	const struct rb_bw_cfg *cfg;
	uint64_t t0;       /* the step's clock started */
	uint64_t deadline; /* -D plus the grace on t0's clock (0: none) */
	uint64_t last_heard;
	bool mine;     /* this side's part done: its DONE sent */
	bool peer;     /* the peer's DONE in (held at the end) */
	bool finished; /* ops->finish called */
	/* the engine's own */
	const struct rb_bw_ops *ops;
	void *t;
	uint64_t last_moved, last_beat;
	struct rb_turn tend; /* the last rb_bw_tend: a gap of seconds is this side not running */
	uint64_t credited;   /* those gaps, not counted as the peer's silence this step */
	uint64_t iv_from, iv_next, iv_bytes; /* --interval's stretch in progress, ns from t0 */
	struct rb_stepend got;               /* the peer's DONE as it came */
	struct rb_step_view v;               /* what this side knows to hold it to */
	struct rb_bw_result *res;
};

/*
 * One step, from the clock's start (right after the barrier) to the peer's DONE held:
 * 0, or the first cause (said). res->cut is set on a stop signal whatever the return.
 */
int rb_bw_step(struct rb_oob *o, const struct rb_bw_cfg *cfg, const struct rb_bw_ops *ops, void *t,
               struct rb_bw *b, struct rb_bw_result *res);

/*
 * The engine's part of a step, for a transport whose turn runs long (its own loop,
 * with a clock of its own): a stop signal, -D's deadline, --interval, the heartbeat,
 * the peer's frames (waiting at most wait_ms for one) and the silence bound. The
 * engine does the same after every turn. 0, or the cause (said).
 */
int rb_bw_tend(struct rb_bw *b, int wait_ms);
/*
 * The transport just waited on purpose inside a turn (a receiver posting what the peer
 * announced waits for room in its ring; that wait counts its own absences,
 * rb_cpuwait_silence): the engine's next turn is counted from now.
 */
void rb_bw_waited(struct rb_bw *b);

/*
 * The same turn's clock, read at `now`: --interval's stretch ends there when it is due
 * (rb_bw_tend does this too; a transport that reads its clock more often than it
 * tends gives its stretches that clock's precision).
 */
void rb_bw_clock(struct rb_bw *b, uint64_t now);

/*
 * For a tool waiting inside a turn or a frame: the deadline passed. 0 when this host's
 * own stall excuses it (the deadline moves 50 ms on), else -ETIMEDOUT (said).
 */
int rb_bw_overdue(struct rb_bw *b, const char *doing);

#endif

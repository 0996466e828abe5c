/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The engine's state, shared by its parts (engine.h lists them). Types only: each
 * part's functions are in its own header. Nothing outside the engine includes this.
 */
#ifndef RB_RC_WRITE_BW_STATE_H
#define RB_RC_WRITE_BW_STATE_H

#include "verbs/verbs.h"
#include "base/base.h"
#include "measure/measure.h"
#include "msg.h"
#include "run/run.h"
#include "oob/oob.h"
#include "types.h"

#include <pthread.h>
#include <stdatomic.h>

struct qstate {
	struct rb_sendq sq;     /* send side, this step */
	bool stalled;           /* RB_TEST_FAULT=stall: posts nothing more this step */
	uint64_t rposted, rgot; /* receives, whole run */
	uint64_t step_rgot;     /* receives, this step */
};

/*
 * One thread's share of the sending: QPs first .. end - 1 (their send completions on
 * cq), its WR chain and its error text. The engine's own thread is the solo poster
 * (every QP); --threads gives worker posters instead (threads.c), each with a block
 * of QPs of its own (no cache line of their queue state shared but at the block's
 * edges), whose counts are published for the engine's thread to read.
 */
struct bw_poster {
	struct bw_engine *e;
	unsigned idx, first, end;
	struct ibv_cq *cq;
	bool worker;
	char err[768]; /* a completion error described whole (rb_wc_describe) */
	/*
	 * The send WRs, chained, built once per step (opcode, SGE, length, inline flag):
	 * a post fills in only what changes per message (send.c, bw_post_writes).
	 */
	struct ibv_send_wr wr[RB_SENDQ_MAX_POST_LIST];
	struct ibv_sge sge[RB_SENDQ_MAX_POST_LIST];
	char pad0[64];         /* the counts below on cache lines of their own */
	uint64_t done, posted; /* a worker's, this step */
	/*
	 * Published: the last completion's time, then done (release); posted (release)
	 * at each post. The engine reads done (acquire) before its clock and posted
	 * after it, so done <= posted and neither runs ahead of the time it is read at.
	 */
	_Atomic uint64_t pub_done, pub_posted, pub_last;
	char pad1[64];
};

/* --threads: the worker posters and their crew (threads.c, run/crew.h). */
struct bw_workers {
	unsigned n;
	struct bw_poster *pt; /* n */
	struct rb_crew *crew;
};

struct bw_engine {
	struct rb_conn *c;
	struct rb_oob *o;
	struct bw_cfg cfg;
	enum rb_fault_kind fault; /* RB_TEST_FAULT (fault.h); RB_FAULT_NONE in a measurement */
	struct qstate *q;         /* c->nqps */
	uint64_t size;
	uint32_t sig_every;              /* signal one WR in sig_every */
	uint64_t done_msgs, posted_msgs; /* this step, all QPs */
	uint64_t t_first, t_last, t_stop;
	uint64_t t_step;     /* this side's start of the step (after the barrier), on its own clock */
	uint64_t iv_end;     /* --interval: where the last interval row ended, from t_first (0: none) */
	struct rb_pace pace; /* --rate_limit: this step's bucket */
	bool stopping;
	struct rb_rate rate;
	/* The step on the library's engine (run/bwstep.h): what it owns, and this side's row. */
	struct rb_bw *b;
	struct bw_result *res;
	bool part_done; /* this side's sends (and --verify's windows) are over */
	/* The clock (see bw_tick()). */
	uint32_t clk_count, clk_stride;
	uint64_t clk_last, hk_next;
	struct rb_turn hk_turn; /* the last housekeeping: a gap of seconds is this side not running */
	/* sending: in send_until_targets (stall bound, -D). */
	bool sending;
	bool polled;      /* the send CQ was polled since the last housekeeping */
	uint64_t beat_ns; /* heartbeat period: 1 s, or a quarter of --timeout when shorter */
	uint64_t last_progress;
	char err[768]; /* a completion error described whole (rb_wc_describe) */
	/* --verify's frames the peer sent that we have not consumed yet. */
	bool have_window, have_verdict;
	struct rb_window peer_window;
	struct rb_verdict peer_verdict;
	struct rb_hist reg_ns, dereg_ns; /* --reg-per-iter: each registration and deregistration */
	unsigned wr_flags;               /* send flags every WR of the step has (IBV_SEND_INLINE or none) */
	struct bw_poster solo;           /* the engine's own thread posting to every QP */
	struct bw_workers *workers;      /* --threads > 1 (threads.c); NULL: solo */
};

/*
 * --threads: the workers' completions and last completion time, read before the
 * engine's clock (so they do not run ahead of it), then what they posted, read after.
 */
static inline void bw_gather_done(struct bw_engine *e, uint64_t now)
{
	uint64_t done = 0, last = e->t_last;

	for (unsigned t = 0; t < e->workers->n; t++) {
		const struct bw_poster *pt = &e->workers->pt[t];
		uint64_t l;

		done += atomic_load_explicit(&pt->pub_done, memory_order_acquire);
		l = atomic_load_explicit(&pt->pub_last, memory_order_relaxed);
		if (l > last)
			last = l;
	}
	if (done > e->done_msgs)
		e->last_progress = now; /* a completion since the last look: as the solo poll stamps it */
	e->done_msgs = done;
	e->t_last = last;
}
static inline void bw_gather_posted(struct bw_engine *e)
{
	uint64_t posted = 0;

	for (unsigned t = 0; t < e->workers->n; t++)
		posted += atomic_load_explicit(&e->workers->pt[t].pub_posted, memory_order_acquire);
	e->posted_msgs = posted;
}

/* The worker posters (0: the engine's own thread posts), and worker t. */
static inline unsigned bw_workers_n(const struct bw_engine *e)
{
	return e->workers ? e->workers->n : 0;
}
static inline struct bw_poster *bw_worker(struct bw_engine *e, unsigned t)
{
	return &e->workers->pt[t];
}

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The send-queue planner of a bandwidth loop: how many WRITEs to post on one QP now
 * and which of them request a completion. Pure arithmetic on counters, so it is
 * tested exhaustively against a simulated send queue and CQ.
 *
 * The one invariant: whenever the planner says "post nothing now" while WRs are
 * outstanding, a signaled WR is among them, so a completion will come and free
 * the queue. Without it a post list and CQ moderation can leave a queue full of
 * unsignaled WRs that never complete (issue 8, defect 2).
 */
#ifndef RB_SENDQ_H
#define RB_SENDQ_H

#include <stdbool.h>
#include <stdint.h>

#define RB_SENDQ_MAX_POST_LIST 64

/* One QP's send queue, counted in WRs from 1 per step. */
struct rb_sendq {
	uint32_t depth;     /* WRs the queue holds (-t) */
	uint32_t post_list; /* WRs chained per post (-l), 1..min(depth, 64) */
	uint32_t sig_every; /* CQ moderation in effect, >= 1 */
	uint64_t target;    /* post WRs 1..target (UINT64_MAX: until stopped) */
	uint64_t posted;    /* highest WR posted */
	uint64_t completed; /* highest WR retired (a signaled completion retires all before it) */
	uint64_t signaled;  /* highest signaled WR posted (0: none) */
	/*
	 * WRs allowed outstanding now, below the depth (0: the depth): -D's bound on what
	 * is in flight when the step stops. It may shrink at any time: when it leaves no
	 * room and no signaled WR is outstanding, one signaled WR goes past it, so a
	 * completion still comes.
	 */
	uint32_t limit;
};

/* What to post now: n WRs posted+1..posted+n; bit i of sig set = WR posted+1+i signaled. */
struct rb_sendq_plan {
	unsigned n;
	uint64_t sig;
};

/* A queue with nothing posted; target 0 (set it before planning). */
void rb_sendq_init(struct rb_sendq *q, uint32_t depth, uint32_t post_list, uint32_t sig_every);

/*
 * The decision. A whole post list is posted when it fits. A WR is signaled when
 * its number is a multiple of sig_every, when it is the target, and when it is the
 * last of a post after which the next post list does not fit while no signaled
 * WR is outstanding. When the queue lacks room for a whole list and no signaled
 * WR is outstanding, the room left is posted as a shorter list.
 */
struct rb_sendq_plan rb_sendq_plan(const struct rb_sendq *q);

/* Records that the plan was posted. */
void rb_sendq_posted(struct rb_sendq *q, const struct rb_sendq_plan *p);

/* Records the completion of signaled WR seq; returns how many WRs it retired. */
uint64_t rb_sendq_complete(struct rb_sendq *q, uint64_t seq);

/*
 * Stops at the next signaled WR (-D ran out): the target becomes the last WR
 * posted when it is signaled or nothing is outstanding, else the one after it.
 */
void rb_sendq_stop(struct rb_sendq *q);

/* Every WR up to the target posted and retired. */
static inline bool rb_sendq_done(const struct rb_sendq *q)
{
	return q->completed >= q->target;
}

/*
 * The most completions one QP's queue can have pending at once with these
 * settings (what its share of the send CQ must hold).
 */
uint32_t rb_sendq_max_signaled(uint32_t depth, uint32_t sig_every);

#endif

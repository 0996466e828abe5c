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
#include "oob/oob.h"
#include "types.h"

struct qstate {
	struct rb_sendq sq;     /* send side, this step */
	bool stalled;           /* RB_TEST_FAULT=stall: posts nothing more this step */
	uint64_t rposted, rgot; /* receives, whole run */
	uint64_t step_rgot;     /* receives, this step */
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
	uint64_t t_step; /* this side's start of the step (after the barrier), on its own clock */
	bool stopping;
	struct rb_rate rate;
	/* --interval: when the one in progress began, the messages done then, the next boundary (0: none). */
	uint64_t ivl_from, ivl_msgs, ivl_next;
	/* The clock (see bw_tick()). */
	uint32_t clk_count, clk_stride;
	uint64_t clk_last, hk_next;
	/* sending: in send_until_targets (stall bound, -D); beat: heartbeats allowed (before our DONE). */
	bool sending, beat;
	bool polled;      /* the send CQ was polled since the last housekeeping */
	uint64_t beat_ns; /* heartbeat period: 1 s, or a quarter of --timeout when shorter */
	uint64_t last_beat, peer_seen, last_progress;
	char err[320];
	/* Frames the peer sent that we have not consumed yet. */
	bool have_done, have_window, have_verdict;
	struct rb_stepend peer_done;
	struct rb_window peer_window;
	struct rb_verdict peer_verdict;
	struct rb_hist reg_ns, dereg_ns; /* --reg-per-iter: each registration and deregistration */
	/*
	 * The send WRs, chained, built once per step (opcode, SGE, length, inline flag):
	 * a post fills in only what changes per message (send.c, bw_post_writes).
	 */
	struct ibv_send_wr wr[RB_SENDQ_MAX_POST_LIST];
	struct ibv_sge sge[RB_SENDQ_MAX_POST_LIST];
	unsigned wr_flags; /* send flags every WR of the step has (IBV_SEND_INLINE or none) */
};

#endif

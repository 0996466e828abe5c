/*
 * The engine's state, shared by its parts: the clock and send loop (engine.c), the
 * receive side (recv.c), the peer's frames and DONE (peer.c) and the --verify
 * windows (verify.c). Nothing outside the engine includes this.
 */
#ifndef RB_RC_WRITE_BW_STATE_H
#define RB_RC_WRITE_BW_STATE_H

#include "engine.h"
#include "fault.h"
#include "hist.h"
#include "msg.h"
#include "sendq.h"
#include "stats.h"

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
	 * a post fills in only what changes per message (engine.c, post_writes).
	 */
	struct ibv_send_wr wr[RB_SENDQ_MAX_POST_LIST];
	struct ibv_sge sge[RB_SENDQ_MAX_POST_LIST];
	unsigned wr_flags; /* send flags every WR of the step has (IBV_SEND_INLINE or none) */
};

/* engine.c: reads the clock, and every 10 ms does the housekeeping; 0 or -errno. */
int bw_clock_read(struct bw_engine *e);

/* After every verbs call (or unit of work) of every loop; 0 or -errno. */
static inline int bw_tick(struct bw_engine *e)
{
	return ++e->clk_count < e->clk_stride ? 0 : bw_clock_read(e);
}

/* engine.c: the sending side's clock starts; its own DONE once it is done. */
void bw_start_sending(struct bw_engine *e);
void bw_own_result(struct bw_engine *e, struct bw_result *res);
/* engine.c: posts and polls until every QP has completed up to its target. */
int bw_send_until_targets(struct bw_engine *e);

/* recv.c: the receives the peer can need, posted on every QP before the first step. */
int bw_recv_init(struct bw_engine *e);
/* recv.c: consumes receive completions (WRITE_WITH_IMM); returns how many, or -errno. */
int bw_service_recv(struct bw_engine *e);

/* peer.c: takes the peer's frames that are waiting (housekeeping); 0 or -errno. */
int bw_peer_poll(struct bw_engine *e);
/*
 * -D: the peer's DONE is due by the duration plus a grace for draining what is in
 * flight (5 s + half of -D) after this side's step began, on this side's clock,
 * whatever the peer keeps doing: -ETIMEDOUT (said) once it is overdue. Housekeeping asks.
 */
int bw_peer_overdue(struct bw_engine *e, uint64_t now);
/* peer.c: waits for *flag (set when the peer's frame came) while keeping receives flowing. */
int bw_wait_for(struct bw_engine *e, const bool *flag, const char *what);
/* peer.c: DONE both ways, the peer's checked, and every WRITE_WITH_IMM of its arrived. */
int bw_exchange_done(struct bw_engine *e, struct bw_result *res);

/* reg.c: a --reg-per-iter step, the source MR made anew for every iteration. */
int bw_run_reg_per_iter(struct bw_engine *e, struct bw_result *res);

/* verify.c: a --verify step, windows in lockstep. */
int bw_run_verified(struct bw_engine *e, struct bw_result *res);

#endif

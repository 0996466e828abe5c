/*
 * The RDMA WRITE bandwidth engine: one measured step (one message size) over a
 * connected rb_conn, with the peer kept in step over the out-of-band channel.
 */
#ifndef RB_RC_WRITE_BW_ENGINE_H
#define RB_RC_WRITE_BW_ENGINE_H

#include "verbs/verbs.h"
#include "measure/measure.h"
#include "oob/oob.h"

#include <stdbool.h>
#include <stdint.h>

/* --interval: one stretch of a step on the sending side's clock, and its sends. */
struct bw_interval {
	uint64_t msgs, bytes;
	uint64_t from_ns, to_ns; /* from the step's first post */
};

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
	uint32_t post_list; /* -l; 0: chosen per size (bw_post_list) */
	bool sending, receiving; /* this side's roles */
	bool imm, verify;
	bool reg_per_iter;  /* the source MR registered anew for every -t messages per QP */
	unsigned slots;     /* target slots per QP (verify windows); 1 otherwise */
	uint32_t timeout_s; /* completion stall / peer silence bound */
};

struct bw_result {
	struct rb_stepend own, peer; /* each side's sending measurement (no CPU figure: NaN) */
	uint64_t msgs, bytes, elapsed_ns;
	double peak_gbps; /* each direction's peak (stats.h, rb_rate), summed; NaN when nothing moved or -N */
	double cpu_pct;   /* this process, user+sys over wall time of the step */
	uint32_t cq_mod;  /* the moderation used for this size (see SIGNAL_BYTES) */
	uint32_t post_list; /* the post list used for this size */
	struct rb_lat_summary reg, dereg; /* --reg-per-iter, this side's (count 0: none) */
};

struct bw_engine;

/* Posts the initial receives (WRITE_WITH_IMM). Call once after rb_conn_exchange. */
struct bw_engine *bw_engine_new(struct rb_conn *c, struct rb_oob *o, const struct bw_cfg *cfg);
void bw_engine_free(struct bw_engine *e);

/*
 * The CQ moderation used for a message size: cq_mod, lowered so that at most 64 MiB
 * are written between two signaled WRs.
 */
uint32_t bw_sig_every(uint32_t cq_mod, uint64_t size);

/*
 * Without -l, messages up to BW_AUTO_LIST_BYTES go in lists of BW_AUTO_LIST (at most
 * the tx depth): there the rate is bound by posting (a doorbell, a lock, a syscall on
 * some providers, per call), not by the wire, and a list fills the send queue with one
 * call. Larger messages are posted one at a time.
 */
#define BW_AUTO_LIST       32u
#define BW_AUTO_LIST_BYTES 8192u
/* The post list used for a message size: post_list (-l) when set, else the rule above. */
uint32_t bw_post_list(uint32_t post_list, uint32_t tx_depth, uint64_t size);

/*
 * Posting: through ibv_wr_* (the extended QP interface: each WRITE built straight
 * into the send queue, no WR list for the provider to walk) on QPs created with these
 * operations, with ibv_post_send where the provider made a plain QP or
 * --old-post-send asks for it.
 */
#define BW_SEND_OPS(imm) (IBV_QP_EX_WITH_RDMA_WRITE | ((imm) ? IBV_QP_EX_WITH_RDMA_WRITE_WITH_IMM : 0))
/* What the header says of it: the interface this side's QPs post through, and why (buf: room). */
const char *bw_post_api(const struct rb_conn *c, bool old_post, char *buf, size_t len);
/* Meta's post_api: ibv_wr, ibv_post_send or mixed. */
const char *bw_post_api_key(const struct rb_conn *c);

/*
 * Receives kept posted per QP for WRITE_WITH_IMM: what the peer can have in flight
 * on a QP (its tx depth), plus one refill batch.
 */
uint32_t bw_rx_depth(uint32_t tx_depth);

/* Runs one step, after both sides passed its barrier. Returns 0 or -errno (cause logged). */
int bw_engine_step(struct bw_engine *e, uint64_t size, struct bw_result *res);

#endif

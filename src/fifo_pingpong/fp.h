/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fifo_pingpong's shared pieces: its options, the NCCL_IB_* defaults it applied, and
 * the state of the run and of the size in progress. The entry points are in the
 * headers of the files above this one: xfer.h (the FIFO, the data WRs, completions,
 * flush), modes.h above it (window 1 ping-pong on the ping-pong engine, window N
 * pipelined bandwidth), and beside main.c env.h (NCCL_IB_*) and output.h (header,
 * rows).
 *
 * Memory, the same on both sides (each is a sender and a receiver in ping-pong).
 * Payloads are in --mem (host or GPU memory); the FIFOs, which the CPU polls and
 * fills, are always in host memory (the connection set's control regions), as in
 * NCCL, where the FIFO lives in host memory and the data in GPU memory:
 *   target region (LOCAL_WRITE | REMOTE_WRITE, + REMOTE_READ with --flush):
 *     [0, data)            receive buffers: window x nreqs slots of the largest size
 *   source region (no remote access):
 *     [0, data)            send payloads, same slots
 *   control target region (host; LOCAL_WRITE | REMOTE_WRITE), slots = --window rounded
 *   up to a power of two (fifo.h):
 *     [fifo_off, +slots x nreqs x 64)   this side's CTS FIFO: the peer, as receiver, writes here
 *     [sizes_off, +slots x 32)          this side's sizes FIFO: the peer, as sender, writes here
 *   control source region (host; no remote access):
 *     [cts_off, +slots x nreqs x 64)    CTS elements staged per slot (unless --cts-inline)
 *     [szs_off, +slots x 32)            sizes arrays staged per slot; then a slot of
 *                                       zeros to clear stale slots
 * QPs: data QPs 0..qps-1 (--qps-per-conn), then the CTS QP (--fifo-tc), all through
 * the connection set; --flush adds a QP connected to itself.
 *
 * --threads N: N independent channels (NCCL's channels), each all of the above: channel
 * t has QPs t(q+1)..t(q+1)+q (its CTS QP last), a send and a receive CQ of its own, its
 * slice of every region (chans.c's layout) and its own flush QP, and is driven by its
 * own thread on each side (a struct fp of its own: channel 0 is the run's, the others
 * copies made at connect).
 */
#ifndef RB_FIFO_PINGPONG_FP_H
#define RB_FIFO_PINGPONG_FP_H

#include "base/base.h"
#include "fifo.h"
#include "run/run.h"
#include "plan.h"
#include "measure/measure.h"
#include "oob/oob.h"

#include <stdbool.h>
#include <stdint.h>

/*
 * fifo_pingpong's own RB_TEST_FAULT kinds, on the receiver, in the clear-to-send
 * element of message N (qp= unused): a wrong tag, address 0, a size past the
 * registered buffer, rkey 0; cts-stop posts no CTS from message N on (the sender
 * must time out); cts-delay holds every CTS 200 us before posting it (qp= and msg=
 * unused: --account must find the time in "cts post"). Named in fp_faults, registered
 * through the tool's struct.
 */
enum {
	FP_FAULT_TAG = RB_FAULT_TOOL,
	FP_FAULT_ADDR,
	FP_FAULT_SIZE,
	FP_FAULT_RKEY,
	FP_FAULT_CTS_STOP,
	FP_FAULT_CTS_DELAY,
};
#define FP_CTS_DELAY_NS 200000

struct fp_acct;

#define TOOL          "fifo_pingpong"
#define STOP_IMM      0xffffffffu /* -D: "no more messages this step" */
#define CTS_SIGNAL    64          /* one CTS write in this many is signaled, so its queue drains */
#define WINDOW_MAX    256         /* the most messages in flight, and FIFO slots */
#define FIFO_TC_UNSET 256u        /* above --fifo-tc's range (0..255) */

/* wr_id: what a send completion is for, and the message (or slot) number. */
enum { WR_DATA = 0, WR_CTS = 1, WR_FLUSH = 2, WR_CLEAR = 3 };
#define WR_ID(kind, n) (((uint64_t)(kind) << 60) | ((n) & ((1ull << 60) - 1)))
#define WR_KIND(id)    ((unsigned)((id) >> 60))

struct fp_opts {
	struct rb_size_opts size;
	struct rb_runlen_opts len;
	uint32_t warmup, window, qps, multi_recv, timeout_s, inline_bytes;
	bool split, cts_inline, flush, verify, histogram, unsorted, explain;
	bool account;   /* --account: each message's time cut at the protocol's events (account.h) */
	const char *ar; /* --adaptive-routing on|off|auto */
	uint64_t ar_threshold;
	uint32_t fifo_tc; /* FIFO_TC_UNSET: the data QPs' traffic class */
	uint32_t threads; /* channels, a thread each (--threads) */
	const char *samples;
	struct rb_sizes sizes;
};

/* The receive side of one direction. */
struct fp_rx {
	uint64_t first;            /* the step's first message */
	uint64_t tail;             /* CTS posted: the next element carries idx tail + 1 */
	uint64_t done;             /* messages completed, in order of idx */
	uint32_t left[WINDOW_MAX]; /* per pending message: completions still to come */
	/* Per QP: messages queued and taken so far (fp.qmsg). */
	uint64_t qhead[PLAN_MAX_QPS], qtail[PLAN_MAX_QPS];
	uint32_t posted[PLAN_MAX_QPS]; /* receives posted and not consumed */
	uint64_t stop;                 /* the message that said STOP (UINT64_MAX: none yet) */
	bool stopped;                  /* ... and every message before it completed */
	bool cts_off;                  /* RB_TEST_FAULT=cts-stop: no more CTS this run */
	uint64_t t_cqe;                /* when the last message completed (its completion found) */
	uint64_t t_cts_hand;           /* --account: when the last CTS write was handed to the NIC */
};

/* The send side of one direction. */
struct fp_tx {
	uint64_t first;                       /* the step's first message */
	uint64_t head;                        /* messages posted: the next CTS awaited has idx head + 1 */
	uint64_t done;                        /* messages whose completions all came */
	uint32_t left[WINDOW_MAX];            /* per message in flight: send completions still to come */
	uint64_t t_post[WINDOW_MAX];          /* when it was posted */
	uint64_t cts_wait_ns;                 /* time spent with room to send and no CTS */
	uint64_t post_cqe_ns;                 /* sum over messages of post -> last send completion */
	uint64_t t_last;                      /* the last completion */
	struct fifo_elem cts[FIFO_MAX_RECVS]; /* the checked CTS of message head */
	uint64_t t_hand; /* --account: when the last message's first WR was handed to the NIC */
	bool have_cts;
};

struct fp {
	struct fp_opts opt;
	struct rb_verbs v;
	struct rb_conn *c;
	struct rb_oob *o;
	struct rb_step *step; /* the ping-pong step in progress: where its interval rows go */
	struct rb_pp pp;
	bool ar;                             /* adaptive routing in effect (auto: on for InfiniBand) */
	struct rb_readflush flush;           /* --flush: a QP connected to itself, on the channel's send CQ */
	char env_list[RB_OPTS_ENV_MAX * 80]; /* the meta's nccl_env: NCCL's variables applied */
	uint64_t data_bytes, fifo_off, sizes_off, cts_off, szs_off;
	uint64_t slot_bytes; /* one request's buffer: the largest size, 64-byte aligned */
	uint64_t size, tag;  /* the size in progress; tags count sizes */
	struct fp_rx rx;
	struct fp_tx tx;
	/*
	 * Per data QP, the messages pending on it in order: a ring of qcap (the messages of
	 * the window one QP can carry at once, rounded up to a power of two) at qmsg + qp x
	 * qcap. The channel's own.
	 */
	uint64_t *qmsg;
	uint32_t qcap;
	uint32_t slots; /* FIFO slots: --window rounded up to a power of two (fifo.h) */
	uint64_t hk_next, last_progress;
	struct rb_turn
	    hk_turn;      /* the last housekeeping: a gap of seconds between two is this side not running */
	uint64_t away_ns; /* those gaps, added up */
	/*
	 * A crew worker's own turns in its channel loop (its thread's CPU time, not the run
	 * thread's), and the absence they credited this step (at most max(--timeout, 30 s)).
	 */
	struct rb_turn loop_turn;
	uint64_t credited;
	uint64_t progressed; /* fp_progress calls: a channel loop looks up every LOOK_PROGRESS of them */
	bool flush_done, clear_done;
	bool pp_mode;         /* window 1: the ping-pong engine's step */
	struct fp_acct *acct; /* --account: this side's stamps (NULL: off) */
	bool cts_hold;        /* RB_TEST_FAULT=cts-delay, looked up once at setup */
	uint64_t echoed;      /* server, ping-pong: round trips echoed this step */
	struct rb_bw *bw;     /* a bandwidth step on the library's engine (run/bwstep.h), in progress */
	struct fp_bw *bw_res;
	bool bw_part_done;
	char err[768]; /* a completion error described whole (rb_wc_describe) */
	uint64_t flushes;
	/* --interval: writes the row of one interval of a ping-pong size (output.c's, set by main.c at
	 * setup). */
	int (*interval_row)(void *arg, const struct rb_pp_result *res, double from_s, double to_s);
	void *row_arg;
	/* The channel this struct drives (--threads; chans.c). */
	unsigned chan;                 /* its number */
	unsigned qp0;                  /* its first QP in c->qp: chan x (qps + 1) */
	struct ibv_cq *scq, *rcq;      /* its own send and receive CQs */
	uint64_t data_off;             /* its slots' start in both payload regions */
	char where[24];                /* "" with one channel, " on channel t" with more (messages) */
	bool worker;                   /* driven by a crew thread: no housekeeping, no out-of-band */
	uint64_t msgs, t_first, t_end; /* a bandwidth step's outcome (modes.c) */
	/* Channel 0's only: the others and their crew (NULL with one channel). */
	struct fp *more; /* opt.threads - 1 */
	struct rb_crew *crew;
	bool client;     /* this side sends in bandwidth mode */
	uint64_t t_stop; /* -D: the sending channels' end, on this side's clock */
};

/* A bandwidth size's figures (modes.c). */
#define FP_MAX_THREADS 64 /* RB_CONN_MAX_SCQ: a send and a receive CQ per channel */

struct fp_bw {
	uint64_t msgs, bytes, elapsed_ns; /* the sender's: messages, payload, first post -> last completion */
	uint64_t cts_wait_ns, post_cqe_ns; /* the sender's own (0 on the receiver) */
	uint64_t send_ns;                  /* the sender's channels' own sending times, summed */
	unsigned threads;                  /* channels */
	uint64_t thread_msgs[FP_MAX_THREADS], thread_ns[FP_MAX_THREADS]; /* the sender's, per channel */
};

#endif

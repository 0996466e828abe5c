/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rc_write_lat's shared pieces: its options, and the state of the run and of the size
 * in progress. The entry points are in the headers of the files above this one:
 * wait.h (the arrival modes and the clock-driven checks), then transport.h (posting,
 * payloads, the engine's callbacks), then main.c (options, header, rows). Below them
 * all, load.h (--load's bulk WRITEs) and account.h (--account's stamps and segments),
 * which know nothing of this state.
 */
#ifndef RB_RC_WRITE_LAT_LAT_H
#define RB_RC_WRITE_LAT_LAT_H

#include "base/base.h"
#include "oob/oob.h"
#include "run/run.h"
#include "measure/measure.h"
#include "load.h"
#include "account.h"

#include <stdbool.h>
#include <stdint.h>

#define SEND_WR     64
#define SIG_EVERY   32
#define RX_DEPTH    64
#define STOP_MARKER 0xff /* duration mode: "no reply, the step is over" */
#define STOP_IMM    0xffffffffu
#define HK_MS       100 /* the clock-driven checks run at most this often */
#define HK_NS       (HK_MS * 1000000ull)
#define SPIN_CLOCK  1023 /* a busy wait reads the clock every 1024 polls */

struct lat_opts {
	struct rb_size_opts size;
	struct rb_runlen_opts len;
	uint32_t warmup, inline_bytes, timeout_s;
	bool imm, event, verify, histogram;
	bool account;              /* --account: each message's time cut at its events (account.h) */
	const char *samples;       /* --samples FILE */
	bool unsorted;             /* -U: the samples on stdout */
	struct lat_load_spec load; /* --load; size 0: none */
	struct rb_sizes sizes;
};

/* Event mode: what the blocking waits of one step (or the whole run) came to. */
struct wakeups {
	uint64_t woke;  /* the channel delivered an event */
	uint64_t empty; /* ... and the CQ held no completion for it */
	uint64_t late;  /* a sleep ran out its HK_MS while a completion sat in the CQ, unannounced */
};

struct lat {
	struct lat_opts opt;
	struct rb_verbs v;
	struct rb_pp pp; /* the engine: loop, clock, statistics */
	struct rb_conn *c;
	struct rb_oob *o;
	struct rb_step *cur;   /* the step in progress: --interval, and where its rows go */
	struct lat_load *load; /* --load (NULL without) */
	bool load_live;        /* the size's loaded measurement is in progress */
	bool text;             /* the table goes to stdout (the header was printed) */
	uint64_t size;
	uint64_t posted, reaped;
	uint64_t rposted, rgot;
	uint64_t iter, total; /* current iteration; total = 0 in duration mode */
	uint64_t echoed;      /* server: the last iteration whose reply was posted */
	uint64_t next_hk;     /* when the clock-driven checks are next due */
	/* Event mode: armed = ibv_req_notify_cq called and no event taken since;
	 * spent = a completion was taken while armed (its event may still be pending). */
	bool armed, spent;
	struct wakeups step, run;
	struct wakeups ivl_base;  /* --interval: the step's counts when the interval began */
	enum rb_fault_kind fault; /* test fault for the message being sent (RB_TEST_FAULT) */
	/* The step's WRITE, built once per step: a post fills in only what changes. */
	struct ibv_send_wr wr;
	struct ibv_sge sge;
	/* --interval: writes the row of one interval of the size in progress (main.c's, set at setup). */
	int (*interval_row)(void *arg, const struct rb_pp_result *res, double from_s, double to_s);
	void *row_arg;
	char err[768];          /* a completion error described whole (rb_wc_describe) */
	struct lat_acct *acct;  /* --account: this side's stamps (NULL: off) */
	uint64_t t_hand, t_ret; /* --account: the last WRITE handed to the NIC, and the call's return */
};

/* 1..254, never 0 (a cleared buffer) and never the stop marker. */
static inline uint8_t lat_marker(uint64_t i)
{
	return (uint8_t)(i % 254 + 1);
}

/* The immediate of message i: its low 32 bits, skipping STOP_IMM when they wrap. */
static inline uint32_t lat_imm(uint64_t i)
{
	return (uint32_t)(i % STOP_IMM);
}

/*
 * With --verify, messages alternate between two slots of each buffer, so a side
 * fills the next message and checks the last one while the peer's reply, or its
 * next message, is on the wire. Without it there is one slot, as in ib_write_lat.
 */
static inline unsigned lat_nslots(const struct lat_opts *o)
{
	return o->verify ? 2 : 1;
}

static inline size_t lat_slot(const struct lat *l, uint64_t i)
{
	return l->opt.verify ? (size_t)(i & 1) * l->size : 0;
}

#endif

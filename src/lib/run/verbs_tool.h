/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The verbs half of a tool on the run driver (run.h): the device, QP and memory
 * options, the connection set built from them (conn.h), and their meta fields.
 * A verbs tool holds one; a TCP tool has none.
 */
#ifndef RB_VERBS_TOOL_H
#define RB_VERBS_TOOL_H

#include "verbs/verbs.h"
#include "report/report.h"
#include "driver.h"

struct rb_verbs {
	struct rb_dev_opts dev;
	struct rb_qp_opts qp;
	struct rb_mem_opts mem;
	struct rb_conn conn;
	bool have_conn;
	struct rb_cm cm; /* -R */
	/*
	 * rb_verbs_rails, set by rb_verbs_default: --all-pairs reaches the devices through
	 * this pointer, so that a tool without verbs links no verbs code (socket_bw starts
	 * on a host without libibverbs).
	 */
	int (*rails)(const struct rb_verbs *v, char (*out)[RB_RAIL_NAME]);
};

void rb_verbs_default(struct rb_verbs *v);
/* Fills out[] with the device, QP and memory tables; returns how many (3). */
unsigned rb_verbs_opt_tables(struct rb_verbs *v, struct rb_opt_table *out);
/*
 * Cross-option checks of the memory options and of the inline size this side sends
 * with (0 on a side that sends nothing); the tool's check calls it.
 */
int rb_verbs_check(struct rb_verbs *v, uint32_t inline_bytes);
/* Local verbs objects before the peer is contacted (a wrong -d fails now). */
int rb_verbs_setup(struct rb_verbs *v, const struct rb_conn_cfg *cfg);
/* QPINFO both ways, every QP to RTS; -EPROTO (a stranger) only before any QP moved. */
int rb_verbs_connect(struct rb_verbs *v, const struct rb_run *r, size_t need_remote);
void rb_verbs_teardown(struct rb_verbs *v);
/*
 * The meta fields of everything that changes a number: device, port, link layer,
 * speed, GID, MTU, memory, NUMA node, registration time, every QP attribute (SL,
 * traffic class, hop limit, P_Key index, timeouts, retries) and the QP numbers.
 */
void rb_verbs_meta(const struct rb_verbs *v, struct rb_row *m);
/* --all-pairs: the rails (rb_dev_rails); the struct's rails. */
int rb_verbs_rails(const struct rb_verbs *v, char (*out)[RB_RAIL_NAME]);

#endif

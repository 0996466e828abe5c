/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The triage's record: each step's layer, verdict and evidence, said as it is found
 * (text: a line per step at once, so a slow step is never silence), then one
 * conclusion line naming the first failed layer and what to check next. --json
 * prints one document at the end instead: each step its layer, the check it made,
 * its verdict, the facts it judged as typed members and its sentence as "text".
 */
#ifndef RB_RDMA_DOCTOR_WALK_H
#define RB_RDMA_DOCTOR_WALK_H

#include "doctor.h"

#include <stdbool.h>
#include <stdint.h>

#define DR_WALK_STEPS 24

struct dr_step {
	enum dr_verdict v;
	char layer[16], check[24];
	char evidence[768];
	FILE *facts; /* --json: the members dr_walk_facts wrote, in facts_buf */
	char *facts_buf;
	size_t facts_len;
	struct dr_json j;
};

struct dr_walk {
	struct dr_step s[DR_WALK_STEPS];
	unsigned n;
	bool failed, json;
	bool kept;           /* the last step was kept (not past DR_WALK_STEPS) */
	char next[192];      /* the failed layer's next thing to check */
	struct dr_json none; /* the facts of a step not kept: written nowhere */
	const char *peer;
	unsigned port, bound_s;
	uint64_t t0;
};

void dr_walk_begin(struct dr_walk *w, const char *peer, unsigned port, unsigned bound_s, bool json);
/* A step: its layer, the check it made (a short name, as "mtu"), its verdict and sentence. */
void dr_walk_add(struct dr_walk *w, enum dr_verdict v, const char *layer, const char *check, const char *fmt,
                 ...) __attribute__((format(printf, 5, 6)));
/* The layer failed: the walk ends after this step. */
void dr_walk_fail(struct dr_walk *w, const char *layer, const char *check, const char *next, const char *fmt,
                  ...) __attribute__((format(printf, 5, 6)));
/* The facts of the step just added: a writer of members into its JSON object. */
struct dr_json *dr_walk_facts(struct dr_walk *w);
/* The conclusion (text) or the document (--json). */
void dr_walk_end(struct dr_walk *w);

#endif

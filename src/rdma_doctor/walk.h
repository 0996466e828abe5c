/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The triage's record: each step's layer, verdict and evidence, said as it is found
 * (text: a line per step at once, so a slow step is never silence), then one
 * conclusion line naming the first failed layer and what to check next. --json
 * prints one document at the end instead.
 */
#ifndef RB_DOCTOR_WALK_H
#define RB_DOCTOR_WALK_H

#include "doctor.h"

#include <stdbool.h>
#include <stdint.h>

#define DR_WALK_STEPS 24

struct dr_step {
	enum dr_verdict v;
	char layer[16];
	char evidence[768];
};

struct dr_walk {
	struct dr_step s[DR_WALK_STEPS];
	unsigned n;
	bool failed, json;
	char next[192]; /* the failed layer's next thing to check */
	const char *peer;
	unsigned port, bound_s;
	uint64_t t0;
};

void dr_walk_begin(struct dr_walk *w, const char *peer, unsigned port, unsigned bound_s, bool json);
void dr_walk_add(struct dr_walk *w, enum dr_verdict v, const char *layer, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The layer failed: the walk ends after this step. */
void dr_walk_fail(struct dr_walk *w, const char *layer, const char *next, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* The conclusion (text) or the document (--json). */
void dr_walk_end(struct dr_walk *w);

#endif

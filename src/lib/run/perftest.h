/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * perftest's options that a verbs tool takes with perftest's meaning, so that a command
 * line written for ib_write_bw runs unchanged and means what it means there: -c RC,
 * --report_gbits, --out_json and --out_json_file (perftest's JSON layout, beside our own
 * --json), -W/--report-counters, --perform_warm_up and --source_ip. Its
 * dialect (base/opts.h): the spellings of options these tools have under another name
 * are aliases; the few perftest options that make no sense here are refused with what
 * to use.
 */
#ifndef RB_PERFTEST_H
#define RB_PERFTEST_H

#include "base/base.h"

#include <stdbool.h>

struct rb_out_opts;
struct rb_dev_opts;
struct rb_gate_opts;

struct rb_perftest_opts {
	const char *connection; /* -c: "RC" (checked) */
	bool report_gbits;      /* --report_gbits: the table's bandwidth in Gb/sec, perftest's header */
	bool out_json; /* --out_json: perftest's JSON layout to perftest_out.json (or --out_json_file) */
	const char *out_json_file; /* --out_json_file: where perftest's JSON layout goes */
	double limit_bw;           /* -w: a gate on the bandwidth, in the table's unit (0: none) */
	double limit_msgrate;      /* -y: a gate on the message rate, Mpps (0: none) */
	const char *counters;      /* -W: accepted; every row has the port's counters */
	bool warm_up;              /* --perform_warm_up: an untimed pass of the first size first */
	const char *source_ip;     /* --source_ip: the GID that carries this address */
	char range[64];            /* --source_ip as a --gid-range */
};

/* perftest's spellings of our options (the suite's house spellings: socket_bw takes them too). */
extern const struct rb_opt_alias rb_perftest_aliases[];

/* perftest's options a verbs tool takes; the table speaks perftest's dialect. */
struct rb_opt_table rb_perftest_opt_table(struct rb_perftest_opts *o);
/*
 * After parsing: --report_gbits as --units Gb/sec (refused beside another --units),
 * --out_json's file, -w and -y as gates (in the table's unit), --source_ip as dev's --gid-range (refused
 * beside
 * --gid-range or -x). Returns 0 or -EINVAL (said).
 */
int rb_perftest_apply(struct rb_perftest_opts *o, const struct rb_opts_given *given, struct rb_out_opts *out,
                      struct rb_gate_opts *gate, struct rb_dev_opts *dev);

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * --all-pairs: one process per node, started by mpirun or srun, measures every pair
 * of a schedule (schedule.h) with the tool's own two-sided run; rank 0 gathers one
 * document, prints the N x N matrix and names the slow pairs and the suspect nodes.
 *
 *   every rank: launcher (launch.h) -> its pair listener -> the addresses all-gathered
 *   -> JOIN to the coordinator -> per round { GO, its pair (server or client), ROWs,
 *   END } -> exit code
 *   rank 0 also forks the coordinator (coord.h) before the exchange: a process of its
 *   own, so it can answer every rank while rank 0 measures.
 */
#ifndef RB_JOB_H
#define RB_JOB_H

#include "run/run.h"

#include <stdbool.h>

struct rb_tool;
struct rb_run;
struct rb_fabric_opts;
/* The whole --all-pairs run of this rank (the options parsed into r and fab); returns the exit code. */
int rb_fabric_main(const struct rb_tool *tool, void *t, struct rb_run *r, struct rb_fabric_opts *fab);

/*
 * A tool's main: the two-sided run (or a persistent server's runs) on the run
 * driver, or with --all-pairs this rank's part of the job. Returns the process exit
 * code (0, 1, 2, 128 + signal).
 */
int rb_main(const struct rb_tool *tool, void *t, int argc, char **argv);

#endif

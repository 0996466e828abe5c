/* SPDX-License-Identifier: BSD-2-Clause */
/* The triage's children: the suite's own tools, bounded, and their CSV read back. */
#ifndef RB_RDMA_DOCTOR_SPAWN_H
#define RB_RDMA_DOCTOR_SPAWN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* argv[0] is the tool's name. stdout goes nowhere, stderr to err_path (NULL: ours). -1: fork failed. */
pid_t dr_spawn(char *const argv[], const char *err_path);
/* Whether name is an executable on PATH. */
bool dr_in_path(const char *name);
/* SIGTERM to its process group, 2 s, SIGKILL; reaped. */
void dr_spawn_stop(pid_t pid);
/* The exit code (128 + signal when killed), or -1 with *timed_out after bound_s (then stopped). */
int dr_spawn_wait(pid_t pid, unsigned bound_s, bool *timed_out);
/* A children's scratch directory removed, whatever they left in it (a warning when it stays). */
void dr_remove_dir(const char *dir);
/* Spawn and wait; first_err: the first line of its stderr that is not a warning, or why it did not run. */
int dr_run_tool(char *const argv[], unsigned bound_s, const char *err_path, char *first_err, size_t len);

#define DR_CSV_ROWS 16
#define DR_CSV_COLS 96

struct dr_csv {
	char head[4096];
	char *col[DR_CSV_COLS];
	unsigned ncols, nrows;
	char line[DR_CSV_ROWS][4096];
	char *cell[DR_CSV_ROWS][DR_CSV_COLS];
};

/* A document's rows (the last may be the error row of an incomplete run); -errno. */
int dr_csv_read(const char *path, struct dr_csv *c);
/* A cell by column name; "" when absent. */
const char *dr_csv_get(const struct dr_csv *c, unsigned row, const char *col);
/* A numeric cell; -1 when absent or not a number. */
double dr_csv_num(const struct dr_csv *c, unsigned row, const char *col);

#endif

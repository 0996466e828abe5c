/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The launcher binding: this process's rank and the job's size, and an all-gather
 * of one short string per rank, through PMIx, which both Open MPI's mpirun and
 * Slurm's srun (--mpi=pmix) serve. PMIx is optional at build time (Meson finds
 * libpmix through pkg-config); without it --all-pairs says so and exits 2.
 */
#ifndef RB_LAUNCH_H
#define RB_LAUNCH_H

#include <stdbool.h>
#include <stdint.h>

/* The longest string a rank publishes (address, device, host). */
#define RB_LAUNCH_VAL_LEN 256

struct rb_world {
	uint32_t rank, size;
	bool up;
};

/* Whether this build has a launcher binding at all. */
bool rb_launch_available(void);
/*
 * Joins the job the launcher started. -ENOTSUP (no binding in this build) or
 * -ENOENT (not started by a PMIx launcher) are usage errors, logged here.
 */
int rb_launch_init(struct rb_world *w);
/*
 * Publishes mine under key and returns every rank's value (out: size strings of
 * RB_LAUNCH_VAL_LEN, rank order). Collective: every rank calls it once per key, and
 * waits at most timeout_s for the others (-ETIMEDOUT, said).
 */
int rb_launch_allgather(struct rb_world *w, const char *key, const char *mine, char (*out)[RB_LAUNCH_VAL_LEN],
                        unsigned timeout_s);
void rb_launch_fini(struct rb_world *w);

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * PCIe relaxed ordering for the data buffers' registrations
 * (IBV_ACCESS_RELAXED_ORDERING): requested by default, as perftest and NCCL do, so
 * the NIC's writes to memory may pass each other where the root complex allows it.
 * The flag is optional: rdma-core drops it where the kernel has no optional access
 * flags, and a device that cannot use it ignores it. Off with --disable-pcie-relaxed,
 * or where a registration with the flag is refused (EINVAL, EOPNOTSUPP).
 */
#ifndef RB_RELAXED_H
#define RB_RELAXED_H

#include <infiniband/verbs.h>
#include <stdbool.h>

struct rb_relaxed {
	bool on;
	const char *why;
};

/* The choice from the option and the probe registration's errno (0: it worked). */
void rb_relaxed_decide(bool disabled, int probe_err, struct rb_relaxed *out);
/* Registers one page of host memory with the flag to find out, then decides. */
void rb_relaxed_choose(struct ibv_pd *pd, bool disabled, struct rb_relaxed *out);
/* IBV_ACCESS_RELAXED_ORDERING when on, else 0. */
unsigned rb_relaxed_access(const struct rb_relaxed *r);

#endif

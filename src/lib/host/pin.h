/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * CPU placement: the process runs on the CPUs of the NIC's NUMA node, where its
 * buffers are, so that the polling thread never reaches across the socket
 * interconnect for a completion or a payload. A process whose affinity is already
 * narrower than the machine (taskset, numactl --cpunodebind, a batch scheduler's
 * binding, a container's cpuset) is left alone.
 */
#ifndef RB_PIN_H
#define RB_PIN_H

#include <stdio.h>

enum rb_pin_state {
	RB_PIN_NODE,    /* pinned to the node's CPUs */
	RB_PIN_CALLER,  /* the affinity was already narrower than the machine (taskset, a cpuset): kept */
	RB_PIN_UNKNOWN, /* no node to pin to (the kernel does not know the device's) */
	RB_PIN_FAILED,  /* the node has no CPUs, or the kernel refused: not pinned (a warning) */
};

struct rb_pin {
	enum rb_pin_state state;
	int node;
	char cpus[128]; /* the CPUs the process runs on now, as a list ("0-3,8") */
};

/*
 * Pins every thread of the process to node's CPUs (node < 0: none), unless the
 * caller narrowed the affinity before. Never fails the run.
 */
void rb_pin_to_node(struct rb_pin *p, int node);
/*
 * The nth CPU (counted from 0, wrapping) of those the calling thread may run on now
 * (after rb_pin_to_node: the device's node's), for a thread of its own; or -errno.
 */
int rb_pin_nth_cpu(unsigned nth);
/* The header line. */
void rb_pin_describe(const struct rb_pin *p, FILE *f);

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Buffers and memory registration. Host buffers are page-aligned and placed on the
 * device's NUMA node; GPU buffers (gpu.h) are device memory registered through
 * nvidia_peermem (ibv_reg_mr) or as a dma-buf (ibv_reg_dmabuf_mr). Registration
 * asks for the least access the test needs and is timed.
 *
 * The CPU never touches GPU memory directly: a buffer's `addr` is what the NIC uses
 * (a device address for GPU memory), and code that fills or checks payloads works
 * on its host view (rb_buf_view) and copies it across with rb_buf_push/rb_buf_pull,
 * which are free for host memory.
 */
#ifndef RB_MEM_H
#define RB_MEM_H

#include "gpu/gpu.h"
#include "base/base.h"

#include <infiniband/verbs.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum rb_mem_kind {
	RB_MEM_HOST,
	RB_MEM_CUDA,        /* cuMemAlloc + ibv_reg_mr: the nvidia_peermem path */
	RB_MEM_CUDA_DMABUF, /* cuMemAlloc + dma-buf fd + ibv_reg_dmabuf_mr */
};

/* --use-cuda[=N], --use-cuda-dmabuf[=N]: asked for, and which GPU (-1: not said). */
struct rb_gpu_pick {
	bool on;
	int index;
};

struct rb_mem_opts {
	bool hugepages; /* --hugepages: the default huge page size, via MAP_HUGETLB */
	int numa_node;  /* --numa-node: -1 = the device's node */
	int named;      /* --mem KIND; -1: not given */
	struct rb_gpu_pick cuda, dmabuf;
	const char *bus_id; /* --use-cuda-bus-id */
	bool no_relaxed;    /* --disable-pcie-relaxed (relaxed.h) */
	int dmabuf_map;     /* --dmabuf-mapping: enum rb_dmabuf_ask */
	/* Set by rb_mem_opts_resolve from the above. */
	enum rb_mem_kind kind;
	int gpu;
};

void rb_mem_opts_default(struct rb_mem_opts *o);
struct rb_opt_table rb_mem_opt_table(struct rb_mem_opts *o);
/* The memory kind and GPU from the options, in whatever order they came; -EINVAL on a contradiction. */
int rb_mem_opts_resolve(struct rb_mem_opts *o);
const char *rb_mem_kind_name(enum rb_mem_kind k);

struct rb_buf {
	enum rb_mem_kind kind;
	void *addr;     /* the NIC's address: a device address for GPU memory, host-page aligned */
	uintptr_t base; /* GPU memory: what cuMemAlloc returned (addr, or up to a page below) */
	void *view;     /* the host view: addr for host memory; a host copy for GPU memory, or NULL */
	size_t len;     /* what was asked for */
	size_t map_len; /* what was mapped */
	size_t huge;    /* the huge page size it is made of, 0: normal pages */
	int numa_node;  /* where it was bound, -1 = not bound */
};

/* node: -1 leaves placement to the kernel. GPU memory when o->kind says so (resolved). */
int rb_buf_alloc(struct rb_buf *b, size_t len, const struct rb_mem_opts *o, int dev_node);
void rb_buf_free(struct rb_buf *b);

/* The host view of [off, off + len): the buffer itself for host memory. NULL: out of memory. */
uint8_t *rb_buf_view(struct rb_buf *b, size_t off);
/*
 * Host view -> buffer (after filling) and buffer -> host view (before checking); 0 or
 * -EIO. For GPU memory, rb_buf_pull first makes the NIC's writes visible to the copy
 * (rb_gpu_flush_writes): whatever it copies out is what arrived.
 */
int rb_buf_push(const struct rb_buf *b, size_t off, size_t len);
int rb_buf_pull(const struct rb_buf *b, size_t off, size_t len);
/* A dma-buf fd for the GPU buffer's pages, *r the range exported; -errno. The caller closes it. */
int rb_buf_dmabuf(const struct rb_buf *b, struct rb_dmabuf_range *r);
/* Zeroes [off, off + len) where the NIC sees it. */
int rb_buf_zero(struct rb_buf *b, size_t off, size_t len);

struct rb_mr {
	struct ibv_mr *mr;
	double reg_us; /* how long the registration took (dma-buf: export and ibv_reg_dmabuf_mr) */
	size_t pinned; /* whole pages registered: charged to RLIMIT_MEMLOCK */
};

/*
 * access: e.g. 0 for a send source, LOCAL_WRITE|REMOTE_WRITE for a write target.
 * A registration refused by RLIMIT_MEMLOCK is a host configuration error (exit 2):
 * the message names the bytes needed, the limit and how to raise it.
 */
int rb_mr_reg(struct ibv_pd *pd, const struct rb_buf *b, unsigned access, struct rb_mr *out);
/* As rb_mr_reg, for a buffer this run registered before: a failure is the run's (exit 1). */
int rb_mr_reg_again(struct ibv_pd *pd, const struct rb_buf *b, unsigned access, struct rb_mr *out);
/* Deregisters; returns how long ibv_dereg_mr took, in microseconds. */
double rb_mr_dereg_timed(struct rb_mr *m);
void rb_mr_dereg(struct rb_mr *m);
/* This process may pin any amount (CAP_IPC_LOCK, as root usually has). */
bool rb_memlock_unlimited(void);
/* "LOCAL_WRITE|REMOTE_WRITE" or "none"; buf >= 96 bytes. */
const char *rb_access_fmt(unsigned access, char *buf, unsigned len);

#endif

/*
 * Buffers and memory registration. Host buffers are page-aligned and placed on the
 * device's NUMA node; registration asks for the least access the test needs and is
 * timed. (GPU memory plugs in here as another buffer kind.)
 */
#ifndef RB_MEM_H
#define RB_MEM_H

#include "opts.h"

#include <infiniband/verbs.h>
#include <stdbool.h>
#include <stddef.h>

struct rb_mem_opts {
	bool hugepages; /* --hugepages: 2 MiB pages via MAP_HUGETLB */
	int numa_node;  /* --numa-node: -1 = the device's node */
};

void rb_mem_opts_default(struct rb_mem_opts *o);
struct rb_opt_table rb_mem_opt_table(struct rb_mem_opts *o);

struct rb_buf {
	void *addr;
	size_t len;     /* what was asked for */
	size_t map_len; /* what was mapped */
	bool huge;
	int numa_node; /* where it was bound, -1 = not bound */
};

/* node: -1 leaves placement to the kernel. */
int rb_buf_alloc(struct rb_buf *b, size_t len, const struct rb_mem_opts *o, int dev_node);
void rb_buf_free(struct rb_buf *b);

struct rb_mr {
	struct ibv_mr *mr;
	double reg_us; /* how long ibv_reg_mr took */
	size_t pinned; /* whole pages registered: charged to RLIMIT_MEMLOCK */
};

/*
 * access: e.g. 0 for a send source, LOCAL_WRITE|REMOTE_WRITE for a write target.
 * A registration refused by RLIMIT_MEMLOCK is a host configuration error (exit 2):
 * the message names the bytes needed, the limit and how to raise it.
 */
int rb_mr_reg(struct ibv_pd *pd, const struct rb_buf *b, unsigned access, struct rb_mr *out);
void rb_mr_dereg(struct rb_mr *m);
/* "LOCAL_WRITE|REMOTE_WRITE" or "none"; buf >= 96 bytes. */
const char *rb_access_fmt(unsigned access, char *buf, unsigned len);

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * mlx5 Data Direct: a NIC function that reaches GPU memory over its own PCIe path
 * (Grace systems, where the CPU's path to the GPU is the C2C link). rdma-core has
 * it in libmlx5 since version 54; it is loaded at run time, so that a build against
 * an older rdma-core and a host without libmlx5 both work, without it.
 */
#ifndef RB_DATADIRECT_H
#define RB_DATADIRECT_H

#include <infiniband/verbs.h>
#include <stddef.h>
#include <stdint.h>

/* 1: the NIC has a Data Direct interface (its sysfs path in path), 0: not, or no libmlx5 that asks. */
int rb_data_direct(struct ibv_context *ctx, char *path, size_t len);
/* ibv_reg_dmabuf_mr through the Data Direct interface; NULL with errno set (ENOSYS: libmlx5 cannot). */
struct ibv_mr *rb_data_direct_reg_dmabuf(struct ibv_pd *pd, uint64_t off, size_t len, uint64_t iova, int fd,
                                         int access);

#endif

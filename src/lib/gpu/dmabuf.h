/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The dma-buf export of GPU memory, decided by pure functions: which host-page range
 * of an allocation to export for a buffer, and which mapping type to ask the driver
 * for. gpu.c and mem.c act on the answers.
 */
#ifndef RB_DMABUF_H
#define RB_DMABUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* [start, start + len): what cuMemGetHandleForAddressRange is given. */
struct rb_dmabuf_range {
	uint64_t start;
	size_t len;
};

/*
 * The range for a buffer of len bytes placed in the allocation [alloc, alloc +
 * alloc_len): start is the first host page boundary at or after alloc (where the
 * buffer then begins), len is the buffer rounded up to whole pages. 0, or -ERANGE
 * when that range would end past the allocation (the allocation needs a page of
 * padding), -EINVAL for len 0 or a page size that is not a power of two.
 */
int rb_dmabuf_range(uint64_t alloc, size_t alloc_len, size_t len, size_t page, struct rb_dmabuf_range *r);

/* --dmabuf-mapping: what the user asked for. */
enum rb_dmabuf_ask { RB_DMABUF_ASK_AUTO, RB_DMABUF_ASK_PCIE, RB_DMABUF_ASK_DEFAULT };

/*
 * Whether to ask for CU_MEM_RANGE_FLAG_DMA_BUF_MAPPING_TYPE_PCIE. Asked for: always
 * PCIe (pcie) or never (default). auto does what NCCL does: PCIe only for a NIC with
 * a Data Direct DMA interface (the mlx5 path that reaches GPU memory over PCIe on
 * Grace systems, where the default mapping goes through the C2C link), on a CUDA
 * 12.8 or later driver, unless NCCL_IB_DATA_DIRECT is 0 (nccl_env: its value or
 * NULL). *why says what decided, for the header.
 */
bool rb_dmabuf_pcie(enum rb_dmabuf_ask ask, int driver_version, bool data_direct, const char *nccl_env,
                    const char **why);

#endif

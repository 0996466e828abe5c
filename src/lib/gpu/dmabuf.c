/* SPDX-License-Identifier: BSD-2-Clause */
#include "dmabuf.h"

#include <errno.h>
#include <string.h>

/* The first driver that knows the PCIe mapping type (CUDA 12.8). */
#define PCIE_MAPPING_DRIVER 12080

int rb_dmabuf_range(uint64_t alloc, size_t alloc_len, size_t len, size_t page, struct rb_dmabuf_range *r)
{
	uint64_t start, end;

	if (!len || !page || (page & (page - 1)))
		return -EINVAL;
	/*
	 * The driver exports whole host pages, each inside the allocation: rounding the
	 * start down would reach before the allocation, rounding the end of an unaligned
	 * buffer up would reach past it. So the buffer starts on a page boundary.
	 */
	start = (alloc + page - 1) & ~(uint64_t)(page - 1);
	end = start + ((len + page - 1) & ~(uint64_t)(page - 1));
	if (start < alloc || end < start || end > alloc + alloc_len)
		return -ERANGE;
	r->start = start;
	r->len = (size_t)(end - start);
	return 0;
}

bool rb_dmabuf_pcie(enum rb_dmabuf_ask ask, int driver_version, bool data_direct, const char *nccl_env,
                    const char **why)
{
	if (ask != RB_DMABUF_ASK_AUTO) {
		*why = "--dmabuf-mapping";
		return ask == RB_DMABUF_ASK_PCIE;
	}
	if (!data_direct) {
		*why = "the NIC has no Data Direct interface";
		return false;
	}
	if (nccl_env && !strcmp(nccl_env, "0")) {
		*why = "NCCL_IB_DATA_DIRECT=0";
		return false;
	}
	if (driver_version < PCIE_MAPPING_DRIVER) {
		*why = "the NIC has a Data Direct interface, but the driver predates CUDA 12.8";
		return false;
	}
	*why = "the NIC has a Data Direct interface, as NCCL";
	return true;
}

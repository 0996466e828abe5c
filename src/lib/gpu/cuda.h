/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The CUDA driver API, loaded at run time: dlopen("libcuda.so.1") and dlsym of the
 * few entry points the tools use. The types and constants below are the driver's
 * ABI, declared here so that nothing needs CUDA headers or CUDA at build time. A
 * host without the driver, or a driver without an entry point, is a clear error
 * when GPU memory is asked for, never a crash and never a build failure.
 */
#ifndef RB_CUDA_H
#define RB_CUDA_H

#include <stdbool.h>
#include <stddef.h>

typedef int rb_cu_result;               /* CUresult: 0 = CUDA_SUCCESS */
typedef int rb_cu_device;               /* CUdevice */
typedef struct rb_cu_ctx_st *rb_cu_ctx; /* CUcontext */
typedef unsigned long long rb_cu_ptr;   /* CUdeviceptr */

#define RB_CU_ATTR_PCI_BUS_ID         33  /* CU_DEVICE_ATTRIBUTE_PCI_BUS_ID */
#define RB_CU_ATTR_GPU_DIRECT_RDMA    116 /* CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED */
#define RB_CU_ATTR_FLUSH_OPTIONS      117 /* CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS */
#define RB_CU_ATTR_WRITES_ORDERING    118 /* CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WRITES_ORDERING */
#define RB_CU_ATTR_DMA_BUF_SUPPORTED  124 /* CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED */
#define RB_CU_POINTER_SYNC_MEMOPS     6   /* CU_POINTER_ATTRIBUTE_SYNC_MEMOPS */
#define RB_CU_RANGE_HANDLE_DMA_BUF_FD 1   /* CU_MEM_RANGE_HANDLE_TYPE_DMA_BUF_FD */
#define RB_CU_RANGE_FLAG_PCIE         1   /* CU_MEM_RANGE_FLAG_DMA_BUF_MAPPING_TYPE_PCIE (CUDA 12.8) */
#define RB_CU_FLUSH_OPTION_HOST       1   /* CU_FLUSH_GPU_DIRECT_RDMA_WRITES_OPTION_HOST */
#define RB_CU_ORDERING_OWNER          100 /* CU_GPU_DIRECT_RDMA_WRITES_ORDERING_OWNER (NONE is 0) */
#define RB_CU_FLUSH_TARGET_CTX        0   /* CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TARGET_CURRENT_CTX */
#define RB_CU_FLUSH_TO_OWNER          100 /* CU_FLUSH_GPU_DIRECT_RDMA_WRITES_TO_OWNER */

struct rb_cuda {
	bool standin; /* the test suite's stand-in library (it exports rb_standin_cuda) */
	rb_cu_result (*init)(unsigned flags);
	rb_cu_result (*driver_version)(int *v);
	rb_cu_result (*device_count)(int *n);
	rb_cu_result (*device_get)(rb_cu_device *d, int ordinal);
	rb_cu_result (*device_by_bus_id)(rb_cu_device *d, const char *bus_id);
	rb_cu_result (*device_bus_id)(char *bus_id, int len, rb_cu_device d);
	rb_cu_result (*device_name)(char *name, int len, rb_cu_device d);
	rb_cu_result (*device_attr)(int *v, int attr, rb_cu_device d);
	rb_cu_result (*ctx_retain)(rb_cu_ctx *c, rb_cu_device d);
	rb_cu_result (*ctx_set_current)(rb_cu_ctx c);
	rb_cu_result (*mem_alloc)(rb_cu_ptr *p, size_t len);
	rb_cu_result (*mem_free)(rb_cu_ptr p);
	rb_cu_result (*memset_d8)(rb_cu_ptr p, unsigned char v, size_t len);
	rb_cu_result (*copy_htod)(rb_cu_ptr dst, const void *src, size_t len);
	rb_cu_result (*copy_dtoh)(void *dst, rb_cu_ptr src, size_t len);
	rb_cu_result (*pointer_set_attr)(const void *v, int attr, rb_cu_ptr p);
	rb_cu_result (*error_string)(rb_cu_result r, const char **s);
	rb_cu_result (*error_name)(rb_cu_result r, const char **s);
	/* NULL on drivers before CUDA 11.7: no dma-buf export. */
	rb_cu_result (*get_handle)(void *handle, rb_cu_ptr p, size_t len, int type, unsigned long long flags);
	/* NULL on drivers before CUDA 11.3: no cuFlushGPUDirectRDMAWrites. */
	rb_cu_result (*flush_writes)(int target, int scope);
};

/*
 * The driver, loaded once per process; NULL after printing why it cannot be
 * ("libcuda.so.1 not found ...", "libcuda.so.1 has no cuMemAlloc_v2 ...").
 */
const struct rb_cuda *rb_cuda_load(void);

/* "CUDA_ERROR_OUT_OF_MEMORY (out of memory)"; buf >= 160 bytes. */
const char *rb_cuda_strerror(const struct rb_cuda *cu, rb_cu_result r, char *buf, size_t len);

#endif

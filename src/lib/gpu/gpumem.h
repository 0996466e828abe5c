/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * GPU memory for the RDMA tools (--use-cuda, --use-cuda-dmabuf): the chosen GPU and
 * what was found out about it before anything was registered (GPU count, PCI bus
 * id, DMA_BUF_SUPPORTED, nvidia_peermem, the NIC's dma-buf support, the PCIe path
 * between GPU and NIC), allocation with SYNC_MEMOPS set, the host copies --verify
 * needs, and the dma-buf export. One GPU per process, chosen once.
 */
#ifndef RB_GPUMEM_H
#define RB_GPUMEM_H

#include "cuda.h"
#include "dmabuf.h"
#include "host/host.h"

#include <infiniband/verbs.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct rb_row;

/* How the NIC's writes to GPU memory are made visible before the CPU copies them out. */
enum rb_gpu_flush {
	RB_GPU_FLUSH_NOT_NEEDED,  /* the GPU orders them for its own copies (ORDERING >= OWNER) */
	RB_GPU_FLUSH_DRIVER,      /* cuFlushGPUDirectRDMAWrites before every copy that checks them */
	RB_GPU_FLUSH_UNAVAILABLE, /* not ordered, and the driver cannot flush */
};

struct rb_gpu_report {
	int count, index;
	char bus_id[32], name[96];
	int driver_version; /* 12040 = CUDA 12.4 */
	int dmabuf_attr;    /* DMA_BUF_SUPPORTED: 1, 0, or -1 unknown */
	int gdr_attr;       /* GPU_DIRECT_RDMA_SUPPORTED: 1, 0, or -1 unknown */
	int flush_opts;     /* GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS: a bitmask, -1 unknown */
	int ordering;       /* GPU_DIRECT_RDMA_WRITES_ORDERING: 0, 100, 200, -1 unknown */
	enum rb_gpu_flush flush;
	unsigned long long flushes; /* cuFlushGPUDirectRDMAWrites calls */
	const char *peermem;        /* the sysfs file that shows a peer-memory client, NULL: none */
	int nic_dmabuf;             /* the NIC takes dma-buf MRs: 1, 0, -1 not asked */
	int nic_dmabuf_errno;       /* what the fd -1 probe returned */
	int data_direct;            /* the NIC has an mlx5 Data Direct interface: 1, 0, -1 not asked */
	bool pcie_map;              /* dma-buf exports ask for the PCIe mapping type */
	const char *map_why;        /* what decided it */
	char map_used[200];         /* what the last export got; "" before any */
	bool map_pcie;              /* the last export got the PCIe mapping type */
	bool dd_reg;                /* the last dma-buf registration went through Data Direct */
	enum rb_pcie_rel pcie;
	char pcie_desc[512];
	bool standin;
	bool nic_flush; /* checks are preceded by the NIC's flush READ (verbs/readflush.h) */
};

/*
 * Loads the driver and selects GPU `index` (or the one at bus_id, when not NULL),
 * its primary context current on this thread. Usage errors (exit 2): no driver,
 * no such GPU. Idempotent: the second call checks it asks for the same GPU.
 */
int rb_gpu_open(int index, const char *bus_id);
const struct rb_gpu_report *rb_gpu_report(void);
/*
 * Fills the NIC half of the report: dma-buf support (a registration with fd -1:
 * EOPNOTSUPP or EPROTONOSUPPORT mean no), Data Direct and the mapping type asked
 * for (rb_dmabuf_pcie), and the PCIe relation to ibdev. Warns on a cross-socket
 * path. With need_dmabuf, a NIC, driver or GPU that cannot do dma-buf is a usage
 * error naming which.
 */
int rb_gpu_check_nic(struct ibv_pd *pd, const char *ibdev, bool need_dmabuf, enum rb_dmabuf_ask ask);
/* The mapping type dma-buf exports ask for (rb_dmabuf_pcie on this GPU's driver). */
void rb_gpu_dmabuf_mapping(enum rb_dmabuf_ask ask, bool data_direct);
/*
 * Whether the NIC and kernel take dma-buf registrations: a registration with fd -1
 * fails on the fd where they do (EBADF) and on the call where they do not
 * (EOPNOTSUPP, EPROTONOSUPPORT). 1 yes, 0 no; *err is the errno seen.
 */
int rb_nic_dmabuf(struct ibv_pd *pd, int *err);
/* The file under sysfs (relative) that shows a GPUDirect peer-memory client, or NULL. */
const char *rb_gpu_peermem(const char *sysfs);
/*
 * The cause to name when GPU memory fails to register through peer memory: a GPU
 * that says it has no GPUDirect RDMA (gdr_attr 0) first, then whether a peer-memory
 * client (peermem: its sysfs file, or NULL) is loaded.
 */
const char *rb_gpu_reg_hint(int gdr_attr, const char *peermem);
/* rb_gpu_reg_hint for the GPU in use. */
const char *rb_gpu_peermem_hint(void);
/*
 * What the CUDA documentation asks before the GPU's owner consumes the NIC's writes:
 * ordering (-1 unknown) below OWNER needs cuFlushGPUDirectRDMAWrites, which the
 * driver has (have_fn) and the GPU supports (flush_opts has OPTION_HOST, -1 unknown).
 */
enum rb_gpu_flush rb_gpu_flush_plan(int ordering, int flush_opts, bool have_fn, bool pcie_map);
/* Makes the NIC's writes visible to the copies that follow (rb_gpu_flush_plan); 0 or -EIO. */
int rb_gpu_flush_writes(void);
/*
 * Whether a check of GPU memory needs the NIC's own flush READ: nothing else orders
 * the path the NIC writes over (the driver cannot flush, or the export took the PCIe
 * mapping type). before_export: from what exports will ask for (the target region
 * then needs REMOTE_READ); else from what the last export got.
 */
bool rb_gpu_nic_flush_wanted(bool before_export);
/* Whether this connection's checks use it: the write-order line and the document say so. */
void rb_gpu_nic_flush_set(bool on);

/* len bytes of device memory with SYNC_MEMOPS set; *p = 0 on failure. */
int rb_gpu_alloc(size_t len, rb_cu_ptr *p);
void rb_gpu_free(rb_cu_ptr p);
int rb_gpu_to_device(rb_cu_ptr dst, const void *src, size_t len);
int rb_gpu_to_host(void *dst, rb_cu_ptr src, size_t len);
int rb_gpu_zero(rb_cu_ptr p, size_t len);
/*
 * A dma-buf fd for [p, p + len) (p, len page-aligned, rb_dmabuf_range); -errno. The
 * caller closes it. Asks for the PCIe mapping type where rb_gpu_dmabuf_mapping said
 * so, and takes the default where the driver refuses it; map_used says which.
 */
int rb_gpu_dmabuf_fd(rb_cu_ptr p, size_t len);
/*
 * Whether to register an exported dma-buf through mlx5 Data Direct: only where the
 * NIC has the interface and the export got the PCIe mapping type (NCCL's rule: the
 * Data Direct engine reaches the GPU over PCIe, so the default mapping, C2C on a
 * Grace system, is not for it).
 */
bool rb_gpu_data_direct_ok(const struct rb_gpu_report *r);
/*
 * The MR for len bytes of the dma-buf fd at offset 0, iova: through Data Direct where
 * rb_gpu_data_direct_ok, else (or where that is refused) ibv_reg_dmabuf_mr. NULL with
 * errno on failure; the report records which path took it.
 */
struct ibv_mr *rb_gpu_reg_dmabuf(struct ibv_pd *pd, size_t len, uint64_t iova, int fd, int access);

/*
 * Every GPU the driver shows, one line each (ordinal, name, PCI address,
 * DMA_BUF_SUPPORTED, GPU_DIRECT_RDMA_SUPPORTED), and the peer-memory client;
 * selects none. Returns the GPU count, or -errno after saying why there is none.
 */
int rb_gpu_list(FILE *f);

/* The header lines and the meta fields (gpu_*). */
void rb_gpu_describe(FILE *f);
void rb_gpu_meta(struct rb_row *m);

#endif

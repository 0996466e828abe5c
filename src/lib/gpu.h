/*
 * GPU memory for the RDMA tools (--use-cuda, --use-cuda-dmabuf): the chosen GPU and
 * what was found out about it before anything was registered (GPU count, PCI bus
 * id, DMA_BUF_SUPPORTED, nvidia_peermem, the NIC's dma-buf support, the PCIe path
 * between GPU and NIC), allocation with SYNC_MEMOPS set, the host copies --verify
 * needs, and the dma-buf export. One GPU per process, chosen once.
 */
#ifndef RB_GPU_H
#define RB_GPU_H

#include "cuda.h"
#include "pcie.h"

#include <infiniband/verbs.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

struct rb_row;

struct rb_gpu_report {
	int count, index;
	char bus_id[32], name[96];
	int driver_version;   /* 12040 = CUDA 12.4 */
	int dmabuf_attr;      /* DMA_BUF_SUPPORTED: 1, 0, or -1 unknown */
	int gdr_attr;         /* GPU_DIRECT_RDMA_SUPPORTED: 1, 0, or -1 unknown */
	const char *peermem;  /* the sysfs file that shows a peer-memory client, NULL: none */
	int nic_dmabuf;       /* the NIC takes dma-buf MRs: 1, 0, -1 not asked */
	int nic_dmabuf_errno; /* what the fd -1 probe returned */
	enum rb_pcie_rel pcie;
	char pcie_desc[512];
	bool standin;
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
 * EOPNOTSUPP or EPROTONOSUPPORT mean no) and the PCIe relation to ibdev. Warns on a
 * cross-socket path. With need_dmabuf, a NIC, driver or GPU that cannot do dma-buf
 * is a usage error naming which.
 */
int rb_gpu_check_nic(struct ibv_pd *pd, const char *ibdev, bool need_dmabuf);
/*
 * Whether the NIC and kernel take dma-buf registrations: a registration with fd -1
 * fails on the fd where they do (EBADF) and on the call where they do not
 * (EOPNOTSUPP, EPROTONOSUPPORT). 1 yes, 0 no; *err is the errno seen.
 */
int rb_nic_dmabuf(struct ibv_pd *pd, int *err);
/* The file under sysfs (relative) that shows a GPUDirect peer-memory client, or NULL. */
const char *rb_gpu_peermem(const char *sysfs);
/* The last two peermem/dma-buf lines of an explanation for a failed registration. */
const char *rb_gpu_peermem_hint(void);

/* len bytes of device memory with SYNC_MEMOPS set; *p = 0 on failure. */
int rb_gpu_alloc(size_t len, rb_cu_ptr *p);
void rb_gpu_free(rb_cu_ptr p);
int rb_gpu_to_device(rb_cu_ptr dst, const void *src, size_t len);
int rb_gpu_to_host(void *dst, rb_cu_ptr src, size_t len);
int rb_gpu_zero(rb_cu_ptr p, size_t len);
/* A dma-buf fd for [p, p + len) (p, len page-aligned); -errno. The caller closes it. */
int rb_gpu_dmabuf_fd(rb_cu_ptr p, size_t len);

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

/* SPDX-License-Identifier: BSD-2-Clause */
#include "gpumem.h"

#include "datadirect.h"
#include "base/base.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const struct rb_cuda *cu;
static struct rb_gpu_report rep = {.index = -1,
                                   .nic_dmabuf = -1,
                                   .dmabuf_attr = -1,
                                   .gdr_attr = -1,
                                   .flush_opts = -1,
                                   .ordering = -1,
                                   .data_direct = -1,
                                   .map_why = "not asked"};
static rb_cu_device dev;

/* Where NCCL looks for a GPUDirect peer-memory client (nvidia_peermem or the older nv_peer_mem). */
static const char *const peermem_paths[] = {
    "kernel/mm/memory_peers/nv_mem/version",
    "kernel/mm/memory_peers/nv_mem_nc/version",
    "module/nvidia_peermem/version",
};

const char *rb_gpu_peermem(const char *sysfs)
{
	for (size_t i = 0; i < sizeof(peermem_paths) / sizeof(peermem_paths[0]); i++)
		if (rb_sysfs_exists(sysfs, peermem_paths[i]))
			return peermem_paths[i];
	return NULL;
}

/* A failed driver call: the call, the driver's name for the error and its text. */
static int cu_fail(const char *call, rb_cu_result r)
{
	char e[160];

	rb_err("%s failed: %s", call, rb_cuda_strerror(cu, r, e, sizeof(e)));
	return -EIO;
}

static int pick(int index, const char *bus_id)
{
	rb_cu_result r;

	if (bus_id) {
		r = cu->device_by_bus_id(&dev, bus_id);
		if (r) {
			char e[160];
			rb_usage_err("no GPU at PCI bus id '%s' (%d GPUs here): %s", bus_id, rep.count,
			             rb_cuda_strerror(cu, r, e, sizeof(e)));
			return -ENODEV;
		}
		for (int i = 0; i < rep.count; i++) {
			rb_cu_device d;
			if (!cu->device_get(&d, i) && d == dev)
				rep.index = i;
		}
		return 0;
	}
	if (index >= rep.count) {
		rb_usage_err("GPU %d does not exist (%d GPU%s)", index, rep.count, rep.count == 1 ? "" : "s");
		return -ENODEV;
	}
	rep.index = index;
	r = cu->device_get(&dev, index);
	return r ? cu_fail("cuDeviceGet", r) : 0;
}

int rb_gpu_open(int index, const char *bus_id)
{
	rb_cu_ctx ctx;
	rb_cu_result r;

	if (cu) {
		rb_cu_device again = -1;
		bool same =
		    bus_id ? !cu->device_by_bus_id(&again, bus_id) && again == dev : index == rep.index;

		if (!same) {
			rb_usage_err("one GPU per process: GPU %d (%s) is in use, GPU %s asked for",
			             rep.index, rep.bus_id, bus_id ? bus_id : "another index");
			return -EINVAL;
		}
		return 0;
	}
	if (!(cu = rb_cuda_load()))
		return -ENOENT;
	rep.standin = cu->standin;
	r = cu->init(0);
	if (r) {
		char e[160];
		rb_usage_err("cuInit failed: %s (is the NVIDIA kernel driver loaded? nvidia-smi tells)",
		             rb_cuda_strerror(cu, r, e, sizeof(e)));
		cu = NULL;
		return -ENODEV;
	}
	if ((r = cu->device_count(&rep.count)) || pick(index, bus_id)) {
		int ret = r ? cu_fail("cuDeviceGetCount", r) : -ENODEV;
		cu = NULL;
		return ret;
	}
	if (cu->driver_version(&rep.driver_version))
		rep.driver_version = 0;
	if (cu->device_bus_id(rep.bus_id, sizeof(rep.bus_id), dev))
		snprintf(rep.bus_id, sizeof(rep.bus_id), "unknown");
	if (cu->device_name(rep.name, sizeof(rep.name), dev))
		snprintf(rep.name, sizeof(rep.name), "unknown");
	if (cu->device_attr(&rep.dmabuf_attr, RB_CU_ATTR_DMA_BUF_SUPPORTED, dev))
		rep.dmabuf_attr = -1;
	if (cu->device_attr(&rep.gdr_attr, RB_CU_ATTR_GPU_DIRECT_RDMA, dev))
		rep.gdr_attr = -1;
	/* Drivers before CUDA 11.3 know neither attribute: -1, and no flush function either. */
	if (cu->device_attr(&rep.flush_opts, RB_CU_ATTR_FLUSH_OPTIONS, dev))
		rep.flush_opts = -1;
	if (cu->device_attr(&rep.ordering, RB_CU_ATTR_WRITES_ORDERING, dev))
		rep.ordering = -1;
	rep.flush = rb_gpu_flush_plan(rep.ordering, rep.flush_opts, cu->flush_writes != NULL, false);
	rep.peermem = rb_gpu_peermem("/sys");
	r = cu->ctx_retain(&ctx, dev);
	if (!r)
		r = cu->ctx_set_current(ctx);
	if (r) {
		int ret = cu_fail("cuDevicePrimaryCtxRetain/cuCtxSetCurrent", r);
		cu = NULL;
		return ret;
	}
	return 0;
}

static const char *tri(int v)
{
	return v < 0 ? "unknown" : v ? "yes" : "no";
}

int rb_gpu_list(FILE *f)
{
	const struct rb_cuda *d = rb_cuda_load();
	const char *peer = rb_gpu_peermem("/sys");
	rb_cu_result r;
	int n = 0, v = 0;

	if (!d)
		return -ENOENT;
	if ((r = d->init(0)) != 0 || (r = d->device_count(&n)) != 0) {
		char e[160];
		rb_usage_err("cuInit/cuDeviceGetCount failed: %s", rb_cuda_strerror(d, r, e, sizeof(e)));
		return -ENODEV;
	}
	if (d->driver_version(&v))
		v = 0;
	fprintf(f, "CUDA driver %d.%d%s, %d GPU%s; peer-memory client: %s%s\n", v / 1000, v % 1000 / 10,
	        d->standin ? " (the test suite's stand-in libcuda.so.1)" : "", n, n == 1 ? "" : "s",
	        peer ? "/sys/" : "", peer ? peer : "none (nvidia_peermem not loaded)");
	for (int i = 0; i < n; i++) {
		char name[96] = "?", bus[32] = "?";
		int dmabuf = -1, gdr = -1;
		rb_cu_device g;

		if (d->device_get(&g, i))
			continue;
		if (d->device_name(name, sizeof(name), g) || d->device_bus_id(bus, sizeof(bus), g))
			continue;
		if (d->device_attr(&dmabuf, RB_CU_ATTR_DMA_BUF_SUPPORTED, g))
			dmabuf = -1;
		if (d->device_attr(&gdr, RB_CU_ATTR_GPU_DIRECT_RDMA, g))
			gdr = -1;
		fprintf(f, "GPU %d: %s, PCI %s, dma-buf %s, GPUDirect RDMA %s\n", i, name, bus, tri(dmabuf),
		        tri(gdr));
	}
	return n;
}

const struct rb_gpu_report *rb_gpu_report(void)
{
	return cu ? &rep : NULL;
}

/* The errno of a refused dma-buf registration, by name where it has a usual one. */
static const char *refusal(int err)
{
	switch (err) {
	case EOPNOTSUPP: return "EOPNOTSUPP";
	case EPROTONOSUPPORT: return "EPROTONOSUPPORT";
	case ENOSYS: return "ENOSYS";
	default: return err ? strerror(err) : "no errno";
	}
}

/* dma-buf from the bottom up: the driver can export, the GPU can, the NIC takes it. */
static int dmabuf_usable(const char *ibdev)
{
	if (!cu->get_handle) {
		rb_usage_err("libcuda.so.1 has no cuMemGetHandleForAddressRange (dma-buf export needs a CUDA "
		             "11.7 or later driver; this one is %d.%d)",
		             rep.driver_version / 1000, rep.driver_version % 1000 / 10);
		return -EOPNOTSUPP;
	}
	if (rep.dmabuf_attr == 0) {
		rb_usage_err(
		    "GPU %d (%s) does not support dma-buf (CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED is 0: "
		    "it needs the open kernel modules and a 5.12 or later kernel)",
		    rep.index, rep.bus_id);
		return -EOPNOTSUPP;
	}
	if (!rep.nic_dmabuf) {
		rb_usage_err(
		    "NIC %s does not support dma-buf registration (%s): use --use-cuda (nvidia_peermem) "
		    "instead",
		    ibdev, refusal(rep.nic_dmabuf_errno));
		return -EOPNOTSUPP;
	}
	return 0;
}

int rb_nic_dmabuf(struct ibv_pd *pd, int *err)
{
	/* fd -1: a NIC and kernel that take dma-buf MRs fail on the fd (EBADF), others on the call. */
	struct ibv_mr *mr;

	errno = 0;
	mr = ibv_reg_dmabuf_mr(pd, 0, 4096, 0, -1, IBV_ACCESS_LOCAL_WRITE);
	*err = mr ? 0 : errno;
	if (mr) {
		ibv_dereg_mr(mr);
		return 1;
	}
	return *err == EBADF; /* anything else: the call itself was refused */
}

void rb_gpu_dmabuf_mapping(enum rb_dmabuf_ask ask, bool data_direct)
{
	rep.pcie_map =
	    rb_dmabuf_pcie(ask, rep.driver_version, data_direct, getenv("NCCL_IB_DATA_DIRECT"), &rep.map_why);
}

int rb_gpu_check_nic(struct ibv_pd *pd, const char *ibdev, bool need_dmabuf, enum rb_dmabuf_ask ask)
{
	char path[256];

	rep.nic_dmabuf = rb_nic_dmabuf(pd, &rep.nic_dmabuf_errno);
	rep.data_direct = rep.nic_dmabuf == 1 && rb_data_direct(pd->context, path, sizeof(path));
	rb_gpu_dmabuf_mapping(ask, rep.data_direct == 1);
	rep.pcie = rb_pcie_relation("/sys", rep.bus_id, ibdev, rep.pcie_desc, sizeof(rep.pcie_desc));
	if (rep.pcie == RB_PCIE_SOCKETS)
		rb_warn("GPU %d and %s are on different sockets: GPUDirect RDMA crosses the inter-socket "
		        "link and is usually far slower than a GPU and NIC behind one switch (%s)",
		        rep.index, ibdev, rep.pcie_desc);
	return need_dmabuf ? dmabuf_usable(ibdev) : 0;
}

const char *rb_gpu_reg_hint(int gdr_attr, const char *peermem)
{
	/* No peer-memory client can give the NIC pages the GPU itself will not expose. */
	if (gdr_attr == 0)
		return "the GPU reports no GPUDirect RDMA support "
		       "(CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED "
		       "is 0: this GPU model, its driver or its virtualization lets no NIC reach its "
		       "memory; loading nvidia_peermem or using dma-buf will not change that)";
	if (peermem)
		return "a peer-memory client is loaded; the NIC driver or IOMMU refused the pages";
	return "nvidia_peermem not loaded (modprobe nvidia_peermem), or use --use-cuda-dmabuf";
}

const char *rb_gpu_peermem_hint(void)
{
	return rb_gpu_reg_hint(rep.gdr_attr, rep.peermem);
}

enum rb_gpu_flush rb_gpu_flush_plan(int ordering, int flush_opts, bool have_fn, bool pcie_map)
{
	/*
	 * The attribute describes the GPU's usual path from the NIC. An export with the
	 * PCIe mapping type (Grace: the C2C link is the usual one) takes another path,
	 * whose ordering nothing states: treat it as unordered.
	 */
	if (ordering >= RB_CU_ORDERING_OWNER && !pcie_map)
		return RB_GPU_FLUSH_NOT_NEEDED;
	/* Ordering NONE, or a driver that does not say: flush where the driver can. */
	if (have_fn && (flush_opts < 0 || flush_opts & RB_CU_FLUSH_OPTION_HOST))
		return RB_GPU_FLUSH_DRIVER;
	return RB_GPU_FLUSH_UNAVAILABLE;
}

bool rb_gpu_nic_flush_wanted(bool before_export)
{
	return cu && (rep.flush == RB_GPU_FLUSH_UNAVAILABLE || (before_export ? rep.pcie_map : rep.map_pcie));
}

void rb_gpu_nic_flush_set(bool on)
{
	rep.nic_flush = on;
}

int rb_gpu_flush_writes(void)
{
	rb_cu_result r;

	if (!cu || rep.flush != RB_GPU_FLUSH_DRIVER)
		return 0;
	r = cu->flush_writes(RB_CU_FLUSH_TARGET_CTX, RB_CU_FLUSH_TO_OWNER);
	if (r)
		return cu_fail("cuFlushGPUDirectRDMAWrites(CURRENT_CTX, TO_OWNER)", r);
	rep.flushes++;
	return 0;
}

int rb_gpu_alloc(size_t len, rb_cu_ptr *p)
{
	unsigned one = 1;
	rb_cu_result r = cu->mem_alloc(p, len);

	if (r) {
		char e[160];
		*p = 0;
		rb_usage_err("cannot allocate %zu bytes on GPU %d: %s", len, rep.index,
		             rb_cuda_strerror(cu, r, e, sizeof(e)));
		return -ENOMEM;
	}
	/* Copies and memsets on this memory complete before they return, as RDMA needs. */
	r = cu->pointer_set_attr(&one, RB_CU_POINTER_SYNC_MEMOPS, *p);
	if (!r)
		r = cu->memset_d8(*p, 0, len);
	if (r) {
		cu->mem_free(*p);
		*p = 0;
		return cu_fail("cuPointerSetAttribute(SYNC_MEMOPS)/cuMemsetD8", r);
	}
	return 0;
}

void rb_gpu_free(rb_cu_ptr p)
{
	if (p && cu)
		cu->mem_free(p);
}

int rb_gpu_to_device(rb_cu_ptr dst, const void *src, size_t len)
{
	rb_cu_result r = cu->copy_htod(dst, src, len);
	return r ? cu_fail("cuMemcpyHtoD", r) : 0;
}

int rb_gpu_to_host(void *dst, rb_cu_ptr src, size_t len)
{
	rb_cu_result r = cu->copy_dtoh(dst, src, len);
	return r ? cu_fail("cuMemcpyDtoH", r) : 0;
}

int rb_gpu_zero(rb_cu_ptr p, size_t len)
{
	rb_cu_result r = cu->memset_d8(p, 0, len);
	return r ? cu_fail("cuMemsetD8", r) : 0;
}

int rb_gpu_dmabuf_fd(rb_cu_ptr p, size_t len)
{
	int fd = -1;
	rb_cu_result r;
	char e[160];

	if (rep.pcie_map) {
		r = cu->get_handle(&fd, p, len, RB_CU_RANGE_HANDLE_DMA_BUF_FD, RB_CU_RANGE_FLAG_PCIE);
		if (!r && fd >= 0) {
			snprintf(rep.map_used, sizeof(rep.map_used), "PCIe mapping type (%s)", rep.map_why);
			rep.map_pcie = true;
			rep.flush =
			    rb_gpu_flush_plan(rep.ordering, rep.flush_opts, cu->flush_writes != NULL, true);
			return fd;
		}
		/* Drivers before 12.8 and GPUs without the path refuse the flag; the default still works. */
		snprintf(rep.map_used, sizeof(rep.map_used),
		         "default mapping: the driver refused the PCIe mapping type (%s)",
		         r ? rb_cuda_strerror(cu, r, e, sizeof(e)) : "no fd");
	} else {
		snprintf(rep.map_used, sizeof(rep.map_used), "default mapping (%s)", rep.map_why);
	}
	fd = -1;
	rep.map_pcie = false;
	r = cu->get_handle(&fd, p, len, RB_CU_RANGE_HANDLE_DMA_BUF_FD, 0);
	if (r || fd < 0)
		return r ? cu_fail("cuMemGetHandleForAddressRange(DMA_BUF_FD)", r) : -EIO;
	return fd;
}

bool rb_gpu_data_direct_ok(const struct rb_gpu_report *r)
{
	return r->map_pcie && r->data_direct == 1;
}

struct ibv_mr *rb_gpu_reg_dmabuf(struct ibv_pd *pd, size_t len, uint64_t iova, int fd, int access)
{
	struct ibv_mr *mr = NULL;

	rep.dd_reg = false;
	if (rb_gpu_data_direct_ok(&rep))
		mr = rb_data_direct_reg_dmabuf(pd, 0, len, iova, fd, access);
	if (mr)
		rep.dd_reg = true;
	else /* no Data Direct, or a libmlx5 without it: the NIC's usual path */
		mr = ibv_reg_dmabuf_mr(pd, 0, len, iova, fd, access);
	return mr;
}

static const char *ordering_name(int o)
{
	return o < 0 ? "unknown" : o >= 200 ? "all devices" : o >= RB_CU_ORDERING_OWNER ? "owner" : "none";
}

static const char *const flush_names[] = {"not needed", "cuFlushGPUDirectRDMAWrites before each check",
                                          "needed but the driver cannot (checks may read early bytes)"};

void rb_gpu_describe(FILE *f)
{
	if (!cu)
		return;
	fprintf(f, " GPU            : %d of %d, %s, PCI %s, driver %d.%d%s\n", rep.index, rep.count, rep.name,
	        rep.bus_id, rep.driver_version / 1000, rep.driver_version % 1000 / 10,
	        rep.standin ? " (the test suite's stand-in libcuda.so.1: host memory, not a GPU)" : "");
	fprintf(f, " GPUDirect      : peermem %s%s, GPU dma-buf %s, GPU RDMA attribute %s, NIC dma-buf %s\n",
	        rep.peermem ? "/sys/" : "", rep.peermem ? rep.peermem : "not loaded", tri(rep.dmabuf_attr),
	        tri(rep.gdr_attr),
	        rep.nic_dmabuf < 0 ? "not asked"
	        : rep.nic_dmabuf   ? "yes"
	                           : "no");
	fprintf(f, " GPU write order: WRITES_ORDERING %s%s; flush %s%s\n", ordering_name(rep.ordering),
	        rep.map_pcie ? " (not for the PCIe mapping's path)" : "",
	        rep.nic_flush && rep.flush == RB_GPU_FLUSH_UNAVAILABLE ? "by the NIC (the driver cannot)"
	                                                               : flush_names[rep.flush],
	        rep.nic_flush ? "; a 1-byte RDMA READ through the NIC (a QP to itself) before each check"
	                      : "");
	if (rep.map_used[0])
		fprintf(f, " dma-buf export : %s%s\n", rep.map_used,
		        rep.dd_reg ? ", registered through Data Direct" : "");
	fprintf(f, " GPU-NIC PCIe   : %s\n", rep.pcie_desc[0] ? rep.pcie_desc : "not examined");
}

void rb_gpu_meta(struct rb_row *m)
{
	if (!cu)
		return;
	rb_row_dbl(m, "gpu_index", NULL, 0, rep.index < 0 ? NAN : rep.index);
	rb_row_u64(m, "gpu_count", NULL, (uint64_t)rep.count);
	rb_row_str(m, "gpu_name", NULL, rep.name);
	rb_row_str(m, "gpu_bus_id", NULL, rep.bus_id);
	rb_row_u64(m, "cuda_driver_version", NULL, (uint64_t)rep.driver_version);
	rb_row_str(m, "gpu_peermem", NULL, rep.peermem ? rep.peermem : "");
	rb_row_str(m, "gpu_dmabuf_supported", NULL, tri(rep.dmabuf_attr));
	rb_row_str(m, "nic_dmabuf_supported", NULL, rep.nic_dmabuf < 0 ? "unknown" : tri(rep.nic_dmabuf));
	rb_row_str(m, "gpu_nic_pcie", NULL, rb_pcie_rel_name(rep.pcie));
	rb_row_str(m, "gpu_rdma_writes_ordering", NULL, ordering_name(rep.ordering));
	rb_row_str(m, "gpu_flush", NULL,
	           rep.flush == RB_GPU_FLUSH_DRIVER ? (rep.nic_flush ? "cuFlushGPUDirectRDMAWrites+nic_read"
	                                                             : "cuFlushGPUDirectRDMAWrites")
	           : rep.flush == RB_GPU_FLUSH_NOT_NEEDED ? "not needed"
	           : rep.nic_flush                        ? "nic_read"
	                                                  : "unavailable");
	rb_row_str(m, "gpu_dmabuf_mapping", NULL,
	           !rep.map_used[0]         ? ""
	           : rep.map_used[0] == 'P' ? "pcie"
	                                    : "default");
	rb_row_bool(m, "cuda_standin", NULL, rep.standin);
}

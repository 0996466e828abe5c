/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A STAND-IN for libcuda.so.1, built only for the test suite and never installed:
 * it lets machines without a GPU run the tools' whole CUDA code path (loading,
 * device choice, allocation, SYNC_MEMOPS, copies, the dma-buf export and every
 * error path) against a real RDMA device. It is not CUDA.
 *
 * "Device memory" is host memory, so ibv_reg_mr on it works over SoftRoCE the way
 * it works on a GPU with nvidia_peermem. So that a tool which touched GPU memory
 * with the CPU (instead of through the copy calls) fails its tests as it would
 * crash on a GPU, the bytes are stored XORed with SCRAMBLE: only cuMemcpy and
 * cuMemset translate, and RDMA moves the stored bytes as they are.
 *
 * Switches (environment):
 *   RB_STANDIN_CUDA_FAIL=cuInit,cuMemAlloc_v2,...  these entry points fail
 *   RB_STANDIN_CUDA_GPUS=N                          how many GPUs (default 1)
 *   RB_STANDIN_CUDA_DMABUF=0                        DMA_BUF_SUPPORTED reads 0
 *   RB_STANDIN_CUDA_NOPEER=1                        addresses no NIC can register, as GPU
 *                                                   memory is without nvidia_peermem
 *                                                   (copies to them are dropped)
 *   RB_STANDIN_CUDA_GDR=0                           GPU_DIRECT_RDMA_SUPPORTED reads 0
 *   RB_STANDIN_CUDA_ORDERING=0|100|200              GPU_DIRECT_RDMA_WRITES_ORDERING
 *                                                   (default 0: writes need a flush)
 *   RB_STANDIN_CUDA_FLUSH_OPTIONS=N                 GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS
 *                                                   (default 1: the host-side flush works)
 *   RB_STANDIN_CUDA_UNALIGNED=N                     cuMemAlloc returns addresses N bytes past
 *                                                   a page boundary (real drivers promise
 *                                                   only 256-byte alignment)
 *   RB_STANDIN_CUDA_PCIE_MAPPING=1                  the dma-buf export takes the PCIe mapping
 *                                                   type (a CUDA 12.8 driver); else refused
 *   RB_STANDIN_CUDA_TRACE=FILE                      each flush, device-to-host copy and
 *                                                   export appended to FILE, one line each
 *                                                   ("flush N", "dtoh 0xADDR LEN FLUSHES",
 *                                                   "export 0xADDR LEN FLAGS"), so that a test
 *                                                   sees their order
 * The library exports rb_standin_cuda so that the tools say, in their header,
 * that they ran on it.
 */
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define SCRAMBLE      0xa5u
#define NOPEER_BASE   0x800000000000ull
#define NOPEER_STRIDE (1ull << 40)

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;

enum {
	SUCCESS = 0,
	ERROR_INVALID_VALUE = 1,
	ERROR_OUT_OF_MEMORY = 2,
	ERROR_NOT_INITIALIZED = 3,
	ERROR_NO_DEVICE = 100,
	ERROR_INVALID_DEVICE = 101,
	ERROR_UNKNOWN = 999,
};

/* Exported by this library (the tools resolve them with dlsym). */
#define API __attribute__((visibility("default")))

API extern const int rb_standin_cuda;
API const int rb_standin_cuda = 1;

static int initialized;
static int ctx_token;
static unsigned long long flushes; /* cuFlushGPUDirectRDMAWrites calls so far */

/* Allocations, so that frees and copies are checked like the driver checks them. */
#define MAX_ALLOCS 256
static struct {
	uint8_t *p;
	size_t len;
	uint8_t *map; /* what was mapped: p, or a little below it (RB_STANDIN_CUDA_UNALIGNED) */
	size_t map_len;
	int nopeer; /* PROT_NONE: ibv_reg_mr fails on it; copies skip it */
} allocs[MAX_ALLOCS];

static long env_long(const char *name, long dflt)
{
	const char *v = getenv(name);
	return v && *v ? strtol(v, NULL, 0) : dflt;
}

/* One line on RB_STANDIN_CUDA_TRACE's file, written whole with O_APPEND (server and client may share it). */
__attribute__((format(printf, 1, 2))) static void trace(const char *fmt, ...)
{
	const char *path = getenv("RB_STANDIN_CUDA_TRACE");
	char line[160];
	va_list ap;
	int fd, n;

	if (!path || !*path)
		return;
	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0 || n >= (int)sizeof(line) - 1)
		return;
	line[n++] = '\n';
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return;
	/* A short write shows as a missing line to the test that reads the trace. */
	if (write(fd, line, (size_t)n) < 0)
		line[0] = '\0';
	close(fd);
}

static int failing(const char *name)
{
	const char *list = getenv("RB_STANDIN_CUDA_FAIL");
	size_t n = strlen(name);

	for (const char *p = list; p && *p;) {
		size_t l = strcspn(p, ",");
		if (l == n && !strncmp(p, name, n))
			return 1;
		p += l + (p[l] == ',');
	}
	return 0;
}

#define ENTRY(name)                                                                                          \
	do {                                                                                                 \
		if (failing(name))                                                                           \
			return ERROR_UNKNOWN;                                                                \
		if (!initialized && strcmp(name, "cuInit") && strcmp(name, "cuDriverGetVersion"))            \
			return ERROR_NOT_INITIALIZED;                                                        \
	} while (0)

static int gpus(void)
{
	const char *g = getenv("RB_STANDIN_CUDA_GPUS");
	return g ? atoi(g) : 1;
}

/* The allocation holding [p, p + len), or -1. */
static int find(CUdeviceptr p, size_t len)
{
	for (int i = 0; i < MAX_ALLOCS; i++) {
		uintptr_t a = (uintptr_t)allocs[i].p;
		if (a && p >= a && len <= allocs[i].len && p - a <= allocs[i].len - len)
			return i;
	}
	return -1;
}

API CUresult cuInit(unsigned flags)
{
	if (failing("cuInit"))
		return ERROR_NO_DEVICE;
	initialized = flags == 0;
	return initialized ? SUCCESS : ERROR_INVALID_VALUE;
}

API CUresult cuDriverGetVersion(int *v)
{
	ENTRY("cuDriverGetVersion");
	*v = 12040;
	return SUCCESS;
}

API CUresult cuDeviceGetCount(int *n)
{
	ENTRY("cuDeviceGetCount");
	*n = gpus();
	return SUCCESS;
}

API CUresult cuDeviceGet(CUdevice *d, int ordinal)
{
	ENTRY("cuDeviceGet");
	if (ordinal < 0 || ordinal >= gpus())
		return ERROR_INVALID_DEVICE;
	*d = ordinal;
	return SUCCESS;
}

/* GPU i sits at PCI 0000:e{i}:00.0: a bus no test machine has. */
API CUresult cuDeviceGetPCIBusId(char *bus, int len, CUdevice d)
{
	ENTRY("cuDeviceGetPCIBusId");
	if (d < 0 || d >= gpus())
		return ERROR_INVALID_DEVICE;
	snprintf(bus, (size_t)len, "0000:E%X:00.0", d & 0xf);
	return SUCCESS;
}

API CUresult cuDeviceGetByPCIBusId(CUdevice *d, const char *bus)
{
	unsigned dom, b, dev, fn;

	ENTRY("cuDeviceGetByPCIBusId");
	if (sscanf(bus, "%x:%x:%x.%x", &dom, &b, &dev, &fn) != 4 || dom || dev || fn || (b & 0xf0) != 0xe0 ||
	    (int)(b & 0xf) >= gpus())
		return ERROR_INVALID_DEVICE;
	*d = (int)(b & 0xf);
	return SUCCESS;
}

API CUresult cuDeviceGetName(char *name, int len, CUdevice d)
{
	ENTRY("cuDeviceGetName");
	snprintf(name, (size_t)len, "rdmabench stand-in GPU %d", d);
	return SUCCESS;
}

API CUresult cuDeviceGetAttribute(int *v, int attr, CUdevice d)
{
	const char *dmabuf = getenv("RB_STANDIN_CUDA_DMABUF");

	ENTRY("cuDeviceGetAttribute");
	if (d < 0 || d >= gpus())
		return ERROR_INVALID_DEVICE;
	if (attr == 124) /* DMA_BUF_SUPPORTED */
		*v = !(dmabuf && !strcmp(dmabuf, "0"));
	else if (attr == 116) /* GPU_DIRECT_RDMA_SUPPORTED */
		*v = (int)env_long("RB_STANDIN_CUDA_GDR", 1);
	else if (attr == 117) /* GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS */
		*v = (int)env_long("RB_STANDIN_CUDA_FLUSH_OPTIONS", 1);
	else if (attr == 118) /* GPU_DIRECT_RDMA_WRITES_ORDERING */
		*v = (int)env_long("RB_STANDIN_CUDA_ORDERING", 0);
	else
		*v = 0;
	return SUCCESS;
}

API CUresult cuDevicePrimaryCtxRetain(void **ctx, CUdevice d)
{
	ENTRY("cuDevicePrimaryCtxRetain");
	if (d < 0 || d >= gpus())
		return ERROR_INVALID_DEVICE;
	*ctx = &ctx_token;
	return SUCCESS;
}

API CUresult cuDevicePrimaryCtxRelease_v2(CUdevice d)
{
	ENTRY("cuDevicePrimaryCtxRelease_v2");
	return d >= 0 && d < gpus() ? SUCCESS : ERROR_INVALID_DEVICE;
}

API CUresult cuCtxSetCurrent(void *ctx)
{
	ENTRY("cuCtxSetCurrent");
	return ctx == &ctx_token ? SUCCESS : ERROR_INVALID_VALUE;
}

API CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t len)
{
	void *m;

	if (failing("cuMemAlloc_v2"))
		return ERROR_OUT_OF_MEMORY;
	ENTRY("cuMemAlloc_v2");
	if (!len)
		return ERROR_INVALID_VALUE;
	for (int i = 0; i < MAX_ALLOCS; i++) {
		if (allocs[i].p)
			continue;
		const char *np = getenv("RB_STANDIN_CUDA_NOPEER");
		allocs[i].nopeer = np && !strcmp(np, "1");
		if (allocs[i].nopeer) {
			/* Above the user address space (x86-64, 4-level paging) or unmapped: never touched.
			 */
			m = (void *)(uintptr_t)(NOPEER_BASE + (uint64_t)i * NOPEER_STRIDE);
			allocs[i].map = m;
			allocs[i].map_len = 0;
		} else {
			size_t skew = (size_t)env_long("RB_STANDIN_CUDA_UNALIGNED", 0) % 4096;

			m = mmap(NULL, len + skew, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
			         0);
			if (m == MAP_FAILED)
				return ERROR_OUT_OF_MEMORY;
			allocs[i].map = m;
			allocs[i].map_len = len + skew;
			m = (uint8_t *)m + skew;
			memset(m, SCRAMBLE ^ 0x3c, len); /* what fresh device memory holds: not zeros */
		}
		allocs[i].p = m;
		allocs[i].len = len;
		*p = (CUdeviceptr)(uintptr_t)m;
		return SUCCESS;
	}
	return ERROR_OUT_OF_MEMORY;
}

API CUresult cuMemFree_v2(CUdeviceptr p)
{
	int i = find(p, 0);

	ENTRY("cuMemFree_v2");
	if (i < 0 || (uintptr_t)allocs[i].p != p)
		return ERROR_INVALID_VALUE;
	if (!allocs[i].nopeer)
		munmap(allocs[i].map, allocs[i].map_len);
	allocs[i].p = NULL;
	return SUCCESS;
}

API CUresult cuMemsetD8_v2(CUdeviceptr p, unsigned char v, size_t len)
{
	int a = find(p, len);

	ENTRY("cuMemsetD8_v2");
	if (a < 0)
		return ERROR_INVALID_VALUE;
	if (!allocs[a].nopeer)
		memset((void *)(uintptr_t)p, v ^ SCRAMBLE, len);
	return SUCCESS;
}

API CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t len)
{
	uint8_t *d = (uint8_t *)(uintptr_t)dst;
	const uint8_t *s = src;
	int a = find(dst, len);

	ENTRY("cuMemcpyHtoD_v2");
	if (a < 0)
		return ERROR_INVALID_VALUE;
	for (size_t i = 0; !allocs[a].nopeer && i < len; i++)
		d[i] = s[i] ^ SCRAMBLE;
	return SUCCESS;
}

API CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t len)
{
	uint8_t *d = dst;
	const uint8_t *s = (const uint8_t *)(uintptr_t)src;
	int a = find(src, len);

	ENTRY("cuMemcpyDtoH_v2");
	if (a < 0)
		return ERROR_INVALID_VALUE;
	trace("dtoh 0x%llx %zu %llu", src, len, flushes);
	for (size_t i = 0; !allocs[a].nopeer && i < len; i++)
		d[i] = s[i] ^ SCRAMBLE;
	return SUCCESS;
}

API CUresult cuPointerSetAttribute(const void *v, int attr, CUdeviceptr p)
{
	ENTRY("cuPointerSetAttribute");
	if (attr != 6 || *(const unsigned *)v != 1 || find(p, 1) < 0)
		return ERROR_INVALID_VALUE;
	return SUCCESS;
}

#ifndef STANDIN_OLD
/*
 * A dma-buf fd: a memfd standing for the export (no NIC that takes dma-bufs would
 * take it). Like the driver: host-page-aligned address and size, inside one
 * allocation; flag 1 (the PCIe mapping type) only where the stand-in plays CUDA 12.8.
 */
API CUresult cuMemGetHandleForAddressRange(void *handle, CUdeviceptr p, size_t len, int type,
                                           unsigned long long flags)
{
	long page = sysconf(_SC_PAGESIZE);
	int fd;

	ENTRY("cuMemGetHandleForAddressRange");
	trace("export 0x%llx %zu %llu", p, len, flags);
	if (flags == 1 && env_long("RB_STANDIN_CUDA_PCIE_MAPPING", 0) != 1)
		return ERROR_INVALID_VALUE;
	if (type != 1 || flags > 1 || p % (unsigned long)page || len % (unsigned long)page ||
	    find(p, len) < 0)
		return ERROR_INVALID_VALUE;
	fd = memfd_create("rb-standin-dmabuf", MFD_CLOEXEC);
	if (fd < 0)
		return ERROR_OUT_OF_MEMORY;
	*(int *)handle = fd;
	return SUCCESS;
}

/* Nothing to wait for in host memory: counted, so that a test sees it came before the copy. */
API CUresult cuFlushGPUDirectRDMAWrites(int target, int scope)
{
	ENTRY("cuFlushGPUDirectRDMAWrites");
	if (target != 0 || (scope != 100 && scope != 200))
		return ERROR_INVALID_VALUE;
	flushes++;
	trace("flush %llu", flushes);
	return SUCCESS;
}
#endif

static const struct {
	CUresult r;
	const char *name, *text;
} errors[] = {
    {SUCCESS, "CUDA_SUCCESS", "no error"},
    {ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {ERROR_UNKNOWN, "CUDA_ERROR_UNKNOWN", "unknown error (RB_STANDIN_CUDA_FAIL)"},
};

/* The error's name (text 0) or description (text 1); NULL and INVALID_VALUE for an unknown code. */
static CUresult describe(CUresult r, const char **s, int text)
{
	for (size_t i = 0; i < sizeof(errors) / sizeof(errors[0]); i++)
		if (errors[i].r == r) {
			*s = text ? errors[i].text : errors[i].name;
			return SUCCESS;
		}
	*s = NULL;
	return ERROR_INVALID_VALUE;
}

API CUresult cuGetErrorName(CUresult r, const char **s)
{
	return describe(r, s, 0);
}

API CUresult cuGetErrorString(CUresult r, const char **s)
{
	return describe(r, s, 1);
}

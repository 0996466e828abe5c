/* SPDX-License-Identifier: BSD-2-Clause */
#include "cuda.h"

#include "base/base.h"

#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#define LIBCUDA "libcuda.so.1"

static struct rb_cuda cuda;
static int loaded; /* 0 not tried, 1 loaded, -1 failed (and said why) */

/* dlsym into a function pointer field: POSIX guarantees the conversion. */
static bool resolve(void *lib, const char *sym, void *field, bool required)
{
	void *p = dlsym(lib, sym);

	memcpy(field, &p, sizeof(p));
	if (!p && required)
		rb_usage_err(LIBCUDA " has no %s: the NVIDIA driver is too old or the library is not "
		                     "NVIDIA's",
		             sym);
	return p || !required;
}

static bool resolve_all(void *lib)
{
	static const struct {
		const char *sym;
		size_t off;
	} need[] = {
	    {"cuInit", offsetof(struct rb_cuda, init)},
	    {"cuDriverGetVersion", offsetof(struct rb_cuda, driver_version)},
	    {"cuDeviceGetCount", offsetof(struct rb_cuda, device_count)},
	    {"cuDeviceGet", offsetof(struct rb_cuda, device_get)},
	    {"cuDeviceGetByPCIBusId", offsetof(struct rb_cuda, device_by_bus_id)},
	    {"cuDeviceGetPCIBusId", offsetof(struct rb_cuda, device_bus_id)},
	    {"cuDeviceGetName", offsetof(struct rb_cuda, device_name)},
	    {"cuDeviceGetAttribute", offsetof(struct rb_cuda, device_attr)},
	    {"cuDevicePrimaryCtxRetain", offsetof(struct rb_cuda, ctx_retain)},
	    {"cuCtxSetCurrent", offsetof(struct rb_cuda, ctx_set_current)},
	    {"cuMemAlloc_v2", offsetof(struct rb_cuda, mem_alloc)},
	    {"cuMemFree_v2", offsetof(struct rb_cuda, mem_free)},
	    {"cuMemsetD8_v2", offsetof(struct rb_cuda, memset_d8)},
	    {"cuMemcpyHtoD_v2", offsetof(struct rb_cuda, copy_htod)},
	    {"cuMemcpyDtoH_v2", offsetof(struct rb_cuda, copy_dtoh)},
	    {"cuPointerSetAttribute", offsetof(struct rb_cuda, pointer_set_attr)},
	    {"cuGetErrorString", offsetof(struct rb_cuda, error_string)},
	    {"cuGetErrorName", offsetof(struct rb_cuda, error_name)},
	};

	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++)
		if (!resolve(lib, need[i].sym, (char *)&cuda + need[i].off, true))
			return false;
	resolve(lib, "cuMemGetHandleForAddressRange", &cuda.get_handle, false);
	resolve(lib, "cuFlushGPUDirectRDMAWrites", &cuda.flush_writes, false);
	cuda.standin = dlsym(lib, "rb_standin_cuda") != NULL;
	return true;
}

const struct rb_cuda *rb_cuda_load(void)
{
	void *lib;

	if (loaded)
		return loaded > 0 ? &cuda : NULL;
	loaded = -1;
	lib = dlopen(LIBCUDA, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		rb_usage_err(LIBCUDA " not found: the NVIDIA driver is not installed or not visible here "
		                     "(in a container: run it with the NVIDIA runtime) [%s]",
		             dlerror());
		return NULL;
	}
	if (!resolve_all(lib)) {
		dlclose(lib);
		return NULL;
	}
	loaded = 1;
	return &cuda;
}

const char *rb_cuda_strerror(const struct rb_cuda *cu, rb_cu_result r, char *buf, size_t len)
{
	const char *name = NULL, *text = NULL;

	if (cu->error_name(r, &name) || !name)
		name = "CUDA error";
	if (cu->error_string(r, &text) || !text)
		text = "unknown";
	snprintf(buf, len, "%s %d (%s)", name, r, text);
	return buf;
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The CUDA path without a GPU: the loader, GPU choice and its errors, GPU buffers
 * through their host view, against the test suite's stand-in libcuda.so.1 (the
 * test runs with it on LD_LIBRARY_PATH; it stores device bytes scrambled, so a
 * byte that reached "GPU memory" without the copy calls shows). And the PCIe
 * relation between a GPU and a NIC, on fabricated sysfs trees.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "gpu/gpumem.h"
#include "base/log.h"
#include "verbs/mem.h"
#include "host/pcie.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Each failure names its layer; the next open starts afresh. Runs before any GPU is held. */
static void gpu_open_errors(void **state)
{
	(void)state;
	rb_forget_first_error();
	setenv("RB_STANDIN_CUDA_FAIL", "cuInit", 1);
	assert_int_equal(rb_gpu_open(0, NULL), -ENODEV);
	assert_non_null(strstr(rb_first_error(), "cuInit failed: CUDA_ERROR_NO_DEVICE"));
	assert_null(rb_gpu_report());
	unsetenv("RB_STANDIN_CUDA_FAIL");
	rb_forget_first_error();
	setenv("RB_STANDIN_CUDA_GPUS", "2", 1);
	assert_int_equal(rb_gpu_open(3, NULL), -ENODEV);
	assert_string_equal(rb_first_error(), "GPU 3 does not exist (2 GPUs)");
	rb_forget_first_error();
	assert_int_equal(rb_gpu_open(0, "0000:e7:00.0"), -ENODEV);
	assert_non_null(strstr(rb_first_error(), "no GPU at PCI bus id '0000:e7:00.0' (2 GPUs here)"));
	unsetenv("RB_STANDIN_CUDA_GPUS");
	rb_forget_first_error();
}

static void gpu_buffer_round_trip(void **state)
{
	struct rb_mem_opts o;
	struct rb_buf b;
	uint8_t *view;

	(void)state;
	rb_mem_opts_default(&o);
	o.cuda.on = true;
	assert_int_equal(rb_mem_opts_resolve(&o), 0);
	assert_int_equal(o.kind, RB_MEM_CUDA);
	assert_int_equal(o.gpu, 0);
	assert_int_equal(rb_buf_alloc(&b, 100000, &o, -1), 0);
	assert_true(rb_gpu_report()->standin);
	assert_int_equal(rb_gpu_report()->count, 1);
	assert_string_equal(rb_gpu_report()->bus_id, "0000:E0:00.0");
	assert_int_equal(b.map_len % (64 << 10), 0);
	assert_null(b.view); /* no host copy until one is asked for */
	view = rb_buf_view(&b, 0);
	assert_non_null(view);
	for (size_t i = 0; i < b.len; i++)
		view[i] = (uint8_t)(i * 7);
	assert_int_equal(rb_buf_push(&b, 0, b.len), 0);
	/* The device bytes are not the host's: only the copies translate. */
	assert_memory_not_equal(b.addr, view, 64);
	memset(view, 0, b.len);
	assert_int_equal(rb_buf_pull(&b, 100, 200), 0);
	for (size_t i = 100; i < 300; i++)
		assert_int_equal(view[i], (uint8_t)(i * 7));
	assert_int_equal(view[99], 0);
	assert_int_equal(rb_buf_zero(&b, 0, b.len), 0);
	assert_int_equal(rb_buf_pull(&b, 0, b.len), 0);
	for (size_t i = 0; i < b.len; i++)
		assert_int_equal(view[i], 0);
	/* Out of the allocation: the driver's error, named. */
	assert_int_equal(rb_buf_pull(&b, b.map_len, 1), -EIO);
	assert_non_null(strstr(rb_first_error(), "CUDA_ERROR_INVALID_VALUE"));
	/* One GPU per process. */
	assert_int_equal(rb_gpu_open(1, NULL), -EINVAL);
	rb_buf_free(&b);
	assert_null(b.addr);
}

/* Lines of the stand-in's trace file that start with what, their last number each, in order. */
static int trace_numbers(const char *path, const char *what, unsigned long long *out, int max)
{
	char line[200];
	int n = 0;
	FILE *f = fopen(path, "r");

	assert_non_null(f);
	while (fgets(line, sizeof(line), f) && n < max) {
		const char *last = strrchr(line, ' ');
		if (!strncmp(line, what, strlen(what)) && last)
			out[n++] = strtoull(last + 1, NULL, 10);
	}
	fclose(f);
	return n;
}

/* A GPU buffer of len bytes (a dma-buf one with dmabuf), and an empty trace file named in trace. */
static void gpu_buffer(struct rb_buf *b, size_t len, bool dmabuf, char *trace)
{
	struct rb_mem_opts o;
	int fd = mkstemp(trace);

	assert_true(fd >= 0);
	close(fd);
	rb_mem_opts_default(&o);
	o.cuda.on = !dmabuf;
	o.dmabuf.on = dmabuf;
	assert_int_equal(rb_mem_opts_resolve(&o), 0);
	assert_int_equal(rb_buf_alloc(b, len, &o, -1), 0);
}

/*
 * The stand-in plays a GPU whose RDMA writes are not ordered (ORDERING 0): every copy
 * out of GPU memory must come after a flush that came after the one before it.
 */
static void gpu_flush_before_copy(void **state)
{
	char trace[] = "/tmp/rb-trace.XXXXXX";
	unsigned long long seen[8];
	struct rb_buf b;
	int n;

	(void)state;
	gpu_buffer(&b, 8192, false, trace);
	assert_int_equal(rb_gpu_report()->ordering, 0);
	assert_int_equal(rb_gpu_report()->flush, RB_GPU_FLUSH_DRIVER);
	assert_non_null(rb_buf_view(&b, 0));
	setenv("RB_STANDIN_CUDA_TRACE", trace, 1);
	assert_int_equal(rb_buf_pull(&b, 0, 100), 0);
	assert_int_equal(rb_buf_pull(&b, 100, 100), 0);
	assert_int_equal(rb_buf_pull(&b, 200, 100), 0);
	unsetenv("RB_STANDIN_CUDA_TRACE");
	/* Each copy's line carries the flushes made before it: strictly more every time. */
	n = trace_numbers(trace, "dtoh ", seen, 8);
	assert_int_equal(n, 3);
	assert_true(seen[0] >= 1);
	assert_true(seen[1] > seen[0] && seen[2] > seen[1]);
	assert_true(rb_gpu_report()->flushes >= 3);
	unlink(trace);
	rb_buf_free(&b);
}

/* cuMemAlloc 256 bytes past a page: the buffer starts at the next page, its export stays inside. */
static void gpu_unaligned_allocation(void **state)
{
	char trace[] = "/tmp/rb-trace.XXXXXX";
	unsigned long long len[2];
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	struct rb_dmabuf_range r;
	struct rb_buf b;
	uint8_t *view;
	int fd;

	(void)state;
	setenv("RB_STANDIN_CUDA_UNALIGNED", "256", 1);
	gpu_buffer(&b, 100000, true, trace);
	unsetenv("RB_STANDIN_CUDA_UNALIGNED");
	assert_int_equal(b.base % page, 256);
	assert_int_equal((uintptr_t)b.addr % page, 0);
	assert_true((uintptr_t)b.addr > b.base && (uintptr_t)b.addr - b.base < page);
	/* The driver's own check (the stand-in's): page-aligned and inside the allocation. */
	setenv("RB_STANDIN_CUDA_TRACE", trace, 1);
	rb_gpu_dmabuf_mapping(RB_DMABUF_ASK_DEFAULT, false);
	fd = rb_buf_dmabuf(&b, &r);
	assert_true(fd >= 0);
	close(fd);
	assert_true(r.start == (uintptr_t)b.addr);
	assert_int_equal(r.len, (b.len + page - 1) / page * page);
	assert_int_equal(trace_numbers(trace, "export ", len, 2), 1);
	assert_int_equal(len[0], 0); /* flags: the default mapping */
	assert_non_null(strstr(rb_gpu_report()->map_used, "default mapping (--dmabuf-mapping)"));
	/* The PCIe mapping type asked for: a driver that refuses it gets the default one. */
	rb_gpu_dmabuf_mapping(RB_DMABUF_ASK_PCIE, false);
	fd = rb_buf_dmabuf(&b, &r);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(trace_numbers(trace, "export ", len, 2), 2);
	assert_true(len[0] == 0 && len[1] == 1);
	assert_non_null(strstr(rb_gpu_report()->map_used, "default mapping: the driver refused the PCIe"));
	assert_false(rb_gpu_report()->map_pcie);
	setenv("RB_STANDIN_CUDA_PCIE_MAPPING", "1", 1);
	fd = rb_buf_dmabuf(&b, &r);
	unsetenv("RB_STANDIN_CUDA_PCIE_MAPPING");
	assert_true(fd >= 0);
	close(fd);
	assert_non_null(strstr(rb_gpu_report()->map_used, "PCIe mapping type (--dmabuf-mapping)"));
	assert_true(rb_gpu_report()->map_pcie);
	unsetenv("RB_STANDIN_CUDA_TRACE");
	unlink(trace);
	/* The copies work at the shifted address. */
	view = rb_buf_view(&b, 0);
	assert_non_null(view);
	memset(view, 0x5a, b.len);
	assert_int_equal(rb_buf_push(&b, 0, b.len), 0);
	memset(view, 0, b.len);
	assert_int_equal(rb_buf_pull(&b, b.len - 10, 10), 0);
	assert_int_equal(view[b.len - 1], 0x5a);
	rb_buf_free(&b);
}

/*
 * Data Direct only for an export that got the PCIe mapping type: asked for but
 * refused by the driver (the default mapping, C2C on Grace), the usual path (NCCL).
 */
static void gpu_data_direct_needs_pcie_export(void **state)
{
	struct rb_gpu_report r = {.data_direct = 1, .pcie_map = true, .map_pcie = false};

	(void)state;
	assert_false(rb_gpu_data_direct_ok(&r)); /* asked, refused: default mapping */
	r.map_pcie = true;
	assert_true(rb_gpu_data_direct_ok(&r));
	r.data_direct = 0;
	assert_false(rb_gpu_data_direct_ok(&r)); /* no interface */
	r.data_direct = -1;
	assert_false(rb_gpu_data_direct_ok(&r)); /* not asked */
}

/* The hint names the GPU's own refusal before any peer-memory advice. */
static void gpu_reg_hints(void **state)
{
	(void)state;
	assert_non_null(strstr(rb_gpu_reg_hint(0, NULL), "GPU_DIRECT_RDMA_SUPPORTED is 0"));
	assert_null(strstr(rb_gpu_reg_hint(0, NULL), "modprobe"));
	assert_non_null(strstr(rb_gpu_reg_hint(0, "module/nvidia_peermem/version"), "no GPUDirect RDMA"));
	assert_non_null(strstr(rb_gpu_reg_hint(1, NULL), "modprobe nvidia_peermem"));
	assert_non_null(strstr(rb_gpu_reg_hint(-1, NULL), "modprobe nvidia_peermem"));
	assert_non_null(strstr(rb_gpu_reg_hint(1, "module/nvidia_peermem/version"), "is loaded"));
}

/* The CUDA documentation's rule: below OWNER (or unknown), flush where the driver can. */
static void gpu_flush_plans(void **state)
{
	(void)state;
	assert_int_equal(rb_gpu_flush_plan(0, 1, true, false), RB_GPU_FLUSH_DRIVER);
	assert_int_equal(rb_gpu_flush_plan(-1, -1, true, false), RB_GPU_FLUSH_DRIVER);
	assert_int_equal(rb_gpu_flush_plan(100, 1, true, false), RB_GPU_FLUSH_NOT_NEEDED);
	assert_int_equal(rb_gpu_flush_plan(200, 0, false, false), RB_GPU_FLUSH_NOT_NEEDED);
	assert_int_equal(rb_gpu_flush_plan(0, 1, false, false), RB_GPU_FLUSH_UNAVAILABLE);
	assert_int_equal(rb_gpu_flush_plan(0, 2, true, false), RB_GPU_FLUSH_UNAVAILABLE); /* MEMOPS only */
	/* Grace: ALL_DEVICES is the C2C path's; an export on the PCIe mapping is not covered. */
	assert_int_equal(rb_gpu_flush_plan(200, 1, true, true), RB_GPU_FLUSH_DRIVER);
	assert_int_equal(rb_gpu_flush_plan(200, 1, false, true), RB_GPU_FLUSH_UNAVAILABLE);
	assert_int_equal(rb_gpu_flush_plan(-1, -1, false, false), RB_GPU_FLUSH_UNAVAILABLE);
}

static void mem_options_resolve(void **state)
{
	struct rb_mem_opts o;

	(void)state;
	rb_mem_opts_default(&o);
	assert_int_equal(rb_mem_opts_resolve(&o), 0);
	assert_int_equal(o.kind, RB_MEM_HOST);
	/* perftest: --use_cuda_dmabuf, then --use_cuda=2 (perftest refuses this order) */
	rb_mem_opts_default(&o);
	o.dmabuf.on = true;
	o.cuda = (struct rb_gpu_pick){true, 2};
	assert_int_equal(rb_mem_opts_resolve(&o), 0);
	assert_int_equal(o.kind, RB_MEM_CUDA_DMABUF);
	assert_int_equal(o.gpu, 2);
	rb_mem_opts_default(&o);
	o.named = RB_MEM_HOST;
	o.cuda.on = true;
	assert_int_equal(rb_mem_opts_resolve(&o), -EINVAL);
	rb_mem_opts_default(&o);
	o.bus_id = "0000:e1:00.0";
	o.cuda = (struct rb_gpu_pick){true, 1};
	assert_int_equal(rb_mem_opts_resolve(&o), -EINVAL);
	rb_mem_opts_default(&o);
	o.named = RB_MEM_CUDA;
	o.hugepages = true;
	assert_int_equal(rb_mem_opts_resolve(&o), -EINVAL);
	/* --dmabuf-mapping without a dma-buf. */
	rb_mem_opts_default(&o);
	o.cuda.on = true;
	o.dmabuf_map = RB_DMABUF_ASK_PCIE;
	assert_int_equal(rb_mem_opts_resolve(&o), -EINVAL);
	o.dmabuf.on = true;
	assert_int_equal(rb_mem_opts_resolve(&o), 0);
}

/* A fabricated sysfs: PCI functions under one or two roots, the RDMA device's link. */
static char root[64];

static void mkpath(const char *rel)
{
	char p[1024], cmd[1100];

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	snprintf(cmd, sizeof(cmd), "mkdir -p '%s'", p);
	assert_int_equal(system(cmd), 0);
}

static void put(const char *rel, const char *text)
{
	char p[1024];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void link_to(const char *target, const char *rel)
{
	char p[1024];

	snprintf(p, sizeof(p), "%s/%s", root, rel);
	assert_int_equal(symlink(target, p), 0);
}

/* A PCI function at devices/path on NUMA node `node`, linked from `from` (three levels down). */
static void pci_function(const char *path, int node, const char *from)
{
	char rel[512], text[512];

	snprintf(rel, sizeof(rel), "devices/%s", path);
	mkpath(rel);
	snprintf(rel, sizeof(rel), "devices/%s/numa_node", path);
	snprintf(text, sizeof(text), "%d\n", node);
	put(rel, text);
	snprintf(text, sizeof(text), "../../../devices/%s", path);
	link_to(text, from);
}

/* GPU at gpu_path, NIC mlx5_0 at nic_path (relative to devices/; NULL: none), with NUMA nodes. */
static enum rb_pcie_rel relation(const char *gpu_path, int gnode, const char *nic_path, int nnode, char *desc)
{
	char cmd[96];
	enum rb_pcie_rel r;

	snprintf(root, sizeof(root), "/tmp/rb-sysfs.XXXXXX");
	assert_non_null(mkdtemp(root));
	mkpath("bus/pci/devices");
	mkpath("class/infiniband/mlx5_0");
	pci_function(gpu_path, gnode, "bus/pci/devices/0000:3b:00.0");
	if (nic_path)
		pci_function(nic_path, nnode, "class/infiniband/mlx5_0/device");
	r = rb_pcie_relation(root, "0000:3B:00.0", "mlx5_0", desc, 512);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
	return r;
}

static void pcie_relations(void **state)
{
	char d[512];

	(void)state;
	assert_int_equal(
	    relation("pci0000:3a/0000:3a:00.0/0000:3b:00.0", 0, "pci0000:3a/0000:3a:00.0/0000:3c:00.0", 0, d),
	    RB_PCIE_SWITCH);
	assert_non_null(strstr(d, "PIX/PXB"));
	assert_int_equal(
	    relation("pci0000:3a/0000:3a:00.0/0000:3b:00.0", 0, "pci0000:3a/0000:3a:02.0/0000:3d:00.0", 0, d),
	    RB_PCIE_HOST_BRIDGE);
	assert_int_equal(
	    relation("pci0000:3a/0000:3a:00.0/0000:3b:00.0", 0, "pci0000:17/0000:17:00.0/0000:18:00.0", 0, d),
	    RB_PCIE_NODE);
	assert_int_equal(
	    relation("pci0000:3a/0000:3a:00.0/0000:3b:00.0", 0, "pci0000:b0/0000:b0:00.0/0000:b1:00.0", 1, d),
	    RB_PCIE_SOCKETS);
	assert_non_null(strstr(d, "NUMA 1"));
	/* SoftRoCE: no device link. */
	assert_int_equal(relation("pci0000:3a/0000:3a:00.0/0000:3b:00.0", 0, NULL, 0, d), RB_PCIE_NOT_PCI);
	assert_non_null(strstr(d, "mlx5_0 has no PCI device"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(mem_options_resolve),
	    cmocka_unit_test(gpu_open_errors),
	    cmocka_unit_test(gpu_buffer_round_trip),
	    cmocka_unit_test(gpu_flush_before_copy),
	    cmocka_unit_test(gpu_unaligned_allocation),
	    cmocka_unit_test(gpu_reg_hints),
	    cmocka_unit_test(gpu_flush_plans),
	    cmocka_unit_test(pcie_relations),
	    cmocka_unit_test(gpu_data_direct_needs_pcie_export),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

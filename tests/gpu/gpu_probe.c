/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * gpu_probe [GPU [MAP]]: the CUDA half of GPUDirect without an RDMA device. Lists
 * the GPUs, selects one (default 0), allocates 64 MiB with SYNC_MEMOPS, moves a
 * pattern there and back through the copy calls (the way back flushed first where
 * the GPU asks for it) and checks it, and exports the buffer's pages as a dma-buf
 * with the mapping type MAP asks for (auto, pcie, default; default auto, which
 * without a NIC is the default type). Ends with the header's GPU lines (write order,
 * dma-buf export). tests/gpu/run runs it on a GPU host; the unit suite runs it
 * against the stand-in libcuda.so.1. Exit 0, 1 when a step failed, 2 for bad
 * arguments, no driver or no GPU.
 */
#include "gpu/gpumem.h"
#include "base/log.h"
#include "base/sig.h"
#include "verbs/mem.h"
#include "base/parse.h"
#include "measure/pattern.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PROBE_BYTES (64u << 20)

static int round_trip(struct rb_buf *b)
{
	uint8_t *view = rb_buf_view(b, 0), exp, got;
	size_t bad;

	if (!view)
		return 1;
	rb_pattern_fill(view, b->len, rb_pattern_tag(0, 42));
	if (rb_buf_push(b, 0, b->len))
		return 1;
	for (size_t i = 0; i < b->len; i++)
		view[i] = 0;
	if (rb_buf_pull(b, 0, b->len))
		return 1;
	if (rb_pattern_check(view, b->len, rb_pattern_tag(0, 42), &bad, &exp, &got)) {
		rb_err("the pattern came back wrong at byte %zu: 0x%02x, expected 0x%02x", bad, got, exp);
		return 1;
	}
	printf("copy: %u MiB host -> GPU -> host, pattern intact\n", PROBE_BYTES >> 20);
	return 0;
}

static int export_dmabuf(const struct rb_buf *b)
{
	const struct rb_gpu_report *g = rb_gpu_report();
	struct rb_dmabuf_range r;
	struct stat st;
	int fd;

	if (!rb_cuda_load()->get_handle) {
		printf("dma-buf: this driver has no cuMemGetHandleForAddressRange (CUDA 11.7 or later "
		       "needed)\n");
		return 0;
	}
	if (g->dmabuf_attr == 0) {
		printf("dma-buf: GPU %d says DMA_BUF_SUPPORTED = 0\n", g->index);
		return 0;
	}
	fd = rb_buf_dmabuf(b, &r);
	if (fd < 0)
		return 1;
	printf("dma-buf: exported [0x%llx, +%zu) of the allocation at 0x%llx as fd %d (%s)\n",
	       (unsigned long long)r.start, r.len, (unsigned long long)b->base, fd,
	       fstat(fd, &st) == 0 ? "a file descriptor the kernel knows" : "fstat failed");
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	struct rb_mem_opts o;
	struct rb_buf b;
	static const char *const maps[] = {"auto", "pcie", "default"};
	uint64_t gpu = 0;
	int n, ret, map = argc > 2 ? -1 : RB_DMABUF_ASK_AUTO;

	rb_log_init(argv[0]);
	for (int m = 0; argc > 2 && m < 3; m++)
		if (!strcmp(argv[2], maps[m]))
			map = m;
	if (argc > 3 || (argc >= 2 && rb_parse_u64_range(argv[1], 0, 1023, &gpu)) || map < 0) {
		fprintf(stderr, "usage: gpu_probe [GPU index, 0 to 1023 [auto|pcie|default]]\n");
		return 2;
	}
	if ((n = rb_gpu_list(stdout)) < 0)
		return 2;
	rb_mem_opts_default(&o);
	o.cuda = (struct rb_gpu_pick){true, (int)gpu};
	if (rb_mem_opts_resolve(&o) || rb_buf_alloc(&b, PROBE_BYTES, &o, -1))
		return rb_exit_code(-1);
	printf("GPU %d selected (%s, PCI %s)\n", rb_gpu_report()->index, rb_gpu_report()->name,
	       rb_gpu_report()->bus_id);
	rb_gpu_dmabuf_mapping(map, false);
	ret = round_trip(&b) || export_dmabuf(&b);
	rb_gpu_describe(stdout);
	printf("flushes: %llu\n", rb_gpu_report()->flushes);
	rb_buf_free(&b);
	return ret;
}

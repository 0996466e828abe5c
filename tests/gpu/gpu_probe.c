/*
 * gpu_probe [GPU]: the CUDA half of GPUDirect without an RDMA device. Lists the
 * GPUs, selects one (default 0), allocates 64 MiB with SYNC_MEMOPS, moves a pattern
 * there and back through the copy calls and checks it, and exports the allocation as
 * a dma-buf. tests/gpu/run runs it on a GPU host; the unit suite runs it against the
 * stand-in libcuda.so.1. Exit 0, 1 when a step failed, 2 for no driver or no GPU.
 */
#include "gpu.h"
#include "log.h"
#include "mem.h"
#include "parse.h"
#include "pattern.h"

#include <stdio.h>
#include <stdlib.h>
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
	fd = rb_gpu_dmabuf_fd((rb_cu_ptr)(uintptr_t)b->addr, b->map_len);
	if (fd < 0)
		return 1;
	printf("dma-buf: exported %zu bytes as fd %d (%s)\n", b->map_len, fd,
	       fstat(fd, &st) == 0 ? "a file descriptor the kernel knows" : "fstat failed");
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	struct rb_mem_opts o;
	struct rb_buf b;
	uint64_t gpu = 0;
	int n, ret;

	rb_log_init(argv[0]);
	if (argc > 2 || (argc == 2 && rb_parse_u64_range(argv[1], 0, 1023, &gpu))) {
		fprintf(stderr, "usage: gpu_probe [GPU index, 0 to 1023]\n");
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
	ret = round_trip(&b) || export_dmabuf(&b);
	rb_buf_free(&b);
	return ret;
}

/* SPDX-License-Identifier: BSD-2-Clause */
#include "mem.h"

#include "gpu/gpu.h"
#include "host/host.h"
#include "base/base.h"
#include "rb_config.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>
#if RB_HAVE_NUMA
#include <numa.h>
#endif

#define GPU_PAGE (64u << 10) /* GPUDirect maps GPU memory in 64 KiB pages */

void rb_mem_opts_default(struct rb_mem_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->numa_node = -1;
	o->named = -1;
	o->cuda.index = o->dmabuf.index = -1;
	o->gpu = -1;
	o->dmabuf_map = -1;
}

static const char *const kind_names[] = {"host", "cuda", "cuda-dmabuf"};

const char *rb_mem_kind_name(enum rb_mem_kind k)
{
	return kind_names[k];
}

static int parse_kind(const char *arg, void *dst)
{
	for (int k = 0; k < 3; k++)
		if (!strcmp(arg, kind_names[k])) {
			*(int *)dst = k;
			return 0;
		}
	return -EINVAL;
}

/* --use-cuda[=N]: N absent is "the default GPU". */
static int parse_pick(const char *arg, void *dst)
{
	struct rb_gpu_pick *p = dst;
	uint64_t v;
	int ret = arg ? rb_parse_u64_range(arg, 0, 1023, &v) : 0;

	if (ret)
		return ret;
	p->on = true;
	p->index = arg ? (int)v : -1;
	return 0;
}

int rb_mem_opts_resolve(struct rb_mem_opts *o)
{
	bool gpu = o->cuda.on || o->dmabuf.on || o->bus_id;
	int a = o->cuda.index, b = o->dmabuf.index;

	if (o->named == RB_MEM_HOST && gpu) {
		rb_usage_err("--mem host contradicts %s", o->bus_id      ? "--use-cuda-bus-id"
		                                          : o->dmabuf.on ? "--use-cuda-dmabuf"
		                                                         : "--use-cuda");
		return -EINVAL;
	}
	if (a >= 0 && b >= 0 && a != b) {
		rb_usage_err(
		    "--use-cuda=%d and --use-cuda-dmabuf=%d name different GPUs (one GPU per process)", a, b);
		return -EINVAL;
	}
	if (o->bus_id && (a >= 0 || b >= 0)) {
		rb_usage_err("--use-cuda-bus-id %s and a GPU index (%d) both choose the GPU: give one",
		             o->bus_id, a >= 0 ? a : b);
		return -EINVAL;
	}
	if (o->named == RB_MEM_CUDA && o->dmabuf.on) {
		rb_usage_err(
		    "--mem cuda contradicts --use-cuda-dmabuf (give --mem cuda-dmabuf, or one of them)");
		return -EINVAL;
	}
	if (o->dmabuf.on || o->named == RB_MEM_CUDA_DMABUF)
		o->kind = RB_MEM_CUDA_DMABUF;
	else if (gpu || o->named == RB_MEM_CUDA)
		o->kind = RB_MEM_CUDA;
	else
		o->kind = RB_MEM_HOST;
	o->gpu = o->kind == RB_MEM_HOST ? -1 : a >= 0 ? a : b >= 0 ? b : 0;
	if (o->dmabuf_map >= 0 && o->kind != RB_MEM_CUDA_DMABUF) {
		rb_usage_err("--dmabuf-mapping is for GPU memory exported as a dma-buf (--use-cuda-dmabuf); "
		             "the buffers are %s memory here",
		             kind_names[o->kind]);
		return -EINVAL;
	}
	if (o->kind != RB_MEM_HOST && o->hugepages) {
		rb_usage_err("--hugepages is for host memory; the buffers are GPU memory here (%s)",
		             kind_names[o->kind]);
		return -EINVAL;
	}
	return 0;
}

static const char *const map_names[] = {"auto", "pcie", "default"};

static int parse_map(const char *arg, void *dst)
{
	for (int k = 0; k < 3; k++)
		if (!strcmp(arg, map_names[k])) {
			*(int *)dst = k;
			return 0;
		}
	return -EINVAL;
}

static int parse_node(const char *arg, void *dst)
{
	uint64_t v;
	int ret = rb_parse_u64_range(arg, 0, 1023, &v);
	if (!ret)
		*(int *)dst = (int)v;
	return ret;
}

struct rb_opt_table rb_mem_opt_table(struct rb_mem_opts *o)
{
	static const struct rb_opt rows[] = {
	    {.name = "hugepages",
	     .type = RB_OPT_FLAG,
	     .off = offsetof(struct rb_mem_opts, hugepages),
	     .help = "back buffers with huge pages of the default size (Hugepagesize in /proc/meminfo)"},
	    {.name = "numa-node",
	     .type = RB_OPT_FN,
	     .off = offsetof(struct rb_mem_opts, numa_node),
	     .arg = "NODE",
	     .help = "place buffers on NODE and run on its CPUs, unless the process is bound already "
	             "(taskset, numactl) (default: the device's node)",
	     .fn = parse_node,
	     .allowed = "an integer from 0 to 1023"},
	    {.name = "mem",
	     .type = RB_OPT_FN,
	     .off = offsetof(struct rb_mem_opts, named),
	     .arg = "KIND",
	     .help = "buffers in host memory (default), GPU memory registered through nvidia_peermem (cuda) "
	             "or as a dma-buf (cuda-dmabuf)",
	     .fn = parse_kind,
	     .allowed = "host, cuda, cuda-dmabuf"},
	    {.name = "use-cuda",
	     .type = RB_OPT_FN,
	     .off = offsetof(struct rb_mem_opts, cuda),
	     .arg = "N",
	     .help = "GPU memory on GPU N (default 0), registered with ibv_reg_mr: needs nvidia_peermem",
	     .fn = parse_pick,
	     .allowed = "a GPU index from 0 to 1023",
	     .flags = RB_OPT_OPTARG},
	    {.name = "use-cuda-dmabuf",
	     .type = RB_OPT_FN,
	     .off = offsetof(struct rb_mem_opts, dmabuf),
	     .arg = "N",
	     .help = "GPU memory on GPU N (default 0), exported as a dma-buf and registered with "
	             "ibv_reg_dmabuf_mr",
	     .fn = parse_pick,
	     .allowed = "a GPU index from 0 to 1023",
	     .flags = RB_OPT_OPTARG},
	    {.name = "use-cuda-bus-id",
	     .type = RB_OPT_STR,
	     .off = offsetof(struct rb_mem_opts, bus_id),
	     .arg = "BDF",
	     .help = "the GPU at PCI address BDF (e.g. 0000:3b:00.0) instead of an index"},
	    {.name = "disable-pcie-relaxed",
	     .type = RB_OPT_FLAG,
	     .off = offsetof(struct rb_mem_opts, no_relaxed),
	     .help = "register the data buffers without PCIe relaxed ordering (IBV_ACCESS_RELAXED_ORDERING, "
	             "requested by default where the device takes it)"},
	    {.name = "dmabuf-mapping",
	     .type = RB_OPT_FN,
	     .off = offsetof(struct rb_mem_opts, dmabuf_map),
	     .arg = "MAP",
	     .help = "the dma-buf mapping type to ask the driver for: pcie, default, or auto (default: pcie "
	             "where the NIC has an mlx5 Data Direct interface, as NCCL)",
	     .fn = parse_map,
	     .allowed = "auto, pcie, default"},
	    {0},
	};
	return (struct rb_opt_table){"Memory", rows, o, false, NULL};
}

/*
 * GPU memory in whole 64 KiB pages, zeroed, starting on a host page boundary: a
 * dma-buf export takes whole host pages inside the allocation (rb_dmabuf_range).
 * cuMemAlloc promises less alignment than a page; where it gives less, the buffer
 * is allocated again a page longer and starts at the first boundary in it.
 */
static int gpu_alloc(struct rb_buf *b, size_t len, const struct rb_mem_opts *o)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE), unit = page > GPU_PAGE ? page : GPU_PAGE, got;
	struct rb_dmabuf_range r;
	rb_cu_ptr p;
	int ret = rb_gpu_open(o->gpu, o->bus_id);

	memset(b, 0, sizeof(*b));
	b->numa_node = -1;
	if (ret)
		return ret;
	b->kind = o->kind;
	b->len = len;
	b->map_len = (len + unit - 1) / unit * unit;
	if ((ret = rb_gpu_alloc(got = b->map_len, &p)) != 0)
		return ret;
	if (rb_dmabuf_range(p, got, b->map_len, page, &r)) {
		rb_gpu_free(p);
		if ((ret = rb_gpu_alloc(got = b->map_len + page, &p)) != 0)
			return ret;
		if ((ret = rb_dmabuf_range(p, got, b->map_len, page, &r)) != 0) {
			rb_err("GPU allocation at 0x%llx (%zu bytes) holds no page-aligned %zu bytes",
			       (unsigned long long)p, got, b->map_len);
			rb_gpu_free(p);
			return ret;
		}
	}
	b->base = (uintptr_t)p;
	b->addr = (void *)(uintptr_t)r.start;
	return 0;
}

int rb_buf_alloc(struct rb_buf *b, size_t len, const struct rb_mem_opts *o, int dev_node)
{
	size_t page = o->hugepages ? rb_hugepage_size("/proc/meminfo") : (size_t)sysconf(_SC_PAGESIZE);
	char hp[24];
	int flags = MAP_PRIVATE | MAP_ANONYMOUS | (o->hugepages ? MAP_HUGETLB : 0);
	int node = o->numa_node >= 0 ? o->numa_node : dev_node;

	if (o->kind != RB_MEM_HOST)
		return gpu_alloc(b, len, o);
	if (!page) {
		rb_usage_err("--hugepages: this kernel has no huge pages (no Hugepagesize in /proc/meminfo)");
		return -EINVAL;
	}
	memset(b, 0, sizeof(*b));
	b->numa_node = -1;
	b->len = len;
	b->map_len = (len + page - 1) / page * page;
	b->addr = mmap(NULL, b->map_len, PROT_READ | PROT_WRITE, flags, -1, 0);
	if (b->addr == MAP_FAILED) {
		int err = errno;
		b->addr = NULL;
		if (o->hugepages)
			rb_err("cannot map %zu bytes of %s huge pages (the default size): %s (see "
			       "/proc/sys/vm/nr_hugepages)",
			       b->map_len, rb_hugepage_name(page, hp, sizeof(hp)), strerror(err));
		else
			rb_err("cannot map %zu bytes: %s", b->map_len, strerror(err));
		return -err;
	}
	b->huge = o->hugepages ? page : 0;
#if RB_HAVE_NUMA
	/* Bind before first touch so the pages land on the device's node. */
	if (node >= 0 && numa_available() >= 0 && node <= numa_max_node()) {
		numa_tonode_memory(b->addr, b->map_len, node);
		b->numa_node = node;
	} else if (o->numa_node >= 0) {
		rb_usage_err("NUMA node %d does not exist here", o->numa_node);
		rb_buf_free(b);
		return -EINVAL;
	}
#else
	if (o->numa_node >= 0)
		rb_warn("built without libnuma: --numa-node %d ignored", o->numa_node);
	(void)node;
#endif
	memset(b->addr, 0, b->map_len); /* fault the pages in now, not in the timed loop */
	b->view = b->addr;
	return 0;
}

void rb_buf_free(struct rb_buf *b)
{
	if (b->kind != RB_MEM_HOST) {
		rb_gpu_free((rb_cu_ptr)b->base);
		free(b->view);
	} else if (b->addr) {
		munmap(b->addr, b->map_len);
	}
	b->addr = b->view = NULL;
}

uint8_t *rb_buf_view(struct rb_buf *b, size_t off)
{
	if (!b->view && b->addr) {
		b->view = calloc(1, b->map_len);
		if (!b->view) {
			rb_err("out of memory for a %zu-byte host copy of GPU memory", b->map_len);
			return NULL;
		}
	}
	return b->view ? (uint8_t *)b->view + off : NULL;
}

int rb_buf_push(const struct rb_buf *b, size_t off, size_t len)
{
	if (b->kind == RB_MEM_HOST)
		return 0;
	return rb_gpu_to_device((rb_cu_ptr)(uintptr_t)b->addr + off, (uint8_t *)b->view + off, len);
}

int rb_buf_zero(struct rb_buf *b, size_t off, size_t len)
{
	if (b->kind == RB_MEM_HOST) {
		memset((uint8_t *)b->addr + off, 0, len);
		return 0;
	}
	return rb_gpu_zero((rb_cu_ptr)(uintptr_t)b->addr + off, len);
}

int rb_buf_pull(const struct rb_buf *b, size_t off, size_t len)
{
	int ret;

	if (b->kind == RB_MEM_HOST)
		return 0;
	/* A completion says the NIC is done, not that the GPU's own copy sees every byte yet. */
	if ((ret = rb_gpu_flush_writes()) != 0)
		return ret;
	return rb_gpu_to_host((uint8_t *)b->view + off, (rb_cu_ptr)(uintptr_t)b->addr + off, len);
}

const char *rb_access_fmt(unsigned access, char *buf, unsigned len)
{
	static const struct {
		unsigned bit;
		const char *name;
	} names[] = {
	    {IBV_ACCESS_LOCAL_WRITE, "LOCAL_WRITE"},           {IBV_ACCESS_REMOTE_WRITE, "REMOTE_WRITE"},
	    {IBV_ACCESS_REMOTE_READ, "REMOTE_READ"},           {IBV_ACCESS_REMOTE_ATOMIC, "REMOTE_ATOMIC"},
	    {IBV_ACCESS_RELAXED_ORDERING, "RELAXED_ORDERING"},
	};
	unsigned off = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (access & names[i].bit && off < len)
			off +=
			    (unsigned)snprintf(buf + off, len - off, "%s%s", off ? "|" : "", names[i].name);
	if (!off)
		snprintf(buf, len, "none");
	return buf;
}

/*
 * Bytes this process holds registered: the kernel charges every registered page to
 * RLIMIT_MEMLOCK (unless the process has CAP_IPC_LOCK), so this is what the limit
 * must cover. Registration happens on one thread, at setup.
 */
static size_t pinned_bytes;

/* The whole pages [addr, addr + len) touches: what the kernel pins. */
static size_t page_span(const void *addr, size_t len)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), a = (uintptr_t)addr;

	return (size_t)((a + len + page - 1) / page * page - a / page * page);
}

/* CAP_IPC_LOCK (bit 14 of CapEff) lifts RLIMIT_MEMLOCK for registration. */
bool rb_memlock_unlimited(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	unsigned long long caps = 0;
	char line[256];
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "CapEff: %llx", &caps) == 1;
	fclose(f);
	return found && (caps >> 14 & 1);
}

/*
 * ENOMEM from ibv_reg_mr when the pages exceed RLIMIT_MEMLOCK is the host's limit,
 * not the run: say what was being registered, what the limit is, what the run needs
 * and how to raise it, and exit 2. Returns false when the limit is not the cause.
 */
static bool memlock_refused(const struct rb_buf *b, size_t span, const char *acc)
{
	struct rlimit rl;
	size_t need = pinned_bytes + span;

	if (getrlimit(RLIMIT_MEMLOCK, &rl) || rl.rlim_cur == RLIM_INFINITY || need <= rl.rlim_cur ||
	    rb_memlock_unlimited())
		return false;
	rb_usage_err("cannot register %zu bytes (access %s): the locked-memory limit RLIMIT_MEMLOCK is "
	             "%llu bytes, this run needs at least %zu (%zu registered before); raise it with "
	             "'ulimit -l %zu' (KiB) or 'ulimit -l unlimited', a memlock line in "
	             "/etc/security/limits.conf, or LimitMEMLOCK=infinity for a systemd service",
	             b->len, acc, (unsigned long long)rl.rlim_cur, need, pinned_bytes, (need + 1023) / 1024);
	return true;
}

/*
 * GPU memory: ibv_reg_mr on the device address (the NIC driver asks the peer-memory
 * client for the pages), or the allocation exported as a dma-buf, registered at
 * iova = its device address, and the fd closed (the MR keeps the buffer).
 */
static int gpu_reg(struct ibv_pd *pd, const struct rb_buf *b, unsigned access, struct rb_mr *out, bool again)
{
	/* The first registration failing is the host's set-up (exit 2); a later one, the run's. */
	void (*say)(const char *, ...) = again ? rb_err : rb_usage_err;
	const char *dev = ibv_get_device_name(pd->context->device);
	uint64_t t0 = rb_now_ns();
	struct rb_dmabuf_range r;
	char acc[96];
	int fd, err;

	rb_access_fmt(access, acc, sizeof(acc));
	errno = 0;
	if (b->kind == RB_MEM_CUDA) {
		out->mr = ibv_reg_mr(pd, b->addr, b->len, (int)access);
		err = errno ? errno : EINVAL;
		out->reg_us = (double)(rb_now_ns() - t0) / 1e3;
		if (!out->mr) {
			say("ibv_reg_mr on GPU memory failed (%zu bytes, %s, %s): %s: %s", b->len, acc, dev,
			    strerror(err), rb_gpu_peermem_hint());
			return -err;
		}
		return 0;
	}
	/* The buffer starts the exported range (gpu_alloc): offset 0, iova = the device address. */
	if ((fd = rb_buf_dmabuf(b, &r)) < 0)
		return fd;
	out->mr = rb_gpu_reg_dmabuf(pd, b->len, r.start, fd, (int)access);
	err = errno ? errno : EINVAL;
	close(fd);
	out->reg_us = (double)(rb_now_ns() - t0) / 1e3;
	if (!out->mr) {
		if (err == EOPNOTSUPP || err == EPROTONOSUPPORT)
			say("NIC %s does not support dma-buf registration (%s)", dev,
			    err == EOPNOTSUPP ? "EOPNOTSUPP" : "EPROTONOSUPPORT");
		else
			say("ibv_reg_dmabuf_mr on GPU memory failed (%zu bytes, %s, %s): %s", b->len, acc,
			    dev, strerror(err));
		return -err;
	}
	return 0;
}

int rb_buf_dmabuf(const struct rb_buf *b, struct rb_dmabuf_range *r)
{
	int ret = rb_dmabuf_range((uintptr_t)b->addr, b->map_len, b->len, (size_t)sysconf(_SC_PAGESIZE), r);

	if (ret) {
		rb_err("GPU buffer at %p (%zu of %zu bytes) is not page-aligned for a dma-buf export",
		       b->addr, b->len, b->map_len);
		return ret;
	}
	return rb_gpu_dmabuf_fd((rb_cu_ptr)r->start, r->len);
}

static int reg(struct ibv_pd *pd, const struct rb_buf *b, unsigned access, struct rb_mr *out, bool again)
{
	uint64_t t0 = rb_now_ns();
	char acc[96];

	out->pinned = 0;
	if (b->kind != RB_MEM_HOST)
		return gpu_reg(pd, b, access, out, again); /* GPU pages are not charged to RLIMIT_MEMLOCK */
	errno = 0;
	out->mr = ibv_reg_mr(pd, b->addr, b->len, (int)access);
	out->reg_us = (double)(rb_now_ns() - t0) / 1e3;
	if (!out->mr) {
		int err = errno ? errno : EINVAL;
		rb_access_fmt(access, acc, sizeof(acc));
		if (err == ENOMEM && memlock_refused(b, page_span(b->addr, b->len), acc))
			return -ENOMEM;
		rb_err("ibv_reg_mr(%zu bytes, %s) failed: %s%s", b->len, acc, strerror(err),
		       err == ENOMEM ? " (out of memory, or other locked memory counts against ulimit -l)"
		                     : "");
		return -err;
	}
	out->pinned = page_span(b->addr, b->len);
	pinned_bytes += out->pinned;
	return 0;
}

int rb_mr_reg(struct ibv_pd *pd, const struct rb_buf *b, unsigned access, struct rb_mr *out)
{
	return reg(pd, b, access, out, false);
}

int rb_mr_reg_again(struct ibv_pd *pd, const struct rb_buf *b, unsigned access, struct rb_mr *out)
{
	return reg(pd, b, access, out, true);
}

double rb_mr_dereg_timed(struct rb_mr *m)
{
	uint64_t t0 = rb_now_ns();

	if (m->mr) {
		ibv_dereg_mr(m->mr);
		pinned_bytes -= m->pinned;
	}
	m->mr = NULL;
	m->pinned = 0;
	return (double)(rb_now_ns() - t0) / 1e3;
}

void rb_mr_dereg(struct rb_mr *m)
{
	rb_mr_dereg_timed(m);
}

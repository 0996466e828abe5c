#include "mem.h"

#include "log.h"
#include "parse.h"
#include "rb_config.h"
#include "timeutil.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>
#if RB_HAVE_NUMA
#include <numa.h>
#endif

#define HUGE_PAGE (2u << 20)

void rb_mem_opts_default(struct rb_mem_opts *o)
{
	o->hugepages = false;
	o->numa_node = -1;
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
	    {"hugepages", 0, RB_OPT_FLAG, offsetof(struct rb_mem_opts, hugepages), NULL,
	     "back buffers with 2 MiB huge pages", 0, 0, NULL, NULL, 0},
	    {"numa-node", 0, RB_OPT_FN, offsetof(struct rb_mem_opts, numa_node), "NODE",
	     "place buffers on NODE (default: the device's node)", 0, 0, parse_node,
	     "an integer from 0 to 1023", 0},
	    {0},
	};
	return (struct rb_opt_table){"Memory", rows, o, false};
}

int rb_buf_alloc(struct rb_buf *b, size_t len, const struct rb_mem_opts *o, int dev_node)
{
	size_t page = o->hugepages ? HUGE_PAGE : (size_t)sysconf(_SC_PAGESIZE);
	int flags = MAP_PRIVATE | MAP_ANONYMOUS | (o->hugepages ? MAP_HUGETLB : 0);
	int node = o->numa_node >= 0 ? o->numa_node : dev_node;

	memset(b, 0, sizeof(*b));
	b->numa_node = -1;
	b->len = len;
	b->map_len = (len + page - 1) / page * page;
	b->addr = mmap(NULL, b->map_len, PROT_READ | PROT_WRITE, flags, -1, 0);
	if (b->addr == MAP_FAILED) {
		int err = errno;
		b->addr = NULL;
		if (o->hugepages)
			rb_err("cannot map %zu bytes of huge pages: %s (see /proc/sys/vm/nr_hugepages)",
			       b->map_len, strerror(err));
		else
			rb_err("cannot map %zu bytes: %s", b->map_len, strerror(err));
		return -err;
	}
	b->huge = o->hugepages;
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
	return 0;
}

void rb_buf_free(struct rb_buf *b)
{
	if (b->addr)
		munmap(b->addr, b->map_len);
	b->addr = NULL;
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
static bool can_lock_any(void)
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
	    can_lock_any())
		return false;
	rb_usage_err("cannot register %zu bytes (access %s): the locked-memory limit RLIMIT_MEMLOCK is "
	             "%llu bytes, this run needs at least %zu (%zu registered before); raise it with "
	             "'ulimit -l %zu' (KiB) or 'ulimit -l unlimited', a memlock line in "
	             "/etc/security/limits.conf, or LimitMEMLOCK=infinity for a systemd service",
	             b->len, acc, (unsigned long long)rl.rlim_cur, need, pinned_bytes, (need + 1023) / 1024);
	return true;
}

int rb_mr_reg(struct ibv_pd *pd, const struct rb_buf *b, unsigned access, struct rb_mr *out)
{
	uint64_t t0 = rb_now_ns();
	char acc[96];

	out->mr = ibv_reg_mr(pd, b->addr, b->len, (int)access);
	out->reg_us = (double)(rb_now_ns() - t0) / 1e3;
	out->pinned = 0;
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

void rb_mr_dereg(struct rb_mr *m)
{
	if (m->mr) {
		ibv_dereg_mr(m->mr);
		pinned_bytes -= m->pinned;
	}
	m->mr = NULL;
	m->pinned = 0;
}

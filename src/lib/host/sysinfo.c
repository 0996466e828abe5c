/* SPDX-License-Identifier: BSD-2-Clause */
#include "sysinfo.h"

#include "base/base.h"
#include "rb_config.h"
#include "rb_git.h"

#include <dlfcn.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

void rb_meta_system(struct rb_row *meta, const char *tool)
{
	struct utsname u;
	char host[256] = "unknown", when[32] = "", rc[32];
	time_t now = time(NULL);
	struct tm tm;

	gethostname(host, sizeof(host) - 1);
	if (gmtime_r(&now, &tm))
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	rb_row_str(meta, "tool", NULL, tool);
	rb_row_str(meta, "version", NULL, RB_VERSION);
	rb_row_str(meta, "date", NULL, when);
	rb_row_u64(meta, "epoch_s", NULL, (uint64_t)now);
	rb_row_str(meta, "host", NULL, host);
	rb_row_str(meta, "kernel", NULL, uname(&u) ? "unknown" : u.release);
	rb_row_str(meta, "rdma_core_version", NULL, rb_rdma_core_runtime(rc, sizeof(rc)));
	rb_row_str(meta, "rdma_core_built", NULL, RB_IBVERBS_VERSION);
	rb_row_str(meta, "git_rev", NULL, RB_GIT_REV);
}

const char *rb_rdma_core_runtime(char *buf, size_t len)
{
	Dl_info info;
	char path[PATH_MAX];
	const char *so;
	unsigned a, b, major, minor;
	void *lib, *sym;

	/*
	 * The libibverbs.so.1 this process loaded, or would load: looked up at run time,
	 * so that a tool without verbs (socket_bw) neither needs libibverbs to start nor
	 * loads more than this for its version line. None there: rdma-core is not installed.
	 */
	lib = dlopen("libibverbs.so.1", RTLD_LAZY | RTLD_LOCAL);
	if (!lib) {
		snprintf(buf, len, "none");
		return buf;
	}
	snprintf(buf, len, "unknown");
	sym = dlsym(lib, "ibv_get_device_list");
	/* The versioned file behind it. */
	if (sym && dladdr(sym, &info) && info.dli_fname && realpath(info.dli_fname, path)) {
		so = strstr(path, ".so.");
		if (so && sscanf(so, ".so.%u.%u.%u.%u", &a, &b, &major, &minor) == 4)
			snprintf(buf, len, "%u.%u", major, minor);
	}
	dlclose(lib);
	return buf;
}

void rb_print_version(FILE *f)
{
	char rc[32];

	fprintf(f, "%s (rdmabench) %s, revision %s\n", rb_prog(), RB_VERSION, RB_GIT_REV);
	fprintf(f, "rdma-core %s at run time (built against %s)\n", rb_rdma_core_runtime(rc, sizeof(rc)),
	        RB_IBVERBS_VERSION);
}

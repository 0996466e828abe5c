/* SPDX-License-Identifier: BSD-2-Clause */
#include "datadirect.h"

#include <dlfcn.h>
#include <errno.h>
#include <string.h>

#define LIBMLX5                       "libmlx5.so.1"
#define REG_DMABUF_ACCESS_DATA_DIRECT 1 /* MLX5DV_REG_DMABUF_ACCESS_DATA_DIRECT */

typedef int (*dd_path_fn)(struct ibv_context *, char *, size_t);
typedef struct ibv_mr *(*dd_reg_fn)(struct ibv_pd *, uint64_t, size_t, uint64_t, int, int, int);

/* An entry point of libmlx5, or NULL where the library or the entry point is missing. */
static void *mlx5_sym(const char *name)
{
	static void *lib;
	static int tried;

	if (!tried) {
		tried = 1;
		lib = dlopen(LIBMLX5, RTLD_NOW | RTLD_LOCAL);
	}
	return lib ? dlsym(lib, name) : NULL;
}

int rb_data_direct(struct ibv_context *ctx, char *path, size_t len)
{
	void *p = mlx5_sym("mlx5dv_get_data_direct_sysfs_path");
	dd_path_fn fn;

	if (!p)
		return 0;
	memcpy(&fn, &p, sizeof(fn)); /* POSIX: a dlsym result converts to a function pointer */
	/* Non-mlx5 devices and mlx5 functions without the interface answer an error. */
	return fn(ctx, path, len) == 0;
}

struct ibv_mr *rb_data_direct_reg_dmabuf(struct ibv_pd *pd, uint64_t off, size_t len, uint64_t iova, int fd,
                                         int access)
{
	void *p = mlx5_sym("mlx5dv_reg_dmabuf_mr");
	dd_reg_fn fn;

	if (!p) {
		errno = ENOSYS;
		return NULL;
	}
	memcpy(&fn, &p, sizeof(fn));
	return fn(pd, off, len, iova, fd, access, REG_DMABUF_ACCESS_DATA_DIRECT);
}

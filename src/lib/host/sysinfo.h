/* SPDX-License-Identifier: BSD-2-Clause */
/* The meta block every result document carries: host, kernel, library versions. */
#ifndef RB_SYSINFO_H
#define RB_SYSINFO_H

#include "base/base.h"

#include <stddef.h>
#include <stdio.h>

void rb_meta_system(struct rb_row *meta, const char *tool);
/*
 * The rdma-core release whose libibverbs this process runs on (from the loaded
 * library's file name, libibverbs.so.1.14.44.0 -> "44.0"), which can differ from
 * the one it was built against; "none" when there is no libibverbs.so.1 to load,
 * "unknown" when its release cannot be told.
 */
const char *rb_rdma_core_runtime(char *buf, size_t len);
/* --version: the tool, its version and source revision, the rdma-core it runs on. */
void rb_print_version(FILE *f);

#endif

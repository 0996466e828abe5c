/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The default huge page size: what MAP_HUGETLB gives without a size flag, and so
 * what --hugepages buffers are made of (2 MiB on most x86-64 hosts, 1 GiB where the
 * kernel was booted with default_hugepagesz=1G, 512 MiB on some arm64 kernels).
 */
#ifndef RB_HUGEPAGE_H
#define RB_HUGEPAGE_H

#include <stddef.h>

/* The size in /proc/meminfo's text ("Hugepagesize:    2048 kB"), in bytes; 0 when absent. */
size_t rb_hugepage_parse(const char *meminfo);
/* This host's (path: normally "/proc/meminfo"); 0 when the kernel has no huge pages. */
size_t rb_hugepage_size(const char *path);
/* "2 MiB", "1 GiB", "64 KiB"; buf >= 24 bytes. */
const char *rb_hugepage_name(size_t bytes, char *buf, size_t len);

#endif

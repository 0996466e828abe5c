/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The test suite's counting allocator (LD_PRELOAD): every malloc, calloc, realloc and
 * aligned allocation of the process, from any thread, counted before glibc serves it.
 * The tools read the count through rb_alloc_count (run/window.h) around each step.
 */
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);
extern void *__libc_memalign(size_t align, size_t n);

static atomic_uint_least64_t count;

uint64_t rb_alloc_count(void);
uint64_t rb_alloc_count(void)
{
	return atomic_load(&count);
}

void *malloc(size_t n)
{
	atomic_fetch_add(&count, 1);
	return __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
	atomic_fetch_add(&count, 1);
	return __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
	atomic_fetch_add(&count, 1);
	return __libc_realloc(p, n);
}

void *memalign(size_t align, size_t n)
{
	atomic_fetch_add(&count, 1);
	return __libc_memalign(align, n);
}

void *aligned_alloc(size_t align, size_t n)
{
	atomic_fetch_add(&count, 1);
	return __libc_memalign(align, n);
}

int posix_memalign(void **out, size_t align, size_t n)
{
	void *p;

	atomic_fetch_add(&count, 1);
	p = __libc_memalign(align, n);
	if (!p)
		return 12; /* ENOMEM */
	*out = p;
	return 0;
}

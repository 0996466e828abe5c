/* SPDX-License-Identifier: BSD-2-Clause */
#include "chunks.h"

uint64_t rb_chunk_size(uint64_t size, unsigned nsocks)
{
	uint64_t c = (size + nsocks - 1) / nsocks;

	if (c < RB_MIN_CHUNK)
		c = RB_MIN_CHUNK;
	return (c + 7) & ~7ull; /* verify patterns are laid out in 8-byte words */
}

unsigned rb_chunk_count(uint64_t size, unsigned nsocks)
{
	uint64_t c = rb_chunk_size(size, nsocks);
	return size ? (unsigned)((size + c - 1) / c) : 0;
}

void rb_chunk(uint64_t size, unsigned nsocks, unsigned k, uint64_t *off, uint64_t *len)
{
	uint64_t c = rb_chunk_size(size, nsocks);

	*off = (uint64_t)k * c;
	*len = *off >= size ? 0 : (size - *off < c ? size - *off : c);
}

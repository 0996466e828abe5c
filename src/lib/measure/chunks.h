/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * How a message is split over sockets, as NCCL's socket transport does it: chunks of
 * max(64 KiB, ceil(size / nsocks)) (rounded up to 8 bytes), handed to the sockets in
 * turn. A message smaller than a chunk goes whole to one socket.
 */
#ifndef RB_CHUNKS_H
#define RB_CHUNKS_H

#include <stdint.h>

#define RB_MIN_CHUNK (64u << 10)

uint64_t rb_chunk_size(uint64_t size, unsigned nsocks);
/* Number of chunks, and chunk k's offset and length. */
unsigned rb_chunk_count(uint64_t size, unsigned nsocks);
void rb_chunk(uint64_t size, unsigned nsocks, unsigned k, uint64_t *off, uint64_t *len);
/* Which socket carries chunk k of message m (the first chunk rotates with m). */
static inline unsigned rb_chunk_socket(uint64_t m, unsigned k, unsigned nsocks)
{
	return (unsigned)((m + k) % nsocks);
}
/* The other way round: which chunk of message m socket s carries (none when >= the count). */
static inline unsigned rb_socket_chunk(uint64_t m, unsigned s, unsigned nsocks)
{
	return (unsigned)((s + nsocks - m % nsocks) % nsocks);
}

#endif

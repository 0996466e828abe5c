/* SPDX-License-Identifier: BSD-2-Clause */
#include "fifo.h"

#include <errno.h>
#include <stdio.h>

static void put32(uint8_t *p, uint32_t v)
{
	for (unsigned i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *p, uint64_t v)
{
	for (unsigned i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t get32(const uint8_t *p)
{
	uint32_t v = 0;
	for (unsigned i = 0; i < 4; i++)
		v |= (uint32_t)p[i] << (8 * i);
	return v;
}

static uint64_t get64(const uint8_t *p)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

void fifo_elem_encode(uint8_t out[FIFO_ELEM_BYTES], const struct fifo_elem *e)
{
	for (unsigned i = 0; i < FIFO_ELEM_BYTES; i++)
		out[i] = 0;
	put64(out, e->addr);
	put64(out + 8, e->size);
	for (unsigned i = 0; i < 4; i++)
		put32(out + 16 + 4 * i, e->rkeys[i]);
	put32(out + 32, e->nreqs);
	put32(out + 36, e->tag);
	put64(out + FIFO_IDX_OFF, e->idx);
}

void fifo_elem_decode(const uint8_t in[FIFO_ELEM_BYTES], struct fifo_elem *e)
{
	e->addr = get64(in);
	e->size = get64(in + 8);
	for (unsigned i = 0; i < 4; i++)
		e->rkeys[i] = get32(in + 16 + 4 * i);
	e->nreqs = get32(in + 32);
	e->tag = get32(in + 36);
	e->idx = get64(in + FIFO_IDX_OFF);
}

void fifo_sizes_encode(uint8_t *out, unsigned n, uint32_t size)
{
	for (unsigned r = 0; r < n; r++)
		put32(out + 4 * r, size);
}

uint32_t fifo_sizes_get(const uint8_t *slot, unsigned r)
{
	return get32(slot + 4 * r);
}

uint64_t fifo_elem_idx(const volatile uint8_t *elem)
{
	uint64_t v = 0;
	for (unsigned i = 0; i < 8; i++)
		v |= (uint64_t)elem[FIFO_IDX_OFF + i] << (8 * i);
	return v;
}

int fifo_check(const struct fifo_elem *e, unsigned r, const struct fifo_bounds *b, char *why, size_t len)
{
	if (r == 0 && e->nreqs != b->nreqs)
		snprintf(why, len, "nreqs %u (allowed: %u, the agreed --multi-recv)", e->nreqs, b->nreqs);
	else if (e->tag != b->tag)
		snprintf(why, len, "tag 0x%x of request %u (expected 0x%x)", e->tag, r, b->tag);
	else if (e->addr == 0)
		snprintf(why, len, "address 0 in request %u", r);
	else if (e->addr < b->base || e->addr - b->base >= b->len)
		snprintf(why, len, "address 0x%llx of request %u outside the receiver's buffer 0x%llx+%llu",
		         (unsigned long long)e->addr, r, (unsigned long long)b->base,
		         (unsigned long long)b->len);
	else if (e->size > b->len - (e->addr - b->base))
		snprintf(
		    why, len,
		    "size %llu of request %u runs past the receiver's buffer (%llu bytes left at 0x%llx)",
		    (unsigned long long)e->size, r, (unsigned long long)(b->len - (e->addr - b->base)),
		    (unsigned long long)e->addr);
	else if (e->size < b->need)
		snprintf(why, len, "size %llu of request %u is below the message's %llu bytes (truncation)",
		         (unsigned long long)e->size, r, (unsigned long long)b->need);
	else if (e->rkeys[0] == 0)
		snprintf(why, len, "rkey 0 in request %u", r);
	else if (e->rkeys[0] != b->rkey)
		snprintf(why, len, "rkey 0x%x of request %u (the receiver registered 0x%x)", e->rkeys[0], r,
		         b->rkey);
	else
		return 0;
	return -EPROTO;
}

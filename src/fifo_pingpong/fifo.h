/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The clear-to-send FIFO of NCCL's net_ib protocol. The receiver RDMA-WRITEs one
 * 64-byte element per request into slot (tail % slots) of the sender's FIFO; a slot
 * holds one element per request of a multi-receive (nreqs, up to FIFO_MAX_RECVS).
 * A run's FIFO has a slot per message of its window (rounded up to a power of two)
 * and nreqs elements a slot, both agreed by the two sides before it is registered
 * (NCCL's is fixed at its most requests; this one costs what the run can use). The
 * element's layout is fixed
 * little-endian, written and read field by field, never as a host struct:
 *
 *   offset  0  addr   u64   where the payload goes (the receiver's VA)
 *           8  size   u64   bytes the receiver posted for this request
 *          16  rkeys  u32[4] rkey per device (one device here: rkeys[0])
 *          32  nreqs  u32   requests in this slot (element 0 says it for all)
 *          36  tag    u32   the request's tag
 *          40  idx    u64   tail + 1: the generation the sender waits for
 *          48  (16 bytes of padding)
 *
 * The sender reads idx first and the rest only once idx is the one it waits for;
 * then every field is checked against what the receiver registered (fifo_check).
 */
#ifndef RB_FIFO_PINGPONG_FIFO_H
#define RB_FIFO_PINGPONG_FIFO_H

#include <stddef.h>
#include <stdint.h>

#define FIFO_ELEM_BYTES 64
#define FIFO_MAX_RECVS  8
/* The receiver's sizes FIFO (multi-receive): a u32 per request, a slot per message. */
#define SIZES_SLOT_BYTES (4 * FIFO_MAX_RECVS)
#define FIFO_IDX_OFF     40

/* The bytes of a FIFO of slots slots of nreqs elements, and of its sizes FIFO. */
static inline uint64_t fifo_bytes(unsigned slots, unsigned nreqs)
{
	return (uint64_t)slots * nreqs * FIFO_ELEM_BYTES;
}

static inline uint64_t fifo_sizes_bytes(unsigned slots)
{
	return (uint64_t)slots * SIZES_SLOT_BYTES;
}

struct fifo_elem {
	uint64_t addr, size;
	uint32_t rkeys[4];
	uint32_t nreqs, tag;
	uint64_t idx;
};

void fifo_elem_encode(uint8_t out[FIFO_ELEM_BYTES], const struct fifo_elem *e);
void fifo_elem_decode(const uint8_t in[FIFO_ELEM_BYTES], struct fifo_elem *e);
/* A sizes FIFO slot: n little-endian u32, one per request. */
void fifo_sizes_encode(uint8_t *out, unsigned n, uint32_t size);
uint32_t fifo_sizes_get(const uint8_t *slot, unsigned r);
/* The idx field alone, read once from memory the peer writes (a volatile load). */
uint64_t fifo_elem_idx(const volatile uint8_t *elem);

/* What the sender knows the receiver can hold: its registered data area and rkey. */
struct fifo_bounds {
	uint64_t base, len; /* [base, base + len): where payloads may go */
	uint32_t rkey;
	uint32_t nreqs; /* requests per slot both sides agreed on */
	uint32_t tag;   /* the tag of the request expected */
	uint64_t need;  /* bytes this request carries: the element must offer at least this */
};

/*
 * Element r of the slot the sender waits on, idx already matched: 0 when every
 * field is sane, else -EPROTO with why[] naming the field, its value and what was
 * allowed (wrong tag, zero or out-of-area address, a size above the registered
 * buffer or below the message, a zero or foreign rkey, a bad nreqs).
 */
int fifo_check(const struct fifo_elem *e, unsigned r, const struct fifo_bounds *b, char *why, size_t len);

#endif

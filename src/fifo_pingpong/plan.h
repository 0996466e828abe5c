/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The sender's work requests for one message, as NCCL's net_ib lays them out.
 *
 * QPs: with --split-data-on-qps the message is cut across all nqps QPs, starting at
 * QP first and wrapping; without, it goes whole on QP first alone. Per QP, request
 * r gets the chunk roundup(divup(size_r, nq), 128) at offset q x chunk (shorter or
 * empty at the end), as an RDMA WRITE; then the QP's last WR is a signaled
 * RDMA_WRITE_WITH_IMM:
 *   - one request, adaptive routing off or size <= threshold: the data WR itself;
 *   - one request, AR on and size > threshold (strictly): a 0-byte WRITE_WITH_IMM
 *     after the bulk WRITE, so the completion follows all of the payload;
 *   - several requests (multi-receive): a WRITE_WITH_IMM of the sizes array into
 *     the receiver's sizes FIFO slot.
 * The immediate is the size for one request, 0 for several. Every QP used gets its
 * WRITE_WITH_IMM, 0 bytes when it carries none of the payload, so the receiver
 * counts one completion per QP.
 */
#ifndef RB_FIFO_PINGPONG_PLAN_H
#define RB_FIFO_PINGPONG_PLAN_H

#include "fifo.h"

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define PLAN_ALIGN 128
/* WRs of one message on one QP: a WRITE per request and the WRITE_WITH_IMM. */
#define PLAN_WRS_PER_QP (FIFO_MAX_RECVS + 1)
/* Data QPs of one connection (--qps-per-conn), and so the WRs of one message at most. */
#define PLAN_MAX_QPS 64
#define PLAN_MAX_WRS (PLAN_MAX_QPS * PLAN_WRS_PER_QP)

enum plan_op { PLAN_WRITE, PLAN_WRITE_IMM };

struct plan_wr {
	unsigned qp;
	enum plan_op op;
	int req;         /* request whose payload this carries; -1: the sizes array or nothing */
	bool sizes;      /* carries the sizes array (multi-receive) */
	uint64_t offset; /* within the request: local and remote alike */
	uint64_t len;
	bool signaled;
	uint32_t imm;
};

struct plan_cfg {
	unsigned nqps; /* data QPs of the connection (--qps-per-conn) */
	bool split;    /* --split-data-on-qps */
	bool ar;       /* adaptive routing */
	uint64_t ar_threshold;
	unsigned nreqs;        /* 1..FIFO_MAX_RECVS */
	const uint64_t *sizes; /* nreqs sizes */
	unsigned first;        /* the QP this message starts on */
};

/* QPs one message uses: nqps with split, else 1. */
unsigned plan_qps(const struct plan_cfg *c);
/* Request r's chunk: roundup(divup(size, QPs used), 128); 0 for an empty request. */
uint64_t plan_chunk(const struct plan_cfg *c, unsigned r);
/* The WRs in posting order, QP by QP; returns how many (at most plan_qps x PLAN_WRS_PER_QP). */
unsigned plan_message(const struct plan_cfg *c, struct plan_wr *out);
/* --explain: the message, each request's chunk, and per QP every WR (opcode, request
 * offset, length, signaled, immediate). */
void plan_explain(FILE *f, const struct plan_cfg *c);

#endif

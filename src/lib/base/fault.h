/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Test-only fault injection. Inert unless the environment variable RB_TEST_FAULT is
 * set; the tests in tests/softroce and tests/native set it on one end of a run to
 * prove that the checks they exercise can fail. Never set it for a measurement.
 *
 *   RB_TEST_FAULT=KIND[:qp=Q][:msg=N][:byte=B|last]   (defaults: qp=0, msg=1, the middle byte)
 *
 * KIND (what the sending side does to message N of QP/stream Q, counted from 1 in
 * every step):
 *   corrupt   flips one byte of the payload after the pattern was written: byte B
 *             (0 the first, last the last; beyond the payload, its last), else the middle
 *   imm-drop  gives the message the immediate of the one after it (one goes missing)
 *   imm-dup   gives the message the immediate of the one before it (one arrives twice)
 *   stall     stops posting from that message on (the transfer stops completing)
 *   bad-rkey  writes with a wrong rkey (a real remote access error on the wire)
 * At the closing agreement (qp= and msg= unused):
 *   verdict-late  sends its verdict on the run, then waits 1 s, deaf to signals, before
 *             it reads the peer's (a side slow to take the verdict that is already in)
 * In a crew of worker threads (run/crew.h; qp= the worker, msg= the step, from 1):
 *   worker-deaf  the worker never leaves that step (it sleeps until the process ends),
 *             so the step's bound abandons it
 * A tool's own kinds (a receiver's clear-to-send elements, say) are its to
 * name and mean: it registers them (rb_fault_register) before the first question.
 */
#ifndef RB_FAULT_H
#define RB_FAULT_H

#include <stdbool.h>
#include <stdint.h>

enum rb_fault_kind {
	RB_FAULT_NONE,
	RB_FAULT_CORRUPT,
	RB_FAULT_IMM_DROP,
	RB_FAULT_IMM_DUP,
	RB_FAULT_STALL,
	RB_FAULT_BAD_RKEY,
	RB_FAULT_VERDICT_LATE,
	RB_FAULT_WORKER_DEAF,
	RB_FAULT_TOOL = 16, /* a tool's own: names[i] of rb_fault_register is RB_FAULT_TOOL + i */
};

/* A tool's own kinds, by name, before RB_TEST_FAULT is first read (at most 16). */
void rb_fault_register(const char *const *names, unsigned n);
/* True when RB_TEST_FAULT asks for kind k at this QP/stream and message. */
bool rb_fault_at(unsigned k, unsigned qp, uint64_t msg);
/* corrupt: the offset of the byte to flip in a payload of len bytes (byte=, else len / 2). */
uint64_t rb_fault_byte(uint64_t len);
/* The configured kind (RB_FAULT_NONE when unset); a malformed value is reported once and ignored. */
unsigned rb_fault_kind(void);

#endif

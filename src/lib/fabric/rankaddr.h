/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A rank's word in the launcher's all-gather: "host port[,port...] ctlport cookie" (the
 * address the others reach it on, its listener per rail, and from rank 0 the
 * coordinator's port and the job's cookie), written by each rank and read, as another
 * process wrote it, by every other.
 */
#ifndef RB_RANKADDR_H
#define RB_RANKADDR_H

#include <stddef.h>
#include <stdint.h>

/* The word of a rank that could not set up: the others say so, not "malformed". */
#define RB_RANK_FAILED_ADDR "failed 0 0 00000000000000000000000000000000"

/* The port a listening socket got (port 0 asks the kernel for a free one); 0 when unknown. */
uint32_t rb_rank_bound_port(int fd);
/*
 * Splits another rank's word (checked): its host, its listener per rail (exactly want),
 * and rank 0's coordinator port and the job's cookie (zeros from the others). 0 or -EPROTO.
 */
int rb_rank_split_addr(const char *s, char *host, size_t cap, uint32_t *ports, int want, uint32_t *cport,
                       uint8_t *cookie);
/* Says why rank's word cannot be used (a failed rank's, or malformed). */
void rb_rank_bad_addr(uint32_t rank, const char *word, int nrails);
/* This rank's word into out. */
void rb_rank_my_addr(const char *host, const uint32_t *ports, int n, uint32_t cport, const uint8_t *cookie,
                     char *out, size_t cap);

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Verify-mode payloads: every message carries bytes derived from (qp, message
 * number), so a receiver can tell a stale, misplaced or corrupted message from the
 * right one.
 */
#ifndef RB_PATTERN_H
#define RB_PATTERN_H

#include <stddef.h>
#include <stdint.h>

uint64_t rb_pattern_tag(uint32_t qp, uint64_t msg);
void rb_pattern_fill(void *buf, size_t len, uint64_t tag);
/* 0 when buf matches; else 1 with the first bad offset and bytes. */
int rb_pattern_check(const void *buf, size_t len, uint64_t tag, size_t *bad_off, uint8_t *expected,
                     uint8_t *got);

/* The same pattern for the part of a message at byte offset off (a multiple of 8). */
void rb_pattern_fill_at(void *buf, size_t len, uint64_t tag, size_t off);
int rb_pattern_check_at(const void *buf, size_t len, uint64_t tag, size_t off, size_t *bad_off,
                        uint8_t *expected, uint8_t *got);

#endif

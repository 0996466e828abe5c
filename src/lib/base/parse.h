/* SPDX-License-Identifier: BSD-2-Clause */
/* Strict number parsing: no trailing junk, no overflow, no negatives. */
#ifndef RB_PARSE_H
#define RB_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Parses a non-negative integer with an optional binary suffix K, M, G or T
 * (1K = 1024), case-insensitive. Returns 0, or -EINVAL (not a number, junk,
 * negative) or -ERANGE (overflow).
 */
int rb_parse_u64(const char *s, uint64_t *out);

/* Like rb_parse_u64 but the result must lie in [min, max]. */
int rb_parse_u64_range(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/* A non-negative decimal number such as "2.5" (no suffix). */
int rb_parse_double(const char *s, double *out);

/* Formats a byte count compactly: 64, 4K, 1M, 1536 (exact values only). */
const char *rb_fmt_size(uint64_t v, char *buf, unsigned len);
/*
 * An amount of bytes in binary units for people: "2 MiB" for a whole number of them
 * (below 1000 and at most GiB), else one decimal ("1.5 TiB", "2.9 KiB").
 */
const char *rb_fmt_bytes(double b, char *buf, size_t len);

/* a + b, held at UINT64_MAX: sums of counters a peer reported cannot wrap to a small figure. */
static inline uint64_t rb_u64_sat_add(uint64_t a, uint64_t b)
{
	return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

#endif

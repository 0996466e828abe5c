/* SPDX-License-Identifier: BSD-2-Clause */
#include "pattern.h"

#include <string.h>

uint64_t rb_pattern_tag(uint32_t qp, uint64_t msg)
{
	return ((uint64_t)qp << 48) ^ (msg + 1) * 0x9e3779b97f4a7c15ull;
}

/* splitmix64 step: a different 64-bit word for every position. */
static inline uint64_t word_at(uint64_t tag, uint64_t i)
{
	uint64_t z = tag + (i + 1) * 0x9e3779b97f4a7c15ull;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

void rb_pattern_fill(void *buf, size_t len, uint64_t tag)
{
	rb_pattern_fill_at(buf, len, tag, 0);
}

int rb_pattern_check(const void *buf, size_t len, uint64_t tag, size_t *bad_off, uint8_t *expected,
                     uint8_t *got)
{
	return rb_pattern_check_at(buf, len, tag, 0, bad_off, expected, got);
}

void rb_pattern_fill_at(void *buf, size_t len, uint64_t tag, size_t off)
{
	uint8_t *p = buf;
	size_t words = len / 8, base = off / 8;

	for (size_t i = 0; i < words; i++) {
		uint64_t w = word_at(tag, base + i);
		memcpy(p + i * 8, &w, 8);
	}
	if (len % 8) {
		uint64_t w = word_at(tag, base + words);
		memcpy(p + words * 8, &w, len % 8);
	}
}

int rb_pattern_check_at(const void *buf, size_t len, uint64_t tag, size_t off, size_t *bad_off,
                        uint8_t *expected, uint8_t *got)
{
	const uint8_t *p = buf;

	for (size_t i = 0; i * 8 < len; i++) {
		uint64_t w = word_at(tag, off / 8 + i);
		size_t n = len - i * 8 < 8 ? len - i * 8 : 8;
		const uint8_t *e = (const uint8_t *)&w;

		if (!memcmp(p + i * 8, e, n))
			continue;
		for (size_t j = 0; j < n; j++) {
			if (p[i * 8 + j] != e[j]) {
				*bad_off = off + i * 8 + j;
				*expected = e[j];
				*got = p[i * 8 + j];
				return 1;
			}
		}
	}
	return 0;
}

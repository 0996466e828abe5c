/* SPDX-License-Identifier: BSD-2-Clause */
#include "figures.h"

#include "auth.h"

#include <assert.h>

static_assert(RB_WIRE_ECHO_LEN == RB_AUTH_LEN, "a chain's link is one HMAC-SHA-256");

void rb_figs_chain(const uint8_t key[RB_WIRE_ECHO_LEN], uint8_t link[RB_WIRE_ECHO_LEN], uint16_t type,
                   const uint8_t *payload, uint32_t len)
{
	uint8_t head[6] = {(uint8_t)(type >> 8), (uint8_t)type,       (uint8_t)(len >> 24),
	                   (uint8_t)(len >> 16), (uint8_t)(len >> 8), (uint8_t)len};
	const void *parts[] = {link, head, payload};
	const size_t lens[] = {RB_WIRE_ECHO_LEN, sizeof(head), len};

	rb_hmac_sha256(key, RB_WIRE_ECHO_LEN, parts, lens, len ? 3 : 2, link);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Optional authentication of the out-of-band channel: a shared secret (--auth-key
 * FILE, or RB_AUTH_KEY in the environment) proven by challenge-response with
 * HMAC-SHA-256, before the server reveals or allocates anything. Both sides prove
 * the key (a client does not run against a server that lacks it either); the secret
 * itself never crosses the wire. It keeps strangers out; it authenticates the two
 * ends at the start, not each frame after, and encrypts nothing: one who can relay
 * and alter the connection itself is not stopped by it.
 *
 *   client                                   server (keyed)
 *   AUTH      nonce_c (32 B)          ->
 *                                     <-     CHALLENGE nonce_s, HMAC(k, "S" nonce_c nonce_s)
 *   PROOF     HMAC(k, "C" nonce_c nonce_s) ->
 *   HELLO ...                                (the usual negotiation)
 *
 * A server without a key answers an AUTH with ERROR; a keyed server refuses a client
 * whose first frame is not AUTH. --all-pairs keys every pair connection with the
 * job's cookie (rb_auth_key_from).
 */
#ifndef RB_AUTH_H
#define RB_AUTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RB_AUTH_LEN 32 /* nonce, key and MAC bytes */

struct rb_auth_key {
	bool set;
	uint8_t k[RB_AUTH_LEN];
};

/* SHA-256 of a message; HMAC-SHA-256 (RFC 2104) of the concatenation of n parts. */
void rb_sha256(const void *msg, size_t len, uint8_t out[RB_AUTH_LEN]);
void rb_hmac_sha256(const uint8_t *key, size_t klen, const void *const *parts, const size_t *lens, unsigned n,
                    uint8_t out[RB_AUTH_LEN]);

/* A key from any secret bytes (hashed to RB_AUTH_LEN bytes): the job's cookie, a file's contents. */
void rb_auth_key_from(struct rb_auth_key *key, const void *secret, size_t len);
/*
 * --auth-key FILE (path NULL: RB_AUTH_KEY from the environment, if set): the file's
 * whole contents (1 to 4096 bytes; a trailing newline is kept as part of it) are the
 * secret. A file readable by others than its owner is refused. 0, or -EINVAL after a
 * usage error naming the file and why.
 */
int rb_auth_key_load(const char *path, struct rb_auth_key *key);

/* Fresh random bytes (getrandom); 0 or -errno. */
int rb_auth_random(uint8_t *out, size_t len);

/*
 * The proofs: side 'S' (server) or 'C' (client) over both nonces; 'F', never sent,
 * keys the connection's chain of figures (figures.h).
 */
void rb_auth_proof(const struct rb_auth_key *key, char side, const uint8_t nonce_c[RB_AUTH_LEN],
                   const uint8_t nonce_s[RB_AUTH_LEN], uint8_t out[RB_AUTH_LEN]);
/* Constant-time comparison of two proofs: true when equal. */
bool rb_auth_equal(const uint8_t *a, const uint8_t *b, size_t len);

#endif

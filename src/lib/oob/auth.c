/* SPDX-License-Identifier: BSD-2-Clause */
/* --auth-key: SHA-256 and HMAC-SHA-256 (FIPS 180-4, RFC 2104), keys and proofs. */
#include "auth.h"

#include "base/base.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_SECRET 4096

static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

struct sha256 {
	uint32_t h[8];
	uint8_t block[64];
	size_t fill;    /* bytes in block */
	uint64_t total; /* bytes hashed */
};

static uint32_t ror(uint32_t x, unsigned n)
{
	return (x >> n) | (x << (32 - n));
}

static void compress(uint32_t h[8], const uint8_t b[64])
{
	uint32_t w[64], v[8];

	for (unsigned i = 0; i < 16; i++)
		w[i] = (uint32_t)b[4 * i] << 24 | (uint32_t)b[4 * i + 1] << 16 | (uint32_t)b[4 * i + 2] << 8 |
		       b[4 * i + 3];
	for (unsigned i = 16; i < 64; i++) {
		uint32_t s0 = ror(w[i - 15], 7) ^ ror(w[i - 15], 18) ^ (w[i - 15] >> 3);
		uint32_t s1 = ror(w[i - 2], 17) ^ ror(w[i - 2], 19) ^ (w[i - 2] >> 10);
		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	memcpy(v, h, sizeof(v));
	for (unsigned i = 0; i < 64; i++) {
		uint32_t s1 = ror(v[4], 6) ^ ror(v[4], 11) ^ ror(v[4], 25);
		uint32_t ch = (v[4] & v[5]) ^ (~v[4] & v[6]);
		uint32_t t1 = v[7] + s1 + ch + K[i] + w[i];
		uint32_t s0 = ror(v[0], 2) ^ ror(v[0], 13) ^ ror(v[0], 22);
		uint32_t maj = (v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]);

		memmove(v + 1, v, 7 * sizeof(v[0]));
		v[4] += t1;
		v[0] = t1 + s0 + maj;
	}
	for (unsigned i = 0; i < 8; i++)
		h[i] += v[i];
}

static void sha_init(struct sha256 *s)
{
	static const uint32_t iv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
	                               0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

	memcpy(s->h, iv, sizeof(iv));
	s->fill = 0;
	s->total = 0;
}

static void sha_add(struct sha256 *s, const void *msg, size_t len)
{
	const uint8_t *p = msg;

	s->total += len;
	while (len) {
		size_t n = 64 - s->fill < len ? 64 - s->fill : len;

		memcpy(s->block + s->fill, p, n);
		s->fill += n;
		p += n;
		len -= n;
		if (s->fill == 64) {
			compress(s->h, s->block);
			s->fill = 0;
		}
	}
}

static void sha_end(struct sha256 *s, uint8_t out[RB_AUTH_LEN])
{
	uint64_t bits = s->total * 8;
	uint8_t pad = 0x80, len[8];

	sha_add(s, &pad, 1);
	pad = 0;
	while (s->fill != 56)
		sha_add(s, &pad, 1);
	for (unsigned i = 0; i < 8; i++)
		len[i] = (uint8_t)(bits >> (56 - 8 * i));
	sha_add(s, len, 8);
	for (unsigned i = 0; i < 8; i++)
		for (unsigned j = 0; j < 4; j++)
			out[4 * i + j] = (uint8_t)(s->h[i] >> (24 - 8 * j));
}

void rb_sha256(const void *msg, size_t len, uint8_t out[RB_AUTH_LEN])
{
	struct sha256 s;

	sha_init(&s);
	sha_add(&s, msg, len);
	sha_end(&s, out);
}

void rb_hmac_sha256(const uint8_t *key, size_t klen, const void *const *parts, const size_t *lens, unsigned n,
                    uint8_t out[RB_AUTH_LEN])
{
	uint8_t k[64] = {0}, pad[64], inner[RB_AUTH_LEN];
	struct sha256 s;

	if (klen > 64)
		rb_sha256(key, klen, k);
	else
		memcpy(k, key, klen);
	for (unsigned i = 0; i < 64; i++)
		pad[i] = k[i] ^ 0x36;
	sha_init(&s);
	sha_add(&s, pad, 64);
	for (unsigned i = 0; i < n; i++)
		sha_add(&s, parts[i], lens[i]);
	sha_end(&s, inner);
	for (unsigned i = 0; i < 64; i++)
		pad[i] = k[i] ^ 0x5c;
	sha_init(&s);
	sha_add(&s, pad, 64);
	sha_add(&s, inner, sizeof(inner));
	sha_end(&s, out);
}

void rb_auth_key_from(struct rb_auth_key *key, const void *secret, size_t len)
{
	rb_sha256(secret, len, key->k);
	key->set = true;
}

/* The secret in a file of the user's: whole, owner-only, not empty, not huge. */
static int read_secret(const char *path, uint8_t *buf, size_t *len)
{
	struct stat st;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		rb_usage_err(
		    "invalid value '%s' for --auth-key: %s (allowed: a readable file of 1 to %d bytes)", path,
		    strerror(errno), MAX_SECRET);
		return -EINVAL;
	}
	if (fstat(fd, &st)) {
		rb_usage_err("invalid value '%s' for --auth-key: %s", path, strerror(errno));
		close(fd);
		return -EINVAL;
	}
	if (!S_ISREG(st.st_mode) || (st.st_mode & 077)) {
		rb_usage_err(
		    "invalid value '%s' for --auth-key: %s (allowed: a regular file only its owner can "
		    "read, e.g. chmod 600)",
		    path, S_ISREG(st.st_mode) ? "others may read it" : "not a regular file");
		close(fd);
		return -EINVAL;
	}
	n = read(fd, buf, MAX_SECRET + 1);
	close(fd);
	if (n < 1 || n > MAX_SECRET) {
		rb_usage_err("invalid value '%s' for --auth-key: %s (allowed: a file of 1 to %d bytes)", path,
		             n < 0    ? strerror(errno)
		             : n == 0 ? "empty"
		                      : "too long",
		             MAX_SECRET);
		return -EINVAL;
	}
	*len = (size_t)n;
	return 0;
}

int rb_auth_key_load(const char *path, struct rb_auth_key *key)
{
	uint8_t *buf;
	size_t len = 0;
	int ret = 0;

	key->set = false;
	if (!path) {
		const char *env = getenv("RB_AUTH_KEY");

		if (env && *env)
			rb_auth_key_from(key, env, strlen(env));
		return 0;
	}
	buf = malloc(MAX_SECRET + 1);
	if (!buf) {
		rb_err("out of memory");
		return -ENOMEM;
	}
	ret = read_secret(path, buf, &len);
	if (!ret)
		rb_auth_key_from(key, buf, len);
	memset(buf, 0, MAX_SECRET + 1);
	free(buf);
	return ret;
}

int rb_auth_random(uint8_t *out, size_t len)
{
	while (len) {
		ssize_t n = getrandom(out, len, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			rb_err("getrandom failed: %s", strerror(errno));
			return -errno;
		}
		out += n;
		len -= (size_t)n;
	}
	return 0;
}

void rb_auth_proof(const struct rb_auth_key *key, char side, const uint8_t nonce_c[RB_AUTH_LEN],
                   const uint8_t nonce_s[RB_AUTH_LEN], uint8_t out[RB_AUTH_LEN])
{
	static const char label[] = "rdmabench-auth-1";
	const void *parts[] = {label, &side, nonce_c, nonce_s};
	const size_t lens[] = {sizeof(label) - 1, 1, RB_AUTH_LEN, RB_AUTH_LEN};

	rb_hmac_sha256(key->k, RB_AUTH_LEN, parts, lens, 4, out);
}

bool rb_auth_equal(const uint8_t *a, const uint8_t *b, size_t len)
{
	volatile uint8_t diff = 0;

	for (size_t i = 0; i < len; i++)
		diff |= a[i] ^ b[i];
	return diff == 0;
}

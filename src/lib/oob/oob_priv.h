/* SPDX-License-Identifier: BSD-2-Clause */
/* What oob.c (the channel) and oob_server.c (the listener) share; not for tools. */
#ifndef RB_OOB_PRIV_H
#define RB_OOB_PRIV_H

#include "channel.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

void rb_oob_set_nodelay(int fd);
/*
 * One frame in one sendmsg, within timeout_ms (0: not a moment's wait, for a
 * connection read without blocking); 0 or -errno.
 */
int rb_oob_write_frame(int fd, uint16_t type, const void *payload, uint32_t len, int timeout_ms);
/* Grows the channel's receive buffer to hold an n-byte payload; 0 or -ENOMEM. */
int rb_oob_rx_reserve(struct rb_oob *o, uint32_t n);

/* --auth-key (oob_auth.c). Client: AUTH, the server's CHALLENGE checked, PROOF; 0 or -errno (said). */
int rb_oob_auth_client(struct rb_oob *o, const struct rb_auth_key *k);
/* Server, a candidate's AUTH payload: keeps its nonce, makes ours, sends CHALLENGE; 0 or -EPROTO. */
int rb_oob_auth_challenge(int fd, const struct rb_auth_key *k, const uint8_t *payload, uint32_t len,
                          uint8_t nonce_c[RB_AUTH_LEN], uint8_t nonce_s[RB_AUTH_LEN]);
/* Server, the candidate's PROOF payload: true when it proves the key for these nonces. */
bool rb_oob_auth_check(const struct rb_auth_key *k, const uint8_t *payload, uint32_t len,
                       const uint8_t nonce_c[RB_AUTH_LEN], const uint8_t nonce_s[RB_AUTH_LEN]);
/* A REFUSE frame on a connection being read without blocking; best effort, never waits. */
void rb_oob_refuse_now(int fd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What socket_bw does not take on a peer's word, as pure functions: the data port's
 * per-run token (DATAPORT payload, the greeting on every data connection). The rule
 * that cross-checks the two sides' clocks and the grace after -D are the library's
 * (stepend.h).
 */
#ifndef RB_SOCK_GUARD_H
#define RB_SOCK_GUARD_H

#include "oob/oob.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* socket_bw's own frame types, registered with the framing (sock_msgs, in its struct rb_tool). */
enum {
	SOCK_MSG_SIZE = 10,     /* the next messages, as size and count (size 0 = end of step) */
	SOCK_MSG_DATAPORT = 11, /* the server's data listener port and the run's token */
	SOCK_MSG_RXDONE = 12,   /* everything the peer sent has arrived here (struct rb_stepend) */
};
#define SOCK_NMSGS 3
extern const struct rb_msg_def sock_msgs[SOCK_NMSGS];

#define SOCK_TOKEN_LEN    16 /* 128 random bits per run */
#define SOCK_GREETING_LEN (SOCK_TOKEN_LEN + 2)

/* DATAPORT: the server's data listener port and this run's token. */
struct sock_dataport {
	uint16_t port;
	uint8_t token[SOCK_TOKEN_LEN];
};

/* u64 port (1 to 65535), then the token's bytes. The decoder returns 0 or -EPROTO. */
void sock_dataport_encode(struct rb_wbuf *w, const struct sock_dataport *d);
int sock_dataport_decode(const uint8_t *p, size_t len, struct sock_dataport *d);

/* The first bytes of every data connection: the token, the direction (0 c2s, 1 s2c), the index. */
void sock_greeting_encode(uint8_t out[SOCK_GREETING_LEN], const uint8_t token[SOCK_TOKEN_LEN], unsigned dir,
                          unsigned idx);
/*
 * 0 with *dir and *idx when the greeting carries token (compared in constant time),
 * else -EACCES. Which stream it names is the caller's to check.
 */
int sock_greeting_check(const uint8_t in[SOCK_GREETING_LEN], const uint8_t token[SOCK_TOKEN_LEN],
                        unsigned *dir, unsigned *idx);

#endif

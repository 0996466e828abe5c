/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The TCP out-of-band channel: connection set-up with bounded retries, framed
 * send/receive with a deadline on every read, parameter negotiation, barriers and
 * error forwarding. Works on any connected stream socket, so unit tests drive it
 * over a socketpair.
 */
#ifndef RB_CHANNEL_H
#define RB_CHANNEL_H

#include "auth.h"
#include "hello.h"
#include "base/base.h"

#include <netdb.h>
#include <stdbool.h>
#include <stdint.h>

struct rb_oob_opts {
	uint32_t port;          /* TCP port of the server (-p) */
	uint32_t timeout_s;     /* connect / accept / silence bound (--oob-timeout) */
	const char *bind;       /* server: address to listen on; NULL = any */
	bool persist;           /* server: serve one client after another; wait for each without bound */
	const char *auth_file;  /* --auth-key FILE (NULL: RB_AUTH_KEY, if set) */
	struct rb_auth_key key; /* set: every connection proves it (auth.h) before HELLO */
};

void rb_oob_opts_default(struct rb_oob_opts *o);
struct rb_opt_table rb_oob_opt_table(struct rb_oob_opts *o);

struct rb_oob {
	int fd;
	int timeout_ms; /* default deadline for receives */
	uint8_t *rx;    /* payload of the last frame received */
	uint32_t rx_cap;
	char peer[NI_MAXHOST + NI_MAXSERV + 2]; /* "host:port" for messages */
	char peer_error[RB_WIRE_MSG_LEN];       /* set when the peer sent ERROR */
	const char *role;                       /* the peer's: "server", "client" (NULL: unnamed) */
	bool server;                            /* this end serves: a candidate that fails is refused */
	char refusal[RB_WIRE_MSG_LEN];          /* server: why the candidate was refused (rb_oob_refusal) */
	bool have_hello;                        /* server: the client's HELLO waits in rx */
	uint32_t hello_len;
	bool said_error;     /* an ERROR went out: the close lets the peer read it first */
	uint64_t barrier_ns; /* when this side sent its last BARRIER: the peer's step began after it */
	bool stopped;        /* a stop was seen while receiving: only what had arrived is read */
	uint32_t arrived;    /* of which this many bytes are left */
	/*
	 * The figure frames sent and taken since the last closing agreement, chained (figures.h),
	 * and the chain's key: zero, or this connection's own under --auth-key.
	 */
	uint8_t figs_sent[RB_WIRE_ECHO_LEN], figs_rcvd[RB_WIRE_ECHO_LEN], figs_key[RB_WIRE_ECHO_LEN];
};

/*
 * Server. The listening socket stays open until the run's peer is found, so a
 * stranger on the port (a scanner, an HTTP request, garbage, a HELLO followed by
 * junk) is refused with a warning and the server keeps waiting for the real peer,
 * all within --oob-timeout.
 */
/* How long a new connection has to send its HELLO before it counts as a stranger. */
#define RB_OOB_HELLO_MS 5000
/* After sending an ERROR, how long a close waits for the peer to read it and close. */
#define RB_OOB_LINGER_MS 1000
/* Connections read side by side while they send their HELLO: a slow one holds no other up. */
#define RB_OOB_PENDING 8
/* A flood of strangers costs a few log lines per window; the next window's first says how many were not. */
#define RB_OOB_REFUSAL_LOG_S 10
#define RB_OOB_REFUSAL_BURST 5

struct rb_oob_pending {
	int fd;         /* -1: free */
	uint64_t since; /* accepted at */
	uint32_t got;   /* bytes of the frame being read so far */
	uint8_t *buf;   /* RB_WIRE_HDR_LEN + a HELLO */
	uint8_t stage;  /* its next frame: the first (AUTH or HELLO), PROOF, HELLO */
	uint8_t nonce_c[RB_AUTH_LEN], nonce_s[RB_AUTH_LEN]; /* --auth-key: this handshake's */
	char peer[NI_MAXHOST + NI_MAXSERV + 2];
};

struct rb_oob_server {
	int fd;
	const struct rb_oob_opts *o;
	uint64_t deadline; /* --oob-timeout from rb_oob_listen */
	unsigned refused;
	unsigned unlogged;  /* refusals not said in this window */
	unsigned in_window; /* refusals in this window */
	uint64_t logged_at; /* when this window opened */
	char last_peer[NI_MAXHOST + NI_MAXSERV + 2];
	char last_why[160];
	struct rb_oob_pending pend[RB_OOB_PENDING];
	/*
	 * One connection read at a time: processes that share this listener (a --pattern
	 * rank's flows, one process each) each take one, and none holds, then drops with
	 * its exit, a connection another of them was to serve.
	 */
	bool single;
};

int rb_oob_listen(const struct rb_oob_opts *o, struct rb_oob_server *srv);
/*
 * Accepts connections until one opens with a well-formed HELLO (kept for
 * rb_oob_negotiate); the rest are refused. -ETIMEDOUT (logged, with the last
 * refusal) when --oob-timeout runs out.
 */
int rb_oob_next_client(struct rb_oob_server *srv, struct rb_oob *out);
/* Drops a client that turned out to be a stranger after its HELLO; logs why. */
void rb_oob_refuse(struct rb_oob_server *srv, struct rb_oob *c, const char *why);
void rb_oob_server_close(struct rb_oob_server *srv);
/* Listen, rb_oob_next_client, close the listener. */
int rb_oob_accept(const struct rb_oob_opts *o, struct rb_oob *out);
/* Client: connect, retrying refused/unreachable until the timeout. */
int rb_oob_connect(const char *host, const struct rb_oob_opts *o, struct rb_oob *out);
/* Adopt a connected stream socket (socketpair in tests). */
void rb_oob_from_fd(int fd, int timeout_ms, struct rb_oob *out);
void rb_oob_close(struct rb_oob *o);

/* Header and payload leave in one system call (one segment with TCP_NODELAY). */
int rb_oob_send(struct rb_oob *o, uint16_t type, const void *payload, uint32_t len);
int rb_oob_send_w(struct rb_oob *o, uint16_t type, const struct rb_wbuf *w);

/* A received frame: p points into the channel's own buffer, valid until the next receive. */
struct rb_frame {
	uint16_t type;
	uint32_t len;
	const uint8_t *p;
};

/*
 * Receives one frame within timeout_ms (< 0: the channel's default). The length is
 * checked against what the frame's type may carry before any payload is read, and
 * the payload lands in a buffer the channel owns. An ERROR frame from the peer is
 * returned as -EREMOTEIO with its text in o->peer_error; EOF as -ECONNRESET; a
 * deadline as -ETIMEDOUT; a malformed frame as -EPROTO. The error is logged once here.
 */
int rb_oob_recv(struct rb_oob *o, struct rb_frame *f, int timeout_ms);
/* rb_oob_recv that also insists on the frame type. */
int rb_oob_expect(struct rb_oob *o, uint16_t type, struct rb_frame *f, int timeout_ms);
/* 1 when a frame (or EOF) is waiting within timeout_ms, 0 when not, -errno on error. */
int rb_oob_readable(struct rb_oob *o, int timeout_ms);

/* Tell the peer why we are giving up; best effort, never blocks long. */
void rb_oob_send_error(struct rb_oob *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/*
 * Server: tell a candidate its request is refused (beyond this server's limits, or not
 * for this server); its client exits 2 with the text. Best effort.
 */
void rb_oob_send_refuse(struct rb_oob *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Server: records why the candidate is refused (o->refusal, nothing logged); returns -EPROTO. */
int rb_oob_refusal(struct rb_oob *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/*
 * Server, a candidate's HELLO in hand (rb_oob_next_client): decodes it into remote and
 * refuses (-EPROTO, o->refusal) a malformed one or another tool's, before this
 * server says anything about itself.
 */
int rb_oob_screen(struct rb_oob *o, const struct rb_hello *local, struct rb_hello *remote);

/*
 * Sends our HELLO and receives the peer's; both sides compare every parameter. A
 * client prints "param X mismatch: local=... remote=..." and gets -EINVAL (a usage
 * error); a server says nothing and refuses the candidate as a stranger (-EPROTO,
 * the first mismatch in o->refusal). Otherwise 0 or a channel error.
 */
int rb_oob_negotiate(struct rb_oob *o, const struct rb_hello *local, struct rb_hello *remote);
int rb_oob_barrier(struct rb_oob *o, uint64_t seq);

/* "host:port" of the socket's peer ("(local)" when it has no address). */
void rb_oob_peer_name(int fd, char *buf, size_t len);

#endif

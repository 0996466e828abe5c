/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What socket_bw does not take on a peer's word, as pure functions: the data port's
 * per-run token (DATAPORT payload, the greeting on every data connection), the
 * sender's TCP figures of a step (TCPINFO) and how two senders' figures add up. The rule
 * that cross-checks the two sides' clocks and the grace after -D are the library's
 * (stepend.h).
 */
#ifndef RB_SOCKET_BW_GUARD_H
#define RB_SOCKET_BW_GUARD_H

#include "oob/oob.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * socket_bw's own frame types, registered with the framing (sock_msgs, in its struct
 * rb_tool): from RB_MSG_TOOL_FIRST (oob/wire.h), each number of the project once.
 */
enum {
	SOCK_MSG_SIZE = 26,     /* the next messages, as size and count (size 0 = end of step) */
	SOCK_MSG_DATAPORT = 27, /* the server's data listener port and the run's token */
	SOCK_MSG_RXDONE = 28,   /* everything the peer sent has arrived here (struct rb_stepend) */
	SOCK_MSG_TCPINFO = 29,  /* a sender's TCP figures of the step (struct sock_tcp), after its DONE */
	SOCK_MSG_SRUN = 30,     /* --streams: SIZE for one stream (its index, then size and count) */
	SOCK_MSG_SRXDONE = 31,  /* --streams: after RXDONE, the messages that arrived on each stream */
};
#define SOCK_NMSGS 6
extern const struct rb_msg_def sock_msgs[SOCK_NMSGS];

#define SOCK_TOKEN_LEN    16 /* 128 random bits per run */
#define SOCK_GREETING_LEN (SOCK_TOKEN_LEN + 2)

/* SRUN: u32 stream, then a SIZE's run (u64 size, u32 count; 0, 0 ends the stream's messages). */
void sock_srun_encode(struct rb_wbuf *w, unsigned stream, uint64_t size, uint32_t count);
/* 0, or -EPROTO when malformed or the stream is not below nstreams. */
int sock_srun_decode(const uint8_t *p, size_t len, unsigned nstreams, unsigned *stream, uint64_t *size,
                     uint32_t *count);

/* SRXDONE: u32 n, then n u64 message counts. 0, or -EPROTO when malformed or n is not want. */
void sock_srxdone_encode(struct rb_wbuf *w, unsigned n, const uint64_t *msgs);
int sock_srxdone_decode(const uint8_t *p, size_t len, unsigned want, uint64_t *msgs);

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

/*
 * The kernel's side of a step (TCP_INFO, TCP_CONGESTION) over the data sockets one side
 * sends on, read after the step's clock stopped. A receiver learns its peer's in TCPINFO.
 */
#define SOCK_CC_LEN 16 /* TCP_CA_NAME_MAX */
struct sock_tcp {
	uint32_t nsocks;  /* the sockets these figures cover; 0: none (this side sent nothing) */
	uint64_t retrans; /* segments retransmitted during the step (tcpi_total_retrans deltas), summed */
	double rtt_us;    /* smoothed RTT at the step's end (tcpi_rtt), mean over the sockets */
	uint64_t cwnd;    /* congestion window at the step's end in segments (tcpi_snd_cwnd), the smallest */
	char cc[2 * SOCK_CC_LEN]; /* congestion control; two senders' that differ: "client's/server's" */
};

/*
 * u32 nsocks (1 to max_socks), u64 retrans (at most nsocks x 2^32: each socket's counter
 * is 32 bits), f64 rtt_us (finite, 0 to 2^32 us), u64 cwnd (below 2^32), the algorithm's
 * name (printable, 1 to 15 characters). The decoder returns 0 or -EPROTO.
 */
void sock_tcp_encode(struct rb_wbuf *w, const struct sock_tcp *t);
int sock_tcp_decode(const uint8_t *p, size_t len, uint32_t max_socks, struct sock_tcp *t);
/*
 * The peer's TCPINFO held to what this side saw of the same sockets: no more
 * retransmitted segments than segments arrived here (segs, when have_segs: a
 * retransmission lost again as well would need more than half the step lost), no
 * round trip longer than the step's causal window (window_ns, 1 s at least: the
 * handshake's estimate). 0, or 1 after a warning naming the figure: then *t covers
 * no socket (its cells stay empty; they are never this side's).
 */
int sock_tcp_hold(const char *peer, struct sock_tcp *t, bool have_segs, uint64_t segs, uint64_t window_ns);
/*
 * Both directions' senders (-b) as one: retransmits summed, RTT the mean over every
 * socket, cwnd the smallest, the algorithm once when both use the same. Either side
 * may cover no socket (nsocks 0): then the other's figures.
 */
void sock_tcp_merge(const struct sock_tcp *client, const struct sock_tcp *server, struct sock_tcp *out);

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Out-of-band wire format. A frame is a 12-byte header (magic, version, type,
 * payload length; big-endian) and a payload encoded field by field. Host structs
 * never cross the wire. Every decoder is a pure function over a byte buffer that
 * validates each field, so it can be unit-tested and fuzzed.
 */
#ifndef RB_WIRE_H
#define RB_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RB_WIRE_MAGIC       0x52444d42u /* "RDMB" */
#define RB_WIRE_VERSION     8
#define RB_WIRE_HDR_LEN     12
#define RB_WIRE_MAX_PAYLOAD 65536
#define RB_WIRE_STAMPS_MAX  (12 + 512 * 12 * 8) /* a STAMPS frame: 512 rows of 12 stamps (run/stamps.h) */
#define RB_WIRE_MAX_QPS     16384               /* QPs per side */
#define RB_QPINFO_PER_FRAME 4096                /* (QPN, PSN) pairs in one QPINFO frame */
#define RB_WIRE_MAX_PARAMS  48
#define RB_WIRE_MAX_ARGS    32 /* the client's given test options in HELLO */
#define RB_WIRE_KEY_LEN     32
#define RB_WIRE_HOST_LEN    64
#define RB_WIRE_VAL_LEN     128
#define RB_WIRE_MSG_LEN     512
#define RB_WIRE_ECHO_LEN    32 /* the closing agreement's echo of the step's figures (figures.h) */

/*
 * Frame types. The library's own have the numbers below; the others are for whoever
 * speaks them to register (rb_msg_register) before a frame is read: a tool's own
 * messages (a verify window and its verdict, a TCP tool's message runs and data port),
 * the --all-pairs control frames. A type nobody registered is unknown on the wire.
 */
enum rb_msg_type {
	RB_MSG_HELLO = 1,  /* tool, version, symmetric parameters */
	RB_MSG_QPINFO = 2, /* per-QP addressing + remote buffer */
	RB_MSG_BARRIER = 3,
	RB_MSG_PROGRESS = 4,   /* heartbeat from a side that is busy posting */
	RB_MSG_DONE = 5,       /* a side's figures for one step (struct rb_stepend) */
	RB_MSG_CLOCK = 6,      /* a clock probe, or its answer (clocksync.h) */
	RB_MSG_STAMPS = 10,    /* the server's event stamps of a step, to the client (run/stamps.h) */
	RB_MSG_ERROR = 8,      /* the peer failed; payload is its first cause */
	RB_MSG_LATSTATS = 9,   /* the measuring side's latency summary for one step */
	RB_MSG_AUTH = 17,      /* --auth-key: the client's nonce, its first frame (auth.h) */
	RB_MSG_CHALLENGE = 18, /* --auth-key: the server's nonce and its proof of the key */
	RB_MSG_PROOF = 19,     /* --auth-key: the client's proof of the key */
	RB_MSG_AGREE = 20,     /* closing agreement: a side's verdict on a step or the run (agree.h) */
	RB_MSG_REFUSE = 21,    /* server: the client's request is beyond this server's limits (text) */
};
/*
 * Frame types are below RB_MSG_TYPE_END. The library's (these, and --all-pairs' in
 * fabric/fabmsg.h) are below RB_MSG_TOOL_FIRST; a tool's own are from it up, each
 * number once in the project (tests/unit/arch_rules.py checks both), so that a frame's
 * number names it wherever it is read.
 */
#define RB_MSG_TOOL_FIRST 24
#define RB_MSG_TYPE_END   40

/* A frame type someone else speaks: its number, name and longest payload. */
struct rb_msg_def {
	uint16_t type;
	const char *name;
	uint32_t max_len;
	/*
	 * It carries a step's figures (DONE, LATSTATS, a tool's own): both sides chain what they
	 * send and take of these, and the closing agreement echoes the chain (agree.h).
	 */
	bool figures;
};
/*
 * Makes n types known (before any frame is read, from one thread): each number a
 * free one below RB_MSG_TYPE_END, or already registered with the same name and cap
 * (registering twice is harmless). Returns 0, or -EEXIST for a number taken
 * otherwise (a bug: two speakers of one number).
 */
int rb_msg_register(const struct rb_msg_def *defs, unsigned n);

const char *rb_msg_name(unsigned type);
/* Whether frames of this type carry a step's figures (struct rb_msg_def's figures). */
bool rb_msg_figures(unsigned type);

struct rb_frame_hdr {
	uint16_t type;
	uint32_t len;
};

/* The longest payload a frame of this type may carry (0 for an unknown type). */
uint32_t rb_msg_max_len(unsigned type);

/*
 * Header: returns 0 or -EPROTO with *why set to a static reason. A length beyond
 * what the frame's type can carry (rb_msg_max_len) is refused here, before any of
 * the payload is read.
 */
void rb_frame_hdr_encode(uint8_t out[RB_WIRE_HDR_LEN], uint16_t type, uint32_t len);
int rb_frame_hdr_decode(const uint8_t in[RB_WIRE_HDR_LEN], struct rb_frame_hdr *h, const char **why);

/* Bounded writer/reader; an overrun sets err and later calls do nothing. */
struct rb_wbuf {
	uint8_t *p;
	size_t len, cap;
	bool err;
};
struct rb_rbuf {
	const uint8_t *p;
	size_t len, off;
	bool err;
};

void rb_put_u8(struct rb_wbuf *w, uint8_t v);
void rb_put_u16(struct rb_wbuf *w, uint16_t v);
void rb_put_u32(struct rb_wbuf *w, uint32_t v);
void rb_put_u64(struct rb_wbuf *w, uint64_t v);
void rb_put_f64(struct rb_wbuf *w, double v);
void rb_put_bytes(struct rb_wbuf *w, const void *b, size_t n);
void rb_put_str(struct rb_wbuf *w, const char *s); /* u16 length + bytes */

uint8_t rb_get_u8(struct rb_rbuf *r);
uint16_t rb_get_u16(struct rb_rbuf *r);
uint32_t rb_get_u32(struct rb_rbuf *r);
uint64_t rb_get_u64(struct rb_rbuf *r);
double rb_get_f64(struct rb_rbuf *r);
void rb_get_bytes(struct rb_rbuf *r, void *b, size_t n);
/* Printable ASCII only, at most cap-1 bytes; anything else sets err. */
void rb_get_str(struct rb_rbuf *r, char *out, size_t cap);
/* True when every byte was consumed and nothing overran. */
bool rb_rbuf_done(const struct rb_rbuf *r);

/*
 * Payloads. Each message's format lives beside the code that speaks it: HELLO in
 * hello.h, QPINFO in qpinfo.h, DONE in stepend.h, LATSTATS in run/pingpong.h, a
 * tool's own in its folder. Here only the generic ones. Each encoder
 * writes the payload into w; each decoder returns 0 or -EPROTO.
 */

/* BARRIER and PROGRESS carry one u64 (so may a registered type); ERROR one string. */
void rb_u64_encode(struct rb_wbuf *w, uint64_t v);
int rb_u64_decode(const uint8_t *p, size_t len, uint64_t *v);
/*
 * A run of count messages of size bytes (u64 size, u32 count; a registered type's payload).
 * The end of a step is size 0, count 0; otherwise count is 1 to RB_WIRE_MAX_RUN.
 */
#define RB_WIRE_MAX_RUN 1024u
void rb_msgrun_encode(struct rb_wbuf *w, uint64_t size, uint32_t count);
int rb_msgrun_decode(const uint8_t *p, size_t len, uint64_t *size, uint32_t *count);
void rb_text_encode(struct rb_wbuf *w, const char *msg);
int rb_text_decode(const uint8_t *p, size_t len, char *msg, size_t cap);

#endif

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
#define RB_WIRE_VERSION     6
#define RB_WIRE_HDR_LEN     12
#define RB_WIRE_MAX_PAYLOAD 65536
#define RB_WIRE_MAX_QPS     16384 /* QPs per side */
#define RB_QPINFO_PER_FRAME 4096  /* (QPN, PSN) pairs in one QPINFO frame */
#define RB_WIRE_MAX_PARAMS  48
#define RB_WIRE_MAX_ARGS    32 /* the client's given test options in HELLO */
#define RB_WIRE_KEY_LEN     32
#define RB_WIRE_HOST_LEN    64
#define RB_WIRE_VAL_LEN     128
#define RB_WIRE_MSG_LEN     512
/* --all-pairs control frames (fabmsg.h): a row, a rank's report, a round's end. */
#define RB_FAB_ROW_MAX  32768
#define RB_FAB_DEVS_LEN 256 /* a rank's rails' device names, comma-separated */
#define RB_FAB_JOIN_MAX (32u + 2u * (2 + RB_WIRE_HOST_LEN) + 2 + RB_FAB_DEVS_LEN)
#define RB_FAB_END_MAX  (12u + 2 + RB_WIRE_MSG_LEN + 2 + RB_FAB_DEVS_LEN)

enum rb_msg_type {
	RB_MSG_HELLO = 1, /* tool, version, symmetric parameters */
	RB_MSG_QPINFO,    /* per-QP addressing + remote buffer */
	RB_MSG_BARRIER,
	RB_MSG_PROGRESS, /* heartbeat from a side that is busy posting */
	RB_MSG_DONE,     /* a side's figures for one step (struct rb_stepend) */
	RB_MSG_WINDOW,   /* rc_write_bw --verify: a window of messages has landed */
	RB_MSG_VERIFY,   /* rc_write_bw --verify: the receiver's verdict on that window */
	RB_MSG_ERROR,    /* the peer failed; payload is its first cause */
	RB_MSG_LATSTATS, /* the measuring side's latency summary for one step */
	RB_MSG_SIZE,     /* socket_bw: the next messages, as size and count (size 0 = end of step) */
	RB_MSG_DATAPORT, /* socket_bw: the server's data listener port */
	RB_MSG_RXDONE,   /* socket_bw: everything the peer sent has arrived here */
	RB_MSG_JOIN,     /* --all-pairs: a rank reports to the coordinator (fabmsg.h) */
	RB_MSG_ROW,      /* --all-pairs: one result row of a pair */
	RB_MSG_END,      /* --all-pairs: a rank's pair of a round is over (and how) */
	RB_MSG_GO,       /* --all-pairs: the coordinator starts a round */
	RB_MSG_AUTH,      /* --auth-key: the client's nonce, its first frame (auth.h) */
	RB_MSG_CHALLENGE, /* --auth-key: the server's nonce and its proof of the key */
	RB_MSG_PROOF,     /* --auth-key: the client's proof of the key */
	RB_MSG_AGREE,     /* closing agreement: a side's verdict on a step or the run (agree.h) */
	RB_MSG_REFUSE,    /* server: the client's request is beyond this server's limits (text) */
	RB_MSG_TYPE_END,
};

const char *rb_msg_name(unsigned type);

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
 * hello.h, QPINFO in qpinfo.h, DONE/RXDONE in stepend.h, LATSTATS in pingpong.h,
 * WINDOW/VERIFY in src/rc_write_bw/msg.h. Here only the generic ones. Each encoder
 * writes the payload into w; each decoder returns 0 or -EPROTO.
 */

/* BARRIER, PROGRESS and DATAPORT carry one u64; ERROR one string. */
void rb_u64_encode(struct rb_wbuf *w, uint64_t v);
int rb_u64_decode(const uint8_t *p, size_t len, uint64_t *v);
/*
 * SIZE: count messages of size bytes (u64 size, u32 count). The end of a step is
 * size 0, count 0; otherwise count is 1 to RB_WIRE_MAX_RUN.
 */
#define RB_WIRE_MAX_RUN 1024u
void rb_msgrun_encode(struct rb_wbuf *w, uint64_t size, uint32_t count);
int rb_msgrun_decode(const uint8_t *p, size_t len, uint64_t *size, uint32_t *count);
void rb_text_encode(struct rb_wbuf *w, const char *msg);
int rb_text_decode(const uint8_t *p, size_t len, char *msg, size_t cap);

#endif

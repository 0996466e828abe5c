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
#define RB_WIRE_VERSION     3
#define RB_WIRE_HDR_LEN     12
#define RB_WIRE_MAX_PAYLOAD 65536
#define RB_WIRE_MAX_QPS     16384 /* QPs per side */
#define RB_QPINFO_PER_FRAME 4096  /* (QPN, PSN) pairs in one QPINFO frame */
#define RB_WIRE_MAX_PARAMS  48
#define RB_WIRE_KEY_LEN     32
#define RB_WIRE_VAL_LEN     128
#define RB_WIRE_MSG_LEN     512

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
	RB_MSG_SIZE,     /* socket_bw: size of the next message (0 = end of step) */
	RB_MSG_DATAPORT, /* socket_bw: the server's data listener port */
	RB_MSG_RXDONE,   /* socket_bw: everything the peer sent has arrived here */
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

/* ---- messages ---- */

struct rb_param {
	char key[RB_WIRE_KEY_LEN];
	char val[RB_WIRE_VAL_LEN];
};

struct rb_hello {
	char tool[RB_WIRE_KEY_LEN];
	char version[RB_WIRE_KEY_LEN];
	unsigned nparams;
	struct rb_param params[RB_WIRE_MAX_PARAMS];
};

struct rb_qpinfo {
	uint32_t qpn, psn, rkey;
	uint16_t lid;
	uint8_t mtu; /* enum ibv_mtu: 1..5 */
	uint8_t gid[16];
	uint64_t addr, len;
	uint64_t stride; /* bytes from this QP's buffer to the next QP's; 0 = shared */
};

/*
 * One side's QPs. Every QP of a side shares LID, GID, MTU and rkey, and QP i's
 * target buffer is len bytes at qp[0].addr + i * stride (stride 0: one buffer
 * shared by every QP), so the wire carries those once and only (QPN, PSN) per QP:
 * 8 bytes a QP, RB_QPINFO_PER_FRAME QPs a frame.
 */
struct rb_qpinfo_msg {
	unsigned count;
	struct rb_qpinfo *qp; /* count entries */
};

/*
 * A side's figures for one step (DONE; socket_bw's RXDONE too). A figure a tool
 * does not measure is NaN; the decoder refuses negative and infinite ones, and a
 * tool that needs a figure checks that it is there (rb_stepend_has).
 */
struct rb_stepend {
	uint64_t msgs, bytes, elapsed_ns;
	double peak_gbps; /* the best rate over short windows (stats.h) */
	double cpu_pct;   /* user+sys of the process over the step, 100 = one core */
};

static inline bool rb_stepend_has(double figure)
{
	return figure == figure; /* not NaN */
}

struct rb_lat_summary;

/* Each encoder writes the payload into w; each decoder returns 0 or -EPROTO. */
void rb_hello_encode(struct rb_wbuf *w, const struct rb_hello *h);
int rb_hello_decode(const uint8_t *p, size_t len, struct rb_hello *h);
/* QPINFO frames needed for count QPs. */
unsigned rb_qpinfo_frames(unsigned count);
/* Frame number `frame` (0-based) of m: the shared fields and its slice of (QPN, PSN) pairs. */
void rb_qpinfo_encode(struct rb_wbuf *w, const struct rb_qpinfo_msg *m, unsigned frame);
/*
 * Decodes one QPINFO frame into m, whose qp array holds cap entries. Frames come in
 * order: the frame must start at entry `next` and, after the first, repeat the
 * same total and shared fields. Sets m->count to the peer's total and *filled to
 * the entries now known (next + this frame's). -E2BIG when the peer has more QPs
 * than cap (m->count says how many), -EPROTO for anything malformed.
 */
int rb_qpinfo_decode(const uint8_t *p, size_t len, struct rb_qpinfo_msg *m, unsigned cap, unsigned next,
                     unsigned *filled);
void rb_latstats_encode(struct rb_wbuf *w, const struct rb_lat_summary *l);
/* Refuses negative, non-finite or out-of-order figures (min <= p50 <= ... <= max). */
int rb_latstats_decode(const uint8_t *p, size_t len, struct rb_lat_summary *l);
void rb_stepend_encode(struct rb_wbuf *w, const struct rb_stepend *e);
/* Also refuses messages in no time and fewer bytes than messages. */
int rb_stepend_decode(const uint8_t *p, size_t len, struct rb_stepend *e);
/* BARRIER, PROGRESS, SIZE and DATAPORT carry one u64; ERROR one string. */
void rb_u64_encode(struct rb_wbuf *w, uint64_t v);
int rb_u64_decode(const uint8_t *p, size_t len, uint64_t *v);
void rb_text_encode(struct rb_wbuf *w, const char *msg);
int rb_text_decode(const uint8_t *p, size_t len, char *msg, size_t cap);

/* Parameters: add, find, compare. */
int rb_hello_add(struct rb_hello *h, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
const char *rb_hello_get(const struct rb_hello *h, const char *key);
/*
 * Compares every parameter of local against remote (keys missing on one side
 * count). For each mismatch calls report(key, local, remote). Returns the number
 * of mismatches.
 */
unsigned rb_hello_compare(const struct rb_hello *local, const struct rb_hello *remote,
                          void (*report)(const char *key, const char *l, const char *r));

#endif

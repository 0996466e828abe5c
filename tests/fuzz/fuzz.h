/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the fuzz targets and the seed generator agree on: the first byte of an
 * input picks what the rest is fed to, the HELLO the receive-path target
 * negotiates with (so a seed can get past negotiation), and the job the
 * coordinator target runs (so a seed's JOINs carry its size and cookie).
 */
#ifndef RB_FUZZ_H
#define RB_FUZZ_H

#include "oob/agree.h"
#include "verbs/device.h"
#include "fabric/fabmsg.h"
#include "fifo.h"
#include "guard.h"
#include "measure/latency.h"
#include "msg.h"
#include "run/pingpong.h"
#include "run/stamps.h"
#include "oob/qpinfo.h"
#include "oob/stepend.h"
#include "oob/wire.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/*
 * fuzz_wire: input = selector byte + bytes for that decoder. New selectors go last:
 * the inputs in regress/wire/ name theirs by number.
 */
enum fuzz_wire_sel {
	FW_HDR,    /* 12-byte frame header */
	FW_HELLO,  /* HELLO payload, then compared with fuzz_local_hello() */
	FW_QPINFO, /* u16 c (cap = c % RB_WIRE_MAX_QPS + 1), then QPINFO payloads, each after a u16 length */
	FW_WINDOW,
	FW_VERDICT,
	FW_LATSTATS,
	FW_STEPEND,
	FW_U64,
	FW_TEXT,     /* u16 c (cap = c % RB_WIRE_MSG_LEN + 1), then an ERROR payload */
	FW_MSGRUN,   /* SIZE payload */
	FW_AGREE,    /* AGREE payload (the closing agreement) */
	FW_JOIN,     /* --all-pairs JOIN payload */
	FW_ROW,      /* --all-pairs ROW payload */
	FW_END,      /* --all-pairs END payload */
	FW_GO,       /* --all-pairs GO payload */
	FW_DATAPORT, /* socket_bw's DATAPORT payload, then a data connection's greeting checked against it */
	FW_FIFO,     /* fifo_pingpong: a 64-byte FIFO element, then FUZZ_FIFO_TAIL bytes of bounds */
	FW_TCPINFO,  /* socket_bw's TCPINFO: the sending sockets' TCP figures */
	FW_SRUN,     /* socket_bw's SRUN: a stream's run (--streams) */
	FW_SRXDONE,  /* socket_bw's SRXDONE: u8 w (the streams wanted: w % 17), then the payload */
	FW_STAMPS,   /* a STAMPS frame (run/stamps.h): u8 e (events: e % 12 + 1), u16 the row expected / 2,
	                payload */
	FW_SEL_END,
};

/* fuzz_oob: input = mode byte + the byte stream the peer sends. */
enum fuzz_oob_mode {
	FO_NEGOTIATE, /* rb_oob_negotiate, rb_oob_barrier(1), QPINFO frames, then receive */
	FO_RECV,      /* receive frames until the channel fails, decoding each */
	FO_BARRIER,   /* rb_oob_barrier(0), (1), ... until one fails, then receive */
	FO_EXPECT,    /* rb_oob_expect(DONE) until one fails, then receive */
	FO_SERVER,    /* a listening server: the input from its first client, a real peer behind it */
	FO_MODE_END,
};

/*
 * fuzz_fabric: input = the job's byte (FF_* below), then one record per connection
 * to the coordinator's port: u16 length, then what the connection sends (a JOIN
 * frame, then, once it is a rank's, its ROW and END frames for every round).
 */
#define FF_RANKS(b)    (2u + (b) % 7u)       /* 2 to 8 ranks */
#define FF_PAIRS(b)    ((b) / 7u % 3u)       /* enum rb_pairs_mode */
#define FF_RANDOM_K(b) (1u + (b) / 21u % 4u) /* random:K */
/* From 84 on, a --pattern: 1 incast:K (K = 1 + b % (n - 1)), 2 bisection, 3 all-to-all. */
#define FF_PATTERN(b) ((b) / 84u % 4u)
/* The job byte for n ranks, --pairs mode and random:K (n 2 to 8, k 1 to 4). */
#define FF_JOB(n, mode, k) ((uint8_t)((n)-2u + 7u * ((mode) + 3u * ((k)-1u))))
#define FF_SEED            0x5eedf00dcafeull /* the coordinator's schedule seed */
#define FF_COOKIE_BYTE     0xc3              /* every byte of the job's cookie */
#define FF_MAX_INPUT       (16 * 1024)       /* a round's rows are kept: quadratic past this */

/* fuzz_wire's FW_FIFO: what the sender knows, after the element's 64 bytes (big-endian). */
#define FUZZ_FIFO_BASE 0x7f0000000000ull /* the receiver's registered area starts here */
#define FUZZ_FIFO_TAIL 14 /* u32 rkey, u32 tag, u8 nreqs - 1, u16 len - 1, u16 need, u8 request */

/* Inputs longer than this are cut: it is what one socket buffer takes without a reader. */
#define FUZZ_OOB_MAX_INPUT (96 * 1024)

/*
 * A property that must hold for any input: abort, so libFuzzer keeps the input. The
 * message goes through the sanitizer's report channel when there is one: under
 * -close_fd_mask=2 the program's own stderr is closed.
 */
void __sanitizer_report_error_summary(const char *summary) __attribute__((weak));

static inline void fuzz_fail(const char *file, int line, const char *what)
{
	char msg[512];

	snprintf(msg, sizeof(msg), "property failed at %s:%d: %s", file, line, what);
	if (__sanitizer_report_error_summary)
		__sanitizer_report_error_summary(msg);
	else
		fprintf(stderr, "%s\n", msg);
	abort();
}

#define FUZZ_CHECK(cond)                                                                                     \
	do {                                                                                                 \
		if (!(cond))                                                                                 \
			fuzz_fail(__FILE__, __LINE__, #cond);                                                \
	} while (0)

/* One of each decoded message, for the decoders that fill a fixed-size value. */
struct fuzz_msgs {
	struct rb_window window;
	struct rb_verdict verdict;
	struct rb_lat_summary lat;
	struct rb_stepend stepend;
	struct rb_agree agree;
	uint64_t u64;
	struct {
		uint64_t size;
		uint32_t count;
	} run;
};

static inline void fuzz_local_hello(struct rb_hello *h)
{
	*h = (struct rb_hello){.tool = "rc_write_bw", .version = "0.1.0"};
	rb_hello_add(h, "size", "%u", 65536u);
	rb_hello_add(h, "iters", "%u", 1000u);
	rb_hello_add(h, "qps", "%u", 3u);
	rb_hello_add(h, "verify", "%s", "yes");
}

/* Every frame type the tools and --all-pairs register, as their runs do before reading. */
static inline void fuzz_register_msgs(void)
{
	if (rb_msg_register(bw_msgs, BW_NMSGS) || rb_msg_register(sock_msgs, SOCK_NMSGS) ||
	    rb_fab_register_msgs())
		abort();
}

#endif

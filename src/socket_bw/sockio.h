/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The blocking I/O every data socket uses (sockio.c; ping-pong included):
 * exact-length send/receive that wakes every SOCK_SLICE_MS to look at the stop
 * signal and an abort flag, and gives up after a timeout without progress; and the
 * MSG_ZEROCOPY notification ids of a socket.
 */
#ifndef RB_SOCKET_BW_SOCKIO_H
#define RB_SOCKET_BW_SOCKIO_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* SO_RCVTIMEO / SO_SNDTIMEO of every data socket: how often a blocked call looks up. */
#define SOCK_SLICE_MS 100

/* Where every data buffer, and each socket's part of a multi-socket one, starts. */
#define SOCK_BUF_ALIGN 4096u
#define SOCK_HUGE      (2u << 20) /* x86-64's transparent huge page */

/*
 * MSG_ZEROCOPY bookkeeping of one socket. Every send() that moves bytes with
 * MSG_ZEROCOPY takes the next notification id; the kernel may read the pages
 * until a notification covering that id arrives on the error queue.
 */
struct sock_zc {
	uint32_t issued;                 /* ids handed out so far */
	uint32_t done_below;             /* every id below this one has completed */
	uint32_t ooo_lo[16], ooo_hi[16]; /* completed ranges above a gap (rare) */
	unsigned nooo;
	uint64_t completions, copied; /* ids completed; of those, sent with a copy by the kernel */
};

/* One data socket's blocking I/O. */
struct sock_io {
	int fd;
	int timeout_ms; /* no progress for this long: -ETIMEDOUT */
	/*
	 * Worker threads: the control thread's request to stop. NULL in the control
	 * thread itself, which looks at the stop signal instead (signals are its alone).
	 */
	const _Atomic bool *abort;
	struct sock_zc *zc; /* non-NULL: send with MSG_ZEROCOPY and count the ids */
};

/*
 * Moves exactly n bytes. Returns 0; -ECONNRESET when the peer closed or reset the
 * connection; -ETIMEDOUT after timeout_ms without a byte; -ECANCELED when *abort was
 * set; -EINTR (abort NULL) after SIGINT/SIGTERM, not logged: the caller owns the
 * message; or -errno.
 */
/*
 * A data buffer of n bytes (at least 1), zeroed and its pages faulted in, starting on
 * a page and from 1 MiB on a huge page, rounded up to whole ones (sock_buf_bytes: what
 * it holds of memory) and asking for huge pages: the kernel's copy to or from a buffer
 * that started mid-page ran at half the speed (1 MiB over loopback: 20 against 42
 * Gb/s). NULL when out of memory; free() it.
 */
uint64_t sock_buf_bytes(uint64_t n);
void *sock_buf_alloc(size_t n);

int sock_send(const struct sock_io *io, const void *p, size_t n);
int sock_recv(const struct sock_io *io, void *p, size_t n);
/* Reads the zerocopy notifications queued on fd (never blocks). 0 or -errno. */
int sock_zc_reap(struct sock_zc *z, int fd);
/* True when every id below mark has completed: the pages those sends used are ours again. */
bool sock_zc_done(const struct sock_zc *z, uint32_t mark);

#endif

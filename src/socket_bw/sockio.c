/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The blocking I/O every data socket uses (ping-pong included): exact-length
 * send/receive that wakes every SOCK_SLICE_MS to look at the stop signal and an abort
 * flag and gives up after a timeout without progress, and the MSG_ZEROCOPY
 * notification ids of a socket.
 */
#include "sockio.h"

#include "base/base.h"

#include <errno.h>
#include <linux/errqueue.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>

#ifndef MSG_ZEROCOPY
#define MSG_ZEROCOPY 0x4000000
#endif
#ifndef SO_EE_ORIGIN_ZEROCOPY
#define SO_EE_ORIGIN_ZEROCOPY 5
#endif
#ifndef SO_EE_CODE_ZEROCOPY_COPIED
#define SO_EE_CODE_ZEROCOPY_COPIED 1
#endif

/* Serial-number order of 32-bit ids (they wrap). */
static bool id_le(uint32_t a, uint32_t b)
{
	return (int32_t)(b - a) >= 0;
}

static void zc_complete(struct sock_zc *z, uint32_t lo, uint32_t hi)
{
	z->completions += (uint64_t)(hi - lo) + 1;
	if (id_le(hi + 1, z->done_below))
		return; /* already counted */
	if (!id_le(lo, z->done_below)) {
		/*
		 * Completed above a gap. TCP completes in order in practice; a range that
		 * does not fit in the list is dropped, so a waiter times out rather than
		 * refilling pages the kernel may still read.
		 */
		if (z->nooo < sizeof(z->ooo_lo) / sizeof(z->ooo_lo[0])) {
			z->ooo_lo[z->nooo] = lo;
			z->ooo_hi[z->nooo++] = hi;
		}
		return;
	}
	z->done_below = hi + 1;
	for (unsigned i = 0; i < z->nooo;) {
		if (id_le(z->ooo_lo[i], z->done_below)) {
			if (id_le(z->done_below, z->ooo_hi[i] + 1))
				z->done_below = z->ooo_hi[i] + 1;
			z->ooo_lo[i] = z->ooo_lo[--z->nooo];
			z->ooo_hi[i] = z->ooo_hi[z->nooo];
			i = 0;
			continue;
		}
		i++;
	}
}

int sock_zc_reap(struct sock_zc *z, int fd)
{
	for (;;) {
		char control[CMSG_SPACE(sizeof(struct sock_extended_err) + sizeof(struct sockaddr_in6))];
		struct msghdr msg = {.msg_control = control, .msg_controllen = sizeof(control)};

		if (recvmsg(fd, &msg, MSG_ERRQUEUE | MSG_DONTWAIT) < 0) {
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return 0;
			if (errno == EINTR)
				continue;
			return -errno;
		}
		for (struct cmsghdr *cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm)) {
			struct sock_extended_err ee;

			if (!(cm->cmsg_level == SOL_IP && cm->cmsg_type == IP_RECVERR) &&
			    !(cm->cmsg_level == SOL_IPV6 && cm->cmsg_type == IPV6_RECVERR))
				continue;
			memcpy(&ee, CMSG_DATA(cm), sizeof(ee));
			if (ee.ee_origin != SO_EE_ORIGIN_ZEROCOPY || ee.ee_errno != 0)
				continue;
			zc_complete(z, ee.ee_info, ee.ee_data);
			if (ee.ee_code & SO_EE_CODE_ZEROCOPY_COPIED)
				z->copied += (uint64_t)(ee.ee_data - ee.ee_info) + 1;
		}
	}
}

bool sock_zc_done(const struct sock_zc *z, uint32_t mark)
{
	return id_le(mark, z->done_below);
}

/*
 * The data sockets carry SO_RCVTIMEO/SO_SNDTIMEO of SOCK_SLICE_MS, so a blocked call
 * returns (EAGAIN, or with part of the bytes) often enough to notice a stop, and the
 * real bound, timeout_ms without a byte, is counted here. A receive takes what has
 * arrived and loops, as iperf3's reads do: MSG_WAITALL, sleeping in the kernel until
 * the whole message is there, cost a tenth of the bandwidth at 1 MiB over loopback.
 */
static int io_all(const struct sock_io *io, uint8_t *p, size_t n, bool tx)
{
	const int flags = tx ? MSG_NOSIGNAL | (io->zc ? MSG_ZEROCOPY : 0) : 0;
	uint64_t last = rb_now_ns();
	struct rb_turn turn = {last, RB_TURN_WALL, 0}; /* between turns: a socket call */

	while (n) {
		ssize_t k = tx ? send(io->fd, p, n, flags) : recv(io->fd, p, n, flags);

		if (k > 0) {
			if (io->zc)
				io->zc->issued++; /* one notification id per send that moved bytes */
			p += k;
			n -= (size_t)k;
			last = turn.wall_ns = rb_now_ns(); /* a new turn: the time since is not an absence */
			continue;
		}
		if (k == 0)
			return -ECONNRESET;
		if (errno == EPIPE || errno == ECONNRESET)
			return -ECONNRESET;
		if (errno == ENOBUFS && io->zc) {
			/* Socket option memory is full of notifications: read them, then retry. */
			struct pollfd pf = {io->fd, 0, 0};
			int ret = sock_zc_reap(io->zc, io->fd);
			if (ret)
				return ret;
			poll(&pf, 1, 1);
		} else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
			return -errno;
		}
		/* Only the control thread looks at the signal; it stops the others through abort. */
		if (io->abort ? atomic_load(io->abort) : rb_stop_signal() != 0)
			return io->abort ? -ECANCELED : -EINTR;
		/* The time this thread did not run is no silence of the peer's. */
		if (rb_cpuwait_silence(&last, &turn, rb_now_ns(), (uint64_t)SOCK_SLICE_MS * 1000000ull) >=
		    (uint64_t)io->timeout_ms * 1000000ull)
			return -ETIMEDOUT;
	}
	return 0;
}

#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25 /* Linux 6.1; older kernels: EINVAL, and no collapse later either */
#endif

/* From half a huge page up, whole huge pages (the hint needs them), else whole pages. */
static size_t buf_align(uint64_t n)
{
	return n >= SOCK_HUGE / 2 ? SOCK_HUGE : SOCK_BUF_ALIGN;
}

uint64_t sock_buf_bytes(uint64_t n)
{
	const size_t a = buf_align(n ? n : 1);

	return ((n ? n : 1) + a - 1) / a * a;
}

void *sock_buf_alloc(size_t n)
{
	const size_t a = buf_align(n ? n : 1), bytes = (size_t)sock_buf_bytes(n);
	void *p;

	if (posix_memalign(&p, a, bytes))
		return NULL;
	/* A hint (transparent huge pages on madvise, Debian's default): one TLB entry, not 512. */
	if (a == SOCK_HUGE)
		(void)madvise(p, bytes, MADV_HUGEPAGE);
	/* Not memset: the compiler may fold an allocation and a memset into a calloc, whose fresh
	 * pages would fault inside the measured loop. Zeroed: nothing on the wire is old heap. */
	explicit_bzero(p, bytes);
	/*
	 * Huge pages now or never: pages the first touch got small (memory fragmented), left to
	 * khugepaged, are collapsed whenever it comes by, inside a timed window too, and the
	 * next touch of each faults. Collapsed now, or else not at all.
	 */
	if (a == SOCK_HUGE && madvise(p, bytes, MADV_COLLAPSE))
		(void)madvise(p, bytes, MADV_NOHUGEPAGE);
	return p;
}

int sock_send(const struct sock_io *io, const void *p, size_t n)
{
	return io_all(io, (uint8_t *)(uintptr_t)p, n, true);
}

int sock_recv(const struct sock_io *io, void *p, size_t n)
{
	return io_all(io, p, n, false);
}

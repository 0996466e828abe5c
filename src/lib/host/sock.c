/* SPDX-License-Identifier: BSD-2-Clause */
#include "sock.h"

#include "base/base.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>

/* Poll slices: a stop is seen even when the signal went to another thread. */
#define SLICE_MS 100

int rb_connect_bounded(int fd, const struct sockaddr *sa, socklen_t sl, uint64_t deadline)
{
	int fl = fcntl(fd, F_GETFL), err = 0, pr = 0;
	socklen_t el = sizeof(err);

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK))
		return -errno;
	if (connect(fd, sa, sl) && errno != EINPROGRESS)
		return -errno;
	while (pr <= 0) {
		struct pollfd p = {fd, POLLOUT, 0};
		uint64_t now = rb_now_ns();
		uint64_t left_ms = now >= deadline ? 0 : (deadline - now + 999999) / 1000000;

		if (rb_stop_signal())
			return -EINTR;
		if (!left_ms)
			return -ETIMEDOUT;
		pr = poll(&p, 1, left_ms < SLICE_MS ? (int)left_ms : SLICE_MS);
		if (pr < 0 && errno != EINTR)
			return -errno;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el))
		return -errno;
	if (!err && fcntl(fd, F_SETFL, fl))
		return -errno;
	return -err;
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* The client's end of the out-of-band channel: a bounded connect with retries, then --auth-key's proof. */
#include "oob_priv.h"

#include "base/base.h"
#include "host/host.h"

#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* One address: fd connected, or -1 with *err set (ETIMEDOUT at the deadline). */
static int connect_once(const struct addrinfo *a, uint64_t deadline, int *err)
{
	int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, 0);
	int ret;

	if (fd < 0) {
		*err = errno;
		return -1;
	}
	/* Later reads and writes carry their own deadlines through poll(). */
	ret = rb_connect_bounded(fd, a->ai_addr, a->ai_addrlen, deadline);
	if (!ret)
		return fd;
	*err = ret == -EINTR ? EINTR : -ret;
	if (!*err)
		*err = EIO;
	close(fd);
	return -1;
}

int rb_oob_connect(const char *host, const struct rb_oob_opts *o, struct rb_oob *out)
{
	struct addrinfo hints = {0}, *ai = NULL;
	char port[16];
	uint64_t deadline = rb_now_ns() + (uint64_t)o->timeout_s * 1000000000ull;
	int fd = -1, err = 0, cause = 0, ret;
	bool said = false;

	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	snprintf(port, sizeof(port), "%u", o->port);
	ret = getaddrinfo(host, port, &hints, &ai);
	if (ret) {
		rb_usage_err("cannot resolve server '%s': %s", host, gai_strerror(ret));
		return -EINVAL;
	}
	/* The server may not be up yet: retry so start order does not matter. */
	while (fd < 0) {
		for (const struct addrinfo *a = ai; a && fd < 0; a = a->ai_next) {
			fd = connect_once(a, deadline, &err);
			/* The last attempt may only run into the deadline: say what the others met. */
			if (fd < 0 && err != ETIMEDOUT)
				cause = err;
		}
		if (fd >= 0 || rb_now_ns() >= deadline)
			break;
		/* Not silence while waiting: once, at once, what it met and how long it will try. */
		if (!said && cause) {
			said = true;
			rb_warn("no server at %s port %u yet (%s); retrying until --oob-timeout %u s", host,
			        o->port, strerror(cause), o->timeout_s);
		}
		if (rb_check_stop()) {
			freeaddrinfo(ai);
			return -EINTR;
		}
		usleep(100 * 1000);
	}
	freeaddrinfo(ai);
	if (fd < 0) {
		err = cause ? cause : err ? err : ETIMEDOUT;
		rb_err("cannot connect to %s port %u within %u s: %s", host, o->port, o->timeout_s,
		       strerror(err));
		return -err;
	}
	rb_oob_set_nodelay(fd);
	rb_oob_from_fd(fd, (int)o->timeout_s * 1000, out);
	out->role = "server";
	if (o->key.set && (ret = rb_oob_auth_client(out, &o->key)))
		rb_oob_close(out);
	return ret;
}

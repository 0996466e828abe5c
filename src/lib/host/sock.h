/* SPDX-License-Identifier: BSD-2-Clause */
/* TCP sockets, whoever opens them: a connect bounded by a deadline. */
#ifndef RB_SOCK_H
#define RB_SOCK_H

#include <stdint.h>
#include <sys/socket.h>

/*
 * connect(fd, sa) by deadline (rb_now_ns), not the kernel's SYN retries: 0, or
 * -ETIMEDOUT, -EINTR (a stop was asked for: noticed within 100 ms, whichever
 * thread the signal reached), or the connection's own -errno. fd keeps its flags.
 */
int rb_connect_bounded(int fd, const struct sockaddr *sa, socklen_t sl, uint64_t deadline);

#endif

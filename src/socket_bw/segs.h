/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The segments that arrived on one data socket (the kernel's tcpi_segs_in, which
 * glibc's struct tcp_info lacks): what a receiver holds its sender's TCP figures to.
 */
#ifndef RB_SOCKET_BW_SEGS_H
#define RB_SOCKET_BW_SEGS_H

#include <stdint.h>

/* 0 with the socket's count of segments received, -ENOTSUP where the kernel keeps none, or -errno. */
int sock_segs_in(int fd, uint32_t *segs);

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/* socket_bw --ping-pong (pingpong.c): one message each way per round trip over one socket. */
#ifndef RB_SOCKET_BW_PP_H
#define RB_SOCKET_BW_PP_H

#include "socket_bw.h"

/* One --ping-pong size, after the barrier: the client measures, the server echoes. */
int pp_step(struct sock_run *r, uint64_t size, struct rb_pp_result *res);

#endif

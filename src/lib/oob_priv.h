/* What oob.c (the channel) and oob_server.c (the listener) share; not for tools. */
#ifndef RB_OOB_PRIV_H
#define RB_OOB_PRIV_H

#include "oob.h"

#include <stddef.h>
#include <stdint.h>

void rb_oob_set_nodelay(int fd);
/* "host:port" of the socket's peer. */
void rb_oob_peer_name(int fd, char *buf, size_t len);
/* Grows the channel's receive buffer to hold an n-byte payload; 0 or -ENOMEM. */
int rb_oob_rx_reserve(struct rb_oob *o, uint32_t n);

#endif

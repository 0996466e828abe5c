/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The device's asynchronous events (ibv_get_async_event) read during a run. A CQ
 * overrun, a QP that went to the error state or a port that went down otherwise
 * shows up only as completions that never come.
 */
#ifndef RB_ASYNC_H
#define RB_ASYNC_H

#include "device.h"

/* fd made non-blocking (an event channel read only after poll() says so); what names it in the error. */
int rb_nonblocking(int fd, const char *what);

/* Makes the device's async event fd non-blocking; called once after the device is open. */
int rb_async_init(struct rb_device *d);
/*
 * Reads every pending event without blocking and acknowledges it. A fatal one (CQ
 * error, QP fatal / request / access error, port error, device fatal) is logged as
 * the cause (event name, QPN or port) and returned as -EIO; others are logged with -v.
 */
int rb_async_poll(struct rb_device *d);

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
#include "async.h"

#include "base/base.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>

int rb_nonblocking(int fd, const char *what)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0) {
		int err = errno;
		rb_err("cannot make %s non-blocking: %s", what, strerror(err));
		return -err;
	}
	return 0;
}

int rb_async_init(struct rb_device *d)
{
	char what[96];

	snprintf(what, sizeof(what), "%s's async event channel", d->name);
	return rb_nonblocking(d->ctx->async_fd, what);
}

static int report(struct rb_device *d, const struct ibv_async_event *ev)
{
	const char *what = ibv_event_type_str(ev->event_type);

	switch (ev->event_type) {
	case IBV_EVENT_CQ_ERR:
		rb_err("async event on %s: %s (completion queue overrun or error; the CQ is unusable)",
		       d->name, what);
		return -EIO;
	case IBV_EVENT_QP_FATAL:
	case IBV_EVENT_QP_REQ_ERR:
	case IBV_EVENT_QP_ACCESS_ERR:
		rb_err("async event on %s: %s on QPN 0x%06x (the QP went to the error state)", d->name, what,
		       ev->element.qp ? ev->element.qp->qp_num : 0);
		return -EIO;
	case IBV_EVENT_PORT_ERR:
		if (ev->element.port_num != d->port)
			break;
		rb_err("async event on %s: %s on port %d (the link went down)", d->name, what,
		       ev->element.port_num);
		return -EIO;
	case IBV_EVENT_DEVICE_FATAL:
		rb_err("async event on %s: %s (the adapter must be reset)", d->name, what);
		return -EIO;
	default: break;
	}
	rb_dbg("async event on %s: %s", d->name, what);
	return 0;
}

int rb_async_poll(struct rb_device *d)
{
	struct ibv_async_event ev;
	int ret = 0;

	if (!d->ctx)
		return 0;
	while (!ibv_get_async_event(d->ctx, &ev)) {
		int r = report(d, &ev);
		ibv_ack_async_event(&ev);
		if (r && !ret)
			ret = r;
	}
	return ret;
}

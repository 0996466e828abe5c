/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The peer's frames during a step, taken as they come: PROGRESS, DONE, WINDOW and
 * VERIFY kept for whoever waits for them, an ERROR or anything malformed the end of
 * the step; and -D's bound on the peer's DONE.
 */
#include "frames.h"
#include "state.h"

#include "base/base.h"

#include <errno.h>
#include <stdint.h>
#include <sys/socket.h>

int bw_read_frame(struct bw_engine *e)
{
	struct rb_frame f;
	int ret = rb_oob_recv(e->o, &f, (int)e->cfg.timeout_s * 1000);

	if (ret)
		return ret;
	e->peer_seen = rb_now_ns();
	switch (f.type) {
	case RB_MSG_PROGRESS: return 0;
	case RB_MSG_DONE:
		/* The peer's peak is a figure every rc_write_bw measures: absent only with -N (both sides).
		 */
		if (!e->have_done &&
		    !rb_stepend_accept(&f, e->cfg.no_peak ? 0 : RB_STEPEND_PEAK,
		                       e->cfg.no_peak ? RB_STEPEND_PEAK : 0, &e->peer_done)) {
			e->have_done = true;
			return 0;
		}
		break;
	case BW_MSG_WINDOW:
		if (!e->have_window && !rb_window_decode(f.p, f.len, &e->peer_window)) {
			e->have_window = true;
			return 0;
		}
		break;
	case BW_MSG_VERIFY:
		if (!e->have_verdict && !rb_verdict_decode(f.p, f.len, &e->peer_verdict)) {
			e->have_verdict = true;
			return 0;
		}
		break;
	default: break;
	}
	rb_err("protocol error: unexpected or malformed %s frame from %s", rb_msg_name(f.type), e->o->peer);
	return -EPROTO;
}

int bw_peer_overdue(struct bw_engine *e, uint64_t now)
{
	/* A send queue of large WRITEs drains slowly on an emulated device: more grace than TCP's. */
	uint64_t grace = (uint64_t)((5 + e->cfg.duration_s / 2) * 1e9);

	if (e->have_done)
		return 0;
	return rb_step_overdue(e->o, now - e->t_step, e->cfg.duration_s, grace, "sending");
}

/*
 * 1 when the peer's next frame is an ERROR: looked at without taking the frame,
 * since after the peer's DONE a frame can also be the next step's BARRIER.
 */
static int peer_error_queued(struct bw_engine *e)
{
	uint8_t hdr[RB_WIRE_HDR_LEN];
	struct rb_frame_hdr h;
	const char *why;
	ssize_t n = recv(e->o->fd, hdr, sizeof(hdr), MSG_PEEK | MSG_DONTWAIT);

	return n == (ssize_t)sizeof(hdr) && !rb_frame_hdr_decode(hdr, &h, &why) && h.type == RB_MSG_ERROR;
}

/*
 * When the peer failed, its ERROR is the cause, not our heartbeat bouncing off the
 * connection it closed. After its DONE, its next frame belongs to the next step (a
 * BARRIER) and stays queued, unless it is an ERROR. So does the end of the
 * channel: a peer that has its DONE and ours may close at once after the last step,
 * and when another step follows, its BARRIER is what finds the channel closed.
 */
int bw_peer_poll(struct bw_engine *e)
{
	int rd, ret;

	while ((rd = rb_oob_readable(e->o, 0)) != 0) {
		if (rd < 0)
			return rd;
		if (e->have_done && !peer_error_queued(e))
			break;
		ret = bw_read_frame(e);
		if (ret)
			return ret;
	}
	return 0;
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fifo_pingpong's channels (chans.h). Channel t owns QPs t(q+1)..t(q+1)+q, its CTS QP
 * last (the connection set's control QP of that block: --fifo-tc), send and receive
 * CQ t (the connection set's block rule maps the same QPs), a slice of each region:
 *   payload regions   [t x data, +data)
 *   control target    [t x ctl_dst_chan, +ctl_dst_chan): its CTS FIFO, sizes FIFO
 *   control source    [t x ctl_src_chan, +ctl_src_chan): its CTS and sizes staging, its zeros
 * and a flush QP of its own. One channel is exactly the layout of fp.h.
 */
#include "chans.h"
#include "modes.h"
#include "xfer.h"

#include "base/base.h"
#include "verbs/verbs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A channel's slice of the control regions (fp.h), in whole cache lines. */
static uint64_t lines(uint64_t bytes)
{
	return (bytes + 63) / 64 * 64;
}

/* The least power of two at or above n (n at most WINDOW_MAX): rings indexed by a mask. */
static uint32_t pow2_at_least(uint32_t n)
{
	uint32_t p = 1;

	while (p < n)
		p <<= 1;
	return p;
}

/* FIFO slots: a slot per message of the window, rounded up so a slot is seq & (slots - 1). */
static uint32_t fifo_slots(const struct fp_opts *o)
{
	return pow2_at_least(o->window);
}

static uint64_t ctl_dst_chan(const struct fp_opts *o)
{
	return lines(fifo_bytes(fifo_slots(o), o->multi_recv) + fifo_sizes_bytes(fifo_slots(o)));
}

/* The staged CTS and sizes, and a slot of zeros. */
static uint64_t ctl_src_chan(const struct fp_opts *o)
{
	return lines(fifo_bytes(fifo_slots(o), o->multi_recv) + fifo_sizes_bytes(fifo_slots(o)) +
	             fifo_bytes(1, o->multi_recv));
}

/*
 * The messages of the window one data QP can have at once: every one when split;
 * else message seq goes on QP seq % -q, and the window's messages are consecutive.
 */
static uint32_t msgs_per_qp(const struct fp_opts *o)
{
	return o->split ? o->window : (o->window + o->qps - 1) / o->qps;
}

/* Channel t's QPs, CQs and slices (the run's struct fp copied for t > 0). */
static void place(struct fp *f, unsigned t)
{
	const struct fp_opts *o = &f->opt;

	f->chan = t;
	f->qp0 = t * (o->qps + 1);
	f->data_off = t * f->data_bytes;
	f->slots = fifo_slots(o);
	f->fifo_off = t * ctl_dst_chan(o);
	f->sizes_off = f->fifo_off + fifo_bytes(f->slots, o->multi_recv);
	f->cts_off = t * ctl_src_chan(o);
	f->szs_off = f->cts_off + fifo_bytes(f->slots, o->multi_recv);
	if (f->opt.threads > 1)
		snprintf(f->where, sizeof(f->where), " on channel %u", t);
	else
		f->where[0] = '\0';
}

struct rb_conn_cfg fp_conn_cfg(struct fp *f)
{
	const struct fp_opts *o = &f->opt;
	unsigned n = o->threads;
	/*
	 * Data QPs: the messages of the window that can be on one QP at once, each a WRITE
	 * per request and the WRITE_WITH_IMM; a receive each, and one a cancelled -D
	 * message left. The CTS QP: a write per message of the window, unsignaled but one
	 * in CTS_SIGNAL, and after -D as many clears.
	 */
	uint32_t per_qp = msgs_per_qp(o);
	uint32_t wrs = per_qp * (o->multi_recv + 1) + 8, cts = 2 * o->window + CTS_SIGNAL + 8;

	f->slot_bytes = (rb_sizes_max(&o->sizes) + 63) / 64 * 64;
	f->data_bytes = f->slot_bytes * o->window * o->multi_recv;
	place(f, 0);
	return (struct rb_conn_cfg){
	    .nqps = n * (o->qps + 1), /* per channel: the data QPs, then the CTS QP */
	    .caps = {.send_wr = wrs, .recv_wr = per_qp + 2, .inline_bytes = o->inline_bytes},
	    /* The CTS QP takes no receives: the FIFO entries it writes carry no immediate. */
	    .ctl_caps = {.send_wr = cts,
	                 .inline_bytes = o->cts_inline && o->multi_recv * FIFO_ELEM_BYTES > o->inline_bytes
	                                     ? o->multi_recv * FIFO_ELEM_BYTES
	                                     : o->inline_bytes},
	    .src_per_qp = n * f->data_bytes,
	    .dst_per_qp = n * f->data_bytes,
	    .ctl_src = n * ctl_src_chan(o),
	    .ctl_dst = n * ctl_dst_chan(o),
	    .shared_buf = true,
	    .recv_cq = true,
	    .send_cqs = n,
	    .recv_cqs = n,
	    .dst_read = o->flush,
	    /* --flush is already a READ before each check. */
	    .dst_checked = o->verify && !o->flush,
	    .ctl_own_tclass = o->fifo_tc != FIFO_TC_UNSET,
	    .ctl_tclass = o->fifo_tc,
	    .ctl_tclass_opt = "--fifo-tc",
	    .ctl_every = n > 1 ? o->qps + 1 : 0,
	};
}

static int chan_ready(struct fp *f, unsigned t)
{
	int ret = 0;

	place(f, t);
	f->scq = f->c->scqs[t];
	f->rcq = f->c->rcqs[t];
	memset(&f->flush, 0, sizeof(f->flush));
	f->qcap = pow2_at_least(msgs_per_qp(&f->opt));
	f->qmsg = calloc((size_t)f->opt.qps * f->qcap, sizeof(*f->qmsg));
	if (!f->qmsg) {
		rb_err("out of memory for channel %u's message rings", t);
		return -ENOMEM;
	}
	/* --flush: a QP connected to itself, reading this side's own target region; its
	 * completion comes through the channel's send CQ. */
	if (f->opt.flush)
		ret = rb_readflush_open(&f->flush, &f->c->dev, f->c->pd, &f->v.qp, f->c->mtu, f->scq);
	return ret ? ret : fp_xfer_init(f);
}

int fp_chans_connect(struct fp *f)
{
	unsigned n = f->opt.threads;
	int ret = chan_ready(f, 0);

	if (ret || n == 1)
		return ret;
	f->more = calloc(n - 1, sizeof(*f->more));
	if (!f->more) {
		rb_err("out of memory for %u channels", n);
		return -ENOMEM;
	}
	for (unsigned t = 1; t < n && !ret; t++) {
		f->more[t - 1] = *f;
		f->more[t - 1].more = NULL;
		f->more[t - 1].qmsg = NULL; /* its own, from chan_ready */
		ret = chan_ready(&f->more[t - 1], t);
	}
	if (!ret && !(f->crew = rb_crew_start(n, fp_chan_work, f, "channel thread")))
		ret = -ENOMEM;
	if (!ret)
		rb_crew_watch(f->crew);
	for (unsigned t = 0; t < n && !ret; t++) {
		struct fp *c = t ? &f->more[t - 1] : f;
		unsigned q0 = c->qp0;

		c->crew = f->crew;
		c->worker = true;
		rb_dbg("channel %u: QPs %u..%u (CTS %u), send CQ %u, receive CQ %u, CPU %d", t, q0,
		       q0 + f->opt.qps, q0 + f->opt.qps, t, t, rb_crew_cpu(f->crew, t));
	}
	return ret;
}

bool fp_chans_teardown(struct fp *f)
{
	unsigned n = f->more ? f->opt.threads : 1;

	if (rb_crew_abandoned(f->crew))
		return false;
	rb_crew_end(f->crew);
	f->crew = NULL;
	for (unsigned t = 0; t < n; t++) {
		struct fp *c = t ? &f->more[t - 1] : f;

		rb_readflush_close(&c->flush);
		free(c->qmsg);
		c->qmsg = NULL;
	}
	free(f->more);
	f->more = NULL;
	f->worker = false;
	return true;
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fifo_pingpong's transfer layer (xfer.c): the FIFO, the data WRs, completions and
 * --flush, for the modes above it. Calls nothing above it.
 */
#ifndef RB_FIFO_PINGPONG_XFER_H
#define RB_FIFO_PINGPONG_XFER_H

#include "fp.h"

int fp_xfer_init(struct fp *f);
/* Receiver: receives on the message's QPs and its CTS elements in the sender's FIFO. */
int fp_rx_post(struct fp *f);
/* Receiver: takes arrived messages; returns how many completed, -errno. */
int fp_rx_poll(struct fp *f);
/* Receiver after STOP: the CTS posted beyond it are cleared from the sender's FIFO. */
int fp_rx_cancel(struct fp *f);
/* Sender: 1 when the CTS for the next message is there and sane, 0 not yet, -EPROTO bad. */
int fp_tx_cts(struct fp *f);
/* Sender: posts the next message (its CTS checked); stop sends the -D end marker. */
int fp_tx_post(struct fp *f, bool stop);
/* Sender, untimed: --verify's pattern into the next message's source buffers; 0 or -errno. */
int fp_tx_fill(struct fp *f);
/* Any side: takes send completions (data, CTS, flush, clear); returns how many messages completed, -errno. */
int fp_tx_poll(struct fp *f);
/* Every HK period inside a wait: signals, async events, the peer's frames. */
int fp_housekeeping(struct fp *f, uint64_t now);
/* The channel moved at now (its --timeout bound starts again); a crew's worker tells the crew it lives. */
void fp_progress(struct fp *f, uint64_t now);
/* A crew's worker whose step failed on another channel: -ECANCELED (leave now), else 0. */
int fp_left(const struct fp *f);
/* The wait bound ran out: the cause, named for what was awaited. */
int fp_timeout(struct fp *f, const char *what);

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The data path with its parts: the public face (xfer.h) and the two kinds of worker
 * it starts (worker.h, progress.h). For xfer.c, at the top of the data path, and the
 * unit test.
 */
#ifndef RB_SOCKET_BW_XFER_PRIV_H
#define RB_SOCKET_BW_XFER_PRIV_H

#include "progress.h"
#include "worker.h"
#include "xfer.h"

#endif

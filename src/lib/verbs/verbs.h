/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The verbs room's face: the one header other rooms and the tools include.
 * Owns: The verbs stack: devices, ports and GIDs, address vectors, QPs and their states,
 * CQ polling, memory registration (host, CUDA, dma-buf), RC connection sets (conn) and
 * rdma_cm (cm), async events, port counters, link rates.
 *
 * Uses: base, host, gpu, oob (QPINFO), measure.
 */
#ifndef RB_VERBS_FACE_H
#define RB_VERBS_FACE_H

#include "async.h"
#include "av.h"
#include "cm.h"
#include "conn.h"
#include "counters.h"
#include "cq.h"
#include "device.h"
#include "gid.h"
#include "inlinelimit.h"
#include "linkrate.h"
#include "mem.h"
#include "qp.h"
#include "readflush.h"
#include "relaxed.h"

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The oob room's face: the one header other rooms and the tools include.
 * Owns: The out-of-band channel and what travels on it: the frame format and its caps
 * (wire), the channel (channel: framing, deadlines, stops), its server end (strangers
 * refused) and client end (bounded connect), --auth-key (auth), HELLO (hello), the closing
 * agreement (agree), a step's end figures (stepend), QPINFO (qpinfo).
 *
 * Uses: base, host.
 */
#ifndef RB_OOB_FACE_H
#define RB_OOB_FACE_H

#include "agree.h"
#include "auth.h"
#include "channel.h"
#include "hello.h"
#include "qpinfo.h"
#include "stepend.h"
#include "wire.h"

#endif

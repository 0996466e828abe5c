/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The host room's face: the one header other rooms and the tools include.
 * Owns: Facts and services of the host: CPU and NUMA placement (pin), PCIe topology
 * (pcie, acs: its links and peer-to-peer redirects), socket interfaces (netif), NCCL_IB_HCA filters (hca),
 * huge pages, the meta block every document carries (sysinfo), the bounded TCP connect (sock),
 * a network interface's driver statistics (ethstats: ethtool -S), its DCB setup (dcb: PFC,
 * trust, the DSCP map).
 *
 * Uses: base.
 */
#ifndef RB_HOST_FACE_H
#define RB_HOST_FACE_H

#include "acs.h"
#include "dcb.h"
#include "ethstats.h"
#include "hca.h"
#include "hugepage.h"
#include "netif.h"
#include "pcie.h"
#include "pin.h"
#include "sock.h"
#include "sysinfo.h"

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * PCIe Access Control Services on the way up from a device: a bridge whose ACS
 * Control has Request Redirect or Completion Redirect set sends peer-to-peer traffic
 * up to the root complex, so a GPU and a NIC behind one switch talk through the CPU
 * (NCCL's troubleshooting asks for ACS off on PCIe switches). Read from each bridge's
 * config space in sysfs; beyond its first 64 bytes that needs root.
 */
#ifndef RB_ACS_H
#define RB_ACS_H

#include <stddef.h>
#include <stdint.h>

#define RB_ACS_REQ_REDIR  0x0004u
#define RB_ACS_CMPL_REDIR 0x0008u

/*
 * The ACS Control register in a config space image of len bytes (the extended
 * capabilities from 0x100 on, ID 0x000D), or -1 when it has none (or the image stops
 * at 256 bytes, as an unprivileged read does: -2 then).
 */
int rb_acs_ctl(const uint8_t *cfg, size_t len);

/*
 * The bridges above the PCI function bdf (sysfs: the root of the tree) whose ACS
 * redirects peer-to-peer. Returns how many; first (len bytes) names the nearest and
 * *ctl holds its register. -1 when none was found but some bridge's config space
 * could not be read past its header (not root).
 */
int rb_acs_redirecting(const char *sysfs, const char *bdf, char *first, size_t len, unsigned *ctl);

#endif

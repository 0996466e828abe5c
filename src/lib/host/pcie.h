/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Where a GPU sits relative to a NIC on PCIe, from sysfs: behind the same switch,
 * the same host bridge, or on different sockets. GPUDirect RDMA through a switch
 * runs at PCIe speed; across sockets it crosses the inter-socket link and usually
 * loses most of it (NCCL then stages through host memory).
 */
#ifndef RB_PCIE_H
#define RB_PCIE_H

#include <stdbool.h>
#include <stddef.h>

enum rb_pcie_rel {
	RB_PCIE_UNKNOWN,     /* a device's PCI node is not in sysfs */
	RB_PCIE_NOT_PCI,     /* the RDMA device has no PCI function (SoftRoCE, a VF-less virtual device) */
	RB_PCIE_SWITCH,      /* a PCIe bridge or switch below the root port in common (PIX/PXB) */
	RB_PCIE_HOST_BRIDGE, /* the same root complex, different root ports (PHB) */
	RB_PCIE_NODE,        /* different root complexes, the same NUMA node */
	RB_PCIE_ROOTS,       /* different root complexes, NUMA nodes unknown */
	RB_PCIE_SOCKETS,     /* different NUMA nodes: across the inter-socket link (SYS) */
};

/*
 * sysfs: the sysfs root ("/sys", or a copied tree); bdf: the GPU's PCI address in
 * any case ("0000:3B:00.0"); ibdev: the RDMA device's name. desc gets a sentence
 * with the evidence (the two sysfs paths, their NUMA nodes).
 */
enum rb_pcie_rel rb_pcie_relation(const char *sysfs, const char *bdf, const char *ibdev, char *desc,
                                  size_t len);
/* "same PCIe switch (PIX/PXB)" and the like. */
const char *rb_pcie_rel_name(enum rb_pcie_rel r);

/*
 * The data rate of the PCIe link under an RDMA device, in Gb/s: its current speed
 * (current_link_speed, GT/s) times its current width, after the line encoding
 * (8b/10b up to 5 GT/s, 128b/130b at 8 to 32 GT/s, the 236 TLP bytes of a 256-byte FLIT at 64 GT/s). TLP
 * and DLLP headers are not counted: a DMA stream gets some 5 to 15 % less. desc
 * gets "x16 at 16.0 GT/s". 0 when sysfs does not say (not a PCI function).
 */
double rb_pcie_link_gbps(const char *sysfs, const char *ibdev, char *desc, size_t len);

/*
 * A PCI function's link as sysfs gives it (current_link_speed/width against
 * max_link_speed/width under rel, a device directory relative to sysfs). Degraded:
 * running slower or narrower than it can, a card in the wrong slot, a bad riser or
 * a link trained down. A field sysfs does not give is 0.
 */
struct rb_pcie_link {
	double cur_gts, max_gts;
	long cur_width, max_width;
};

/* false when sysfs has no current link (not a PCIe function). */
bool rb_pcie_link_read(const char *sysfs, const char *rel, struct rb_pcie_link *l);
bool rb_pcie_link_degraded(const struct rb_pcie_link *l);
/* "x8 at 8.0 GT/s of x16 at 32.0 GT/s" (the max part only when known). */
void rb_pcie_link_fmt(const struct rb_pcie_link *l, char *buf, size_t len);

#endif

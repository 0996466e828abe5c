/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * rdma_doctor: why verbs are (not) usable on this host, layer by layer. A usable
 * port needs five layers under it, checked in order for every RDMA device:
 *   pci       the device's PCI function (or, for SoftRoCE and siw, its netdev)
 *   driver    the kernel driver bound to it (mlx5_core, rdma_rxe, ...)
 *   uverbs    the verbs character device (/dev/infiniband/uverbsN) exposed
 *   provider  a userspace provider (rdma-core's libmlx5, librxe, ...) for that driver
 *   access    permission to open the device (the group, a container's device rules)
 * then the port itself: state, physical state, link layer, rate, MTU, LID or GID.
 * Every check reads from the roots it is given, so a fabricated or copied tree can
 * be examined; only on the live roots (/sys, /dev) does it also ask libibverbs.
 */
#ifndef RB_RDMA_DOCTOR_H
#define RB_RDMA_DOCTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define DR_MAX_DEVS  64
#define DR_MAX_PORTS 8
#define DR_MAX_GIDS  32
#define DR_MAX_GPUS  16
#define DR_EVIDENCE  384

struct dr_roots {
	const char *sys, *dev, *prov; /* sysfs, /dev, the provider directory */
	bool live;                    /* the host's own: libibverbs may be asked too */
};

enum dr_layer { DR_PCI, DR_DRIVER, DR_UVERBS, DR_PROVIDER, DR_ACCESS, DR_NLAYERS };
enum dr_verdict { DR_OK, DR_FAIL, DR_WARN, DR_UNCHECKED };

struct dr_check {
	enum dr_verdict v;
	char evidence[DR_EVIDENCE];
};

struct dr_gid {
	int index;
	char gid[48], type[16], ndev[32];
	bool ipv4;
};

struct dr_port {
	int num;
	char state[32], phys[32], link_layer[16], rate[64];
	bool iwarp; /* node type RNIC */
	long lid;
	int netdev_mtu;   /* RoCE: the chosen GID's netdev MTU; 0 unknown */
	int active_mtu;   /* from libibverbs (live roots only); 0 unknown */
	int ngids, shown; /* non-zero GIDs in the table; the first `shown` of them in gids[] */
	struct dr_gid gids[DR_MAX_GIDS];
	int chosen; /* the table index of the GID the tools pick; -1 none */
	struct dr_gid chosen_gid;
	char why[160];
	bool usable, hca_match;
	char verdict[256];
};

struct dr_dev {
	char name[64], driver[64], pci[32], netdev[32];
	int numa_node;
	bool software;
	char iommu[256]; /* its IOMMU group's type, with the source */
	char ecn[256];   /* RoCE ECN (notification and reaction points) where the netdev shows it; "" none */
	char pcie[512];  /* its PCIe link: "x16 at 16.0 GT/s of x16 at 16.0 GT/s (sysfs ...)"; "" unknown */
	bool pcie_degraded;
	int dmabuf; /* the NIC takes dma-buf MRs: 1, 0, -1 not asked (live roots only) */
	char dmabuf_why[64];
	struct dr_check layer[DR_NLAYERS];
	int nports, ports_omitted;
	struct dr_port port[DR_MAX_PORTS];
	char conclusion[512];
};

/* A PCI function that should be an RDMA device and is not one (no driver, no IB driver). */
struct dr_orphan {
	char pci[32], vendor[16], driver[64];
	char why[256];
};

struct dr_gpu {
	char pci[32];
	int numa_node;
	char pcie[512];
	bool pcie_degraded;
	char acs[320];              /* ACS on the bridges above it */
	bool acs_redirect;          /* one of them sends peer-to-peer up to the root complex */
	char rel[DR_MAX_DEVS][256]; /* per device: the PCIe relation sentence */
};

struct dr_host {
	int ndevs, norphans, ngpus;
	int omitted; /* devices past DR_MAX_DEVS (or with unprintable names) not examined */
	struct dr_dev dev[DR_MAX_DEVS];
	struct dr_orphan orphan[DR_MAX_DEVS];
	struct dr_gpu gpu[DR_MAX_GPUS];
	char memlock[256], hugepages[160], peermem[160], rxe_module[200];
	char governor[256]; /* the CPU frequency governors */
	bool memlock_short;
	char nccl[4][200]; /* NCCL_IB_DISABLE, NCCL_NET, NCCL_IB_HCA, NCCL_SOCKET_IFNAME lines */
	char nccl_choice[300];
	char conclusion[512];
	int usable; /* usable ports */
};

/* layers.c: every device under ROOT/class/infiniband, its five layers; the PCI orphans. */
void dr_scan_devices(const struct dr_roots *r, struct dr_host *h);
struct rb_hca_filter;
struct rb_addr_range;
/* ports.c: each device's ports, GID table, chosen GID (inside range, when set) and verdicts. */
void dr_scan_ports(const struct dr_roots *r, struct dr_dev *d, const struct rb_hca_filter *filt,
                   const struct rb_addr_range *range);
/* host.c: memlock, hugepages, GPUs, peermem, the NCCL environment and the conclusions. */
/* The PCIe link of the function at rel (relative to sysfs) into out; whether it is degraded. */
bool dr_pcie_link(const struct dr_roots *r, const char *rel, char *out, size_t len);
void dr_scan_host(const struct dr_roots *r, struct dr_host *h, const char *hca);
/* evidence.c: what else on the host bounds a run: IOMMU, RoCE ECN, ACS above each GPU, the CPU governor. */
void dr_scan_evidence(const struct dr_roots *r, struct dr_host *h);
/* output.c */
void dr_print_text(FILE *f, const struct dr_host *h, const struct dr_roots *r);
void dr_print_json(FILE *f, const struct dr_host *h, const struct dr_roots *r);
const char *dr_layer_name(enum dr_layer l);

#endif

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
#ifndef RB_RDMA_DOCTOR_DOCTOR_H
#define RB_RDMA_DOCTOR_DOCTOR_H

#include "host/host.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define DR_MAX_DEVS  64
#define DR_MAX_PORTS 8
#define DR_MAX_GIDS  32
#define DR_MAX_GPUS  16
#define DR_EVIDENCE  384
#define DR_SOURCE    256

#define DR_DEFAULT_RUN_BYTES (64u << 10) /* rc_write_bw with no options: 64 KiB a side */
#define DR_SWEEP_RUN_BYTES   (8u << 20)  /* rc_write_bw -a: up to 8 MiB a side */

struct dr_roots {
	const char *sys, *dev, *prov; /* sysfs, /dev, the provider directory */
	bool live;                    /* the host's own: libibverbs may be asked too */
};

enum dr_layer { DR_PCI, DR_DRIVER, DR_UVERBS, DR_PROVIDER, DR_ACCESS, DR_NLAYERS };
/* UNKNOWN: a host fact that could not be read (never a layer's). */
enum dr_verdict { DR_OK, DR_FAIL, DR_WARN, DR_UNCHECKED, DR_UNKNOWN };

/*
 * Every finding is kept twice: the sentence people read (the text output, and "text"
 * in the JSON document) and the facts in it as typed fields, with the file they came
 * from ("source"; "" when none).
 */
struct dr_check {
	enum dr_verdict v;
	char evidence[DR_EVIDENCE];
	char source[DR_SOURCE];
};

/* A PCI function's PCIe link, current against the most it can (0: sysfs does not say). */
struct dr_link {
	bool known; /* sysfs has its current_link_* */
	bool degraded;
	double speed_gts, max_speed_gts;
	long width, max_width;
	char source[DR_SOURCE]; /* the function's directory, holding current_link_* and max_link_* */
	char text[512];         /* "PCIe link x16 at 16.0 GT/s of x16 at 16.0 GT/s (sysfs ...)"; "" unknown */
};

struct dr_gid {
	int index;
	char gid[48], type[16], ndev[32];
	bool ipv4;
};

/* The traffic class a run will set: --tclass, else $NCCL_IB_TC, else 0; and which of them said it. */
struct dr_tclass {
	int value;
	const char *from;
};

/* Why a port is not usable. */
enum dr_port_why {
	DR_PORT_USABLE,
	DR_PORT_LAYER,      /* a layer under the device failed */
	DR_PORT_STATE,      /* its state could not be read */
	DR_PORT_NOT_ACTIVE, /* link up, port not ACTIVE (InfiniBand: no subnet manager) */
	DR_PORT_LINK_DOWN,  /* the link is down */
	DR_PORT_NO_LID,     /* InfiniBand, ACTIVE, LID 0 */
	DR_PORT_LINK_LAYER, /* neither InfiniBand nor Ethernet */
	DR_PORT_NO_GID,     /* no GID the tools would pick */
};

struct dr_port {
	int num;
	char state[32], phys[32], link_layer[16], rate[64];
	double rate_gbps; /* the rate's leading number; 0 unknown */
	bool iwarp;       /* node type RNIC */
	long lid;
	int netdev_mtu;   /* RoCE: the chosen GID's netdev MTU; 0 unknown */
	int active_mtu;   /* from libibverbs (live roots only); 0 unknown */
	int ngids, shown; /* non-zero GIDs in the table; the first `shown` of them in gids[] */
	struct dr_gid gids[DR_MAX_GIDS];
	int chosen; /* the table index of the GID the tools pick; -1 none */
	struct dr_gid chosen_gid;
	bool in_range; /* the GID was chosen inside --gid-range */
	char why[160];
	bool usable, hca_match, unverified; /* unverified: usable as far as a given tree shows */
	enum dr_port_why why_not;
	const char *transport; /* "roce_v2", "roce_v1", "infiniband", "iwarp"; NULL another link layer */
	char verdict[256];
};

/* How the NIC's DMA is mapped. */
enum dr_iommu { DR_IOMMU_SOFTWARE, DR_IOMMU_ABSENT, DR_IOMMU_PASSTHROUGH, DR_IOMMU_TRANSLATED };

struct dr_dev {
	char name[64], driver[64], pci[32], netdev[32];
	char vendor_id[16], device_id[16]; /* "" when not a PCI function */
	char uverbs[DR_SOURCE];            /* the verbs node ("/dev/infiniband/uverbs0"); "" none */
	int rdma_cm;                       /* DEV/infiniband/rdma_cm: 1 present, 0 absent, -1 not looked */
	char provider_lib[DR_SOURCE];      /* the provider library found; "" none */
	int numa_node;
	bool software;
	enum dr_iommu iommu_mode;
	char iommu_type[32]; /* the group's type file ("identity", "DMA-FQ"); "" none */
	char iommu[256];     /* its IOMMU group's type, with the source */
	char iommu_source[DR_SOURCE];
	char ecn[256]; /* RoCE ECN (notification and reaction points) where the netdev shows it; "" none */
	char ecn_ndev[32];
	unsigned ecn_np, ecn_rp; /* the priorities enabled, bit p for priority p */
	char ecn_source[DR_SOURCE];
	/* DCB of the RoCE netdev (dcb.c): 1 read, 0 its driver has none, -1 not read (dcb_text says why, or
	 * "") */
	int dcb_state;
	char dcb_ndev[32];
	struct rb_dcb dcb;
	struct dr_tclass dcb_tclass;
	int dcb_prio,
	    dcb_better; /* the traffic class's priority (-1: the VLAN tag's); a lossless -T, -1 none */
	bool dcb_lossless;
	char dcb_text[512];
	struct dr_link pcie;
	int dmabuf; /* the NIC takes dma-buf MRs: 1, 0, -1 not asked (live roots only) */
	char dmabuf_why[64];
	struct dr_check layer[DR_NLAYERS];
	int nports, ports_omitted;
	struct dr_port port[DR_MAX_PORTS];
	/* ok: a port usable; warn: usable, but a layer unverified or the PCIe link degraded; fail */
	enum dr_verdict v;
	int failed_layer; /* the first failed layer; -1 none */
	char conclusion[512];
};

/* Why a PCI function that should be an RDMA device is not one. */
enum dr_orphan_why { DR_ORPHAN_NO_DRIVER, DR_ORPHAN_NO_IB_DRIVER, DR_ORPHAN_NOT_RDMA };

/* A PCI function that should be an RDMA device and is not one (no driver, no IB driver). */
struct dr_orphan {
	char pci[32], vendor[16], class[16], driver[64];
	enum dr_orphan_why reason;
	const char *module; /* the module that would make the RDMA device ("mlx5_ib"); NULL unknown */
	char why[256];
};

struct dr_gpu {
	char pci[32];
	int numa_node;
	struct dr_link pcie;
	char acs[320];     /* ACS on the bridges above it */
	bool acs_redirect; /* one of them sends peer-to-peer up to the root complex */
	int acs_bridges;   /* how many redirect; -1 unknown (not root) */
	char acs_nearest[32];
	unsigned acs_ctl;                       /* the nearest one's ACS Control */
	enum rb_pcie_rel rel_kind[DR_MAX_DEVS]; /* per device: where it sits */
	char rel[DR_MAX_DEVS][256];             /* per device: the PCIe relation sentence */
};

/* RLIMIT_MEMLOCK against what runs register. */
struct dr_memlock {
	enum dr_verdict v;     /* ok; warn: -a does not fit; fail: a default run does not fit; unknown */
	bool unlimited;        /* RLIM_INFINITY, or CAP_IPC_LOCK */
	bool capability;       /* unlimited by CAP_IPC_LOCK, not by the limit */
	long long limit_bytes; /* the soft limit; -1 infinity or unknown */
	char text[256];
};

/* The default huge page size and its pool. */
struct dr_hugepages {
	unsigned long long page_bytes; /* 0: none (no Hugepagesize) */
	char name[24];                 /* "2 MiB" */
	long reserved, free;           /* -1 unknown */
	char source[DR_SOURCE];        /* its sysfs directory */
	char text[200];
};

/* The CPU frequency governors. */
struct dr_governor {
	enum dr_verdict v; /* ok: performance on all; warn: not; unknown: none exposed */
	int cpus, performance;
	char other[32]; /* the first governor that is not performance */
	char source[DR_SOURCE];
	char text[256];
};

/* Automatic NUMA balancing: its hinting faults land inside timed loops. */
struct dr_numa_balancing {
	enum dr_verdict v; /* ok: off; warn: on; unknown: not this host, or not readable */
	int mode;          /* kernel.numa_balancing; -1 unknown */
	char source[DR_SOURCE];
	char text[300];
};

/* What NCCL would use here. */
enum dr_nccl_choice { DR_NCCL_IB, DR_NCCL_SOCKET, DR_NCCL_NET, DR_NCCL_FAIL };

struct dr_nccl {
	/* The environment (hca: the filter judged); NULL unset. */
	const char *ib_disable, *net, *plugin, *hca, *ifname;
	int ifname_match; /* NCCL_SOCKET_IFNAME matches an interface: 1, 0; -1 unset */
	enum dr_nccl_choice choice;
	char lines[4][200]; /* NCCL_IB_DISABLE, NCCL_NET, NCCL_IB_HCA, NCCL_SOCKET_IFNAME lines */
	char text[300];     /* the choice */
};

struct dr_host {
	int ndevs, norphans, ngpus;
	int omitted; /* devices past DR_MAX_DEVS (or with unprintable names) not examined */
	struct dr_dev dev[DR_MAX_DEVS];
	struct dr_orphan orphan[DR_MAX_DEVS];
	struct dr_gpu gpu[DR_MAX_GPUS];
	struct dr_memlock memlock;
	struct dr_hugepages hugepages;
	char peermem[160], peermem_source[DR_SOURCE]; /* source "": no client loaded */
	int rxe;                                      /* this kernel has rdma_rxe: 1, 0; -1 not asked */
	char rxe_module[200];
	struct dr_governor governor;
	struct dr_numa_balancing numa_balancing;
	struct dr_nccl nccl;
	/* ok: a port usable; warn: usable, but a PCIe link degraded or ACS redirects; fail */
	enum dr_verdict v;
	/* What the conclusion says caps it: the first degraded link's owner, the first GPU under ACS
	 * redirect. */
	const char *capped_pcie, *capped_acs;
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
bool dr_pcie_link(const struct dr_roots *r, const char *rel, struct dr_link *out);
void dr_scan_host(const struct dr_roots *r, struct dr_host *h, const char *hca);
/* host.c: the whole local scan into h (zeroed first): devices, their ports, then the host. */
void dr_scan(const struct dr_roots *r, struct dr_host *h, const struct rb_hca_filter *filt,
             const struct rb_addr_range *range, const char *hca);
/* evidence.c: what else on the host bounds a run: IOMMU, RoCE ECN, ACS above each GPU, the CPU governor. */
void dr_scan_evidence(const struct dr_roots *r, struct dr_host *h);
/*
 * dcb.c: s (NULL: not given) as the traffic class to judge: --tclass strictly (-1, the
 * usage error said: exit 2), or $NCCL_IB_TC (env) as NCCL reads it (always 0, a
 * warning where that differs from its text).
 */
int dr_tclass_parse(const char *s, bool env, struct dr_tclass *tc);
/* dcb.c: each RoCE device's netdev DCB (the live host only) and where tc lands. */
void dr_scan_dcb(const struct dr_roots *r, struct dr_host *h, const struct dr_tclass *tc);
/* dcb.c: d->dcb as read from netdev nd, judged for tc: d's dcb_prio, dcb_lossless, dcb_better, dcb_text. */
void dr_dcb_judge(struct dr_dev *d, const char *nd, const struct dr_tclass *tc);
/*
 * dcb.c: where one traffic class lands at one end of a triage: state 1 DCB read, 0 its
 * driver offers none, -1 not read; prio -1 when not judged (trust pcp, or not read);
 * pfc the PFC-enabled priorities, -1 not reported.
 */
struct dr_dcb_end {
	int state, prio, pfc;
};
#define DR_DCB_OTHER_CLASS (-2) /* the peer's state: it judged another class than ours (an older serve) */
/* This host's end (d's DCB, judged by dr_scan_dcb). */
void dr_dcb_end_of(const struct dr_dev *d, struct dr_dcb_end *e);
/* Both ends for traffic class tc: the verdict and its sentence (peer names the other host). */
enum dr_verdict dr_dcb_pair(const struct dr_dcb_end *here, const struct dr_dcb_end *there, int tc,
                            const char *peer, char *text, size_t cap);
/* output.c */
void dr_print_text(FILE *f, const struct dr_host *h, const struct dr_roots *r);
void dr_print_json(FILE *f, const struct dr_host *h, const struct dr_roots *r);
const char *dr_layer_name(enum dr_layer l);
/* "ok", "fail", "warn", "unchecked", "unknown": a verdict in the JSON documents. */
const char *dr_verdict_name(enum dr_verdict v);

/*
 * output.c: the writer both JSON documents use. Each member is a key and a value (key
 * NULL: an element of an array); commas and indentation follow the nesting, and a
 * container opened flat keeps all it holds on one line. A writer whose f is NULL
 * writes nothing.
 */
#define DR_SCHEMA     "rdma_doctor/2"
#define DR_JSON_DEPTH 12

struct dr_json {
	FILE *f;
	int depth, flat; /* open containers; the depth from which lines are not broken (0: none) */
	bool more[DR_JSON_DEPTH];
	char close[DR_JSON_DEPTH];
};

/* The document's opening brace and its head: schema, tool, version, host, date, mode. */
void dr_json_begin(struct dr_json *j, FILE *f, const char *mode);
/* Closes what is open and ends the line. */
void dr_json_end(struct dr_json *j);
/* bracket '{' or '['. */
void dr_json_open(struct dr_json *j, const char *key, char bracket, bool flat);
void dr_json_close(struct dr_json *j);
/* s NULL: null. */
void dr_json_str(struct dr_json *j, const char *key, const char *s);
/* s "": null. */
void dr_json_str0(struct dr_json *j, const char *key, const char *s);
void dr_json_int(struct dr_json *j, const char *key, long long v);
/* v < 0 (unknown): null. */
void dr_json_known(struct dr_json *j, const char *key, long long v);
/* Shortest exact decimal; NaN or infinite: null. */
void dr_json_num(struct dr_json *j, const char *key, double v);
void dr_json_bool(struct dr_json *j, const char *key, bool v);
/* v < 0 (unknown): null; else a boolean. */
void dr_json_known_bool(struct dr_json *j, const char *key, int v);
/* present: opens a flat object under key and returns true; else writes null and returns false. */
bool dr_json_object(struct dr_json *j, const char *key, bool present);
/* A writer of members into f, kept to be appended later to a flat object after its first member. */
void dr_json_members(struct dr_json *j, FILE *f);
/* Members a dr_json_members writer wrote, appended to the open object. */
void dr_json_raw(struct dr_json *j, const char *members, size_t len);

#endif

/* SPDX-License-Identifier: BSD-2-Clause */
/* What the host adds: memlock, hugepages, GPUs and peer memory, NCCL's view, the conclusions. */
#include "doctor.h"

#include "gpu/gpu.h"
#include "host/host.h"
#include "verbs/verbs.h"
#include "base/base.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/utsname.h>

static void memlock(struct dr_host *h)
{
	struct dr_memlock *m = &h->memlock;
	struct rlimit rl;
	bool fits, short_;

	m->limit_bytes = -1;
	if (getrlimit(RLIMIT_MEMLOCK, &rl)) {
		m->v = DR_UNKNOWN;
		snprintf(m->text, sizeof(m->text), "RLIMIT_MEMLOCK unknown");
		return;
	}
	if (rl.rlim_cur != RLIM_INFINITY)
		m->limit_bytes = (long long)rl.rlim_cur;
	if (rl.rlim_cur == RLIM_INFINITY || rb_memlock_unlimited()) {
		m->v = DR_OK;
		m->unlimited = true;
		m->capability = rl.rlim_cur != RLIM_INFINITY;
		snprintf(m->text, sizeof(m->text), "RLIMIT_MEMLOCK %s: every run can register (this host's)",
		         m->capability ? "does not bind this process (CAP_IPC_LOCK)" : "unlimited");
		return;
	}
	fits = rl.rlim_cur >= DR_DEFAULT_RUN_BYTES;
	short_ = rl.rlim_cur < DR_SWEEP_RUN_BYTES + (1u << 20);
	m->v = !fits ? DR_FAIL : short_ ? DR_WARN : DR_OK;
	snprintf(m->text, sizeof(m->text),
	         "RLIMIT_MEMLOCK %llu KiB: a default rc_write_bw run registers %u KiB a side (%s), -a up to "
	         "%u MiB (%s), --verify up to 64 MiB per QP; root or CAP_IPC_LOCK is not limited",
	         (unsigned long long)rl.rlim_cur / 1024, DR_DEFAULT_RUN_BYTES >> 10,
	         fits ? "fits" : "does not fit", DR_SWEEP_RUN_BYTES >> 20,
	         short_ ? "raise it: ulimit -l unlimited" : "fits");
}

/*
 * The default huge page size (what --hugepages uses) and its pool. A fabricated tree
 * has no /proc: there the 2 MiB pool is read, the size most hosts default to.
 */
static void hugepages(const struct dr_roots *r, struct dr_host *h)
{
	struct dr_hugepages *hp = &h->hugepages;
	size_t size = r->live ? rb_hugepage_size("/proc/meminfo") : 2u << 20;
	char rel[96];

	hp->reserved = hp->free = -1;
	if (!size) {
		snprintf(hp->text, sizeof(hp->text),
		         "huge pages: none (no Hugepagesize in /proc/meminfo); --hugepages cannot work");
		return;
	}
	hp->page_bytes = size;
	rb_hugepage_name(size, hp->name, sizeof(hp->name));
	snprintf(rel, sizeof(rel), "kernel/mm/hugepages/hugepages-%zukB/nr_hugepages", size >> 10);
	hp->reserved = rb_sysfs_long(r->sys, rel, -1);
	snprintf(rel, sizeof(rel), "kernel/mm/hugepages/hugepages-%zukB/free_hugepages", size >> 10);
	hp->free = rb_sysfs_long(r->sys, rel, -1);
	if (hp->reserved < 0) {
		snprintf(hp->text, sizeof(hp->text), "%s huge pages (the default size): not available here",
		         hp->name);
		return;
	}
	snprintf(hp->source, sizeof(hp->source), "%.180s/kernel/mm/hugepages/hugepages-%zukB", r->sys,
	         size >> 10);
	snprintf(hp->text, sizeof(hp->text),
	         "%s huge pages (the default size, which --hugepages uses): %ld reserved, %ld free "
	         "(vm.nr_hugepages)",
	         hp->name, hp->reserved, hp->free);
}

/* NVIDIA display or 3D controllers on PCI, and each one's PCIe path to every device. */
bool dr_pcie_link(const struct dr_roots *r, const char *rel, struct dr_link *out)
{
	struct rb_pcie_link l;
	char link[96];

	memset(out, 0, sizeof(*out));
	if (!rb_pcie_link_read(r->sys, rel, &l))
		return false;
	out->known = true;
	out->speed_gts = l.cur_gts;
	out->max_speed_gts = l.max_gts;
	out->width = l.cur_width;
	out->max_width = l.max_width;
	rb_pcie_link_fmt(&l, link, sizeof(link));
	out->degraded = rb_pcie_link_degraded(&l);
	snprintf(out->source, sizeof(out->source), "%.100s/%.120s", r->sys, rel);
	snprintf(out->text, sizeof(out->text), "PCIe link %s%s (%s/current_link_*)", link,
	         out->degraded
	             ? ": DEGRADED, running below what it can (the slot, a riser, the link trained down)"
	             : "",
	         out->source);
	return out->degraded;
}

static void gpus(const struct dr_roots *r, struct dr_host *h)
{
	char dir[512], rel[300], vendor[16], class[16];
	const char *peer = rb_gpu_peermem(r->sys);
	struct dirent *e;
	DIR *dp;

	snprintf(h->peermem, sizeof(h->peermem), "GPUDirect peer memory: %s%s%s", peer ? r->sys : "",
	         peer ? "/" : "", peer ? peer : "no client loaded (nvidia_peermem); dma-buf needs none");
	if (peer)
		snprintf(h->peermem_source, sizeof(h->peermem_source), "%.150s/%.100s", r->sys, peer);
	if (!rb_sysfs_path(dir, sizeof(dir), r->sys, "bus/pci/devices") || !(dp = opendir(dir)))
		return;
	while ((e = readdir(dp)) && h->ngpus < DR_MAX_GPUS) {
		struct dr_gpu *g = &h->gpu[h->ngpus];

		snprintf(rel, sizeof(rel), "bus/pci/devices/%s/vendor", e->d_name);
		if (!rb_sysfs_line(r->sys, rel, vendor, sizeof(vendor)) || strcmp(vendor, "0x10de"))
			continue;
		snprintf(rel, sizeof(rel), "bus/pci/devices/%s/class", e->d_name);
		if (!rb_sysfs_line(r->sys, rel, class, sizeof(class)) || strncmp(class, "0x03", 4))
			continue;
		snprintf(g->pci, sizeof(g->pci), "%.31s", e->d_name);
		snprintf(rel, sizeof(rel), "bus/pci/devices/%s/numa_node", e->d_name);
		g->numa_node = (int)rb_sysfs_long(r->sys, rel, -1);
		snprintf(rel, sizeof(rel), "bus/pci/devices/%s", e->d_name);
		dr_pcie_link(r, rel, &g->pcie);
		for (int d = 0; d < h->ndevs; d++)
			g->rel_kind[d] =
			    rb_pcie_relation(r->sys, g->pci, h->dev[d].name, g->rel[d], sizeof(g->rel[d]));
		h->ngpus++;
	}
	closedir(dp);
}

/*
 * What caps a usable port, after the verdict: a degraded PCIe link, ACS redirecting a
 * GPU's peer-to-peer traffic.
 */
static void degraded(struct dr_host *h)
{
	size_t n = strlen(h->conclusion);
	const char *name = NULL;

	for (int d = 0; d < h->ndevs && !name; d++)
		if (h->dev[d].pcie.degraded)
			name = h->dev[d].name;
	for (int g = 0; g < h->ngpus && !name; g++)
		if (h->gpu[g].pcie.degraded)
			name = h->gpu[g].pci;
	h->capped_pcie = name;
	for (int g = 0; g < h->ngpus && !h->capped_acs; g++)
		if (h->gpu[g].acs_redirect)
			h->capped_acs = h->gpu[g].pci;
	h->v = !h->usable ? DR_FAIL : name || h->capped_acs ? DR_WARN : DR_OK;
	if (name && n < sizeof(h->conclusion))
		n += (size_t)snprintf(
		    h->conclusion + n, sizeof(h->conclusion) - n,
		    "; but the PCIe link of %s is degraded (below its own maximum): bandwidth is capped",
		    name);
	if (h->capped_acs && n < sizeof(h->conclusion))
		snprintf(h->conclusion + n, sizeof(h->conclusion) - n,
		         "; ACS above GPU %s redirects peer-to-peer (GPUDirect through the root complex)",
		         h->capped_acs);
}

/* Some netdev under class/net matches NCCL_SOCKET_IFNAME's list. */
static bool ifname_matches(const struct dr_roots *r, const char *spec)
{
	struct rb_hca_filter f;
	char dir[PATH_MAX];
	struct dirent *e;
	bool any = false;
	DIR *dp;

	if (rb_hca_filter_parse(spec, &f) || !rb_sysfs_path(dir, sizeof(dir), r->sys, "class/net") ||
	    !(dp = opendir(dir)))
		return false;
	while (!any && (e = readdir(dp)))
		any = e->d_name[0] != '.' && rb_hca_filter_match(&f, e->d_name, 0);
	closedir(dp);
	return any;
}

static void nccl(const struct dr_roots *r, struct dr_host *h, const char *hca)
{
	struct dr_nccl *nc = &h->nccl;
	const char *dis = getenv("NCCL_IB_DISABLE"), *net = getenv("NCCL_NET"),
	           *ifn = getenv("NCCL_SOCKET_IFNAME");
	const char *plugin = getenv("NCCL_NET_PLUGIN");
	bool disabled = dis && strtoll(dis, NULL, 0) != 0; /* NCCL: any non-zero value */
	char match[200] = "";
	size_t off = 0;
	int n = 0;

	*nc = (struct dr_nccl){.ib_disable = dis,
	                       .net = net,
	                       .plugin = plugin,
	                       .hca = hca,
	                       .ifname = ifn,
	                       .ifname_match = ifn ? ifname_matches(r, ifn) : -1};
	snprintf(nc->lines[0], sizeof(nc->lines[0]), "NCCL_IB_DISABLE=%s", dis ? dis : "(unset: IB allowed)");
	snprintf(nc->lines[1], sizeof(nc->lines[1]), "NCCL_NET=%s%s%s",
	         net ? net : "(unset: IB first, then Socket)", plugin ? "; NCCL_NET_PLUGIN=" : "",
	         plugin ? plugin : "");
	for (int d = 0; d < h->ndevs; d++)
		for (int p = 0; p < h->dev[d].nports; p++)
			if (h->dev[d].port[p].usable && h->dev[d].port[p].hca_match && off < sizeof(match)) {
				off += (size_t)snprintf(match + off, sizeof(match) - off, "%s%s:%d",
				                        n ? "," : "", h->dev[d].name, h->dev[d].port[p].num);
				n++;
			}
	snprintf(nc->lines[2], sizeof(nc->lines[2]), "HCA filter %s: usable ports it admits: %s",
	         hca ? hca : "(unset: all)", n ? match : "none");
	if (!ifn)
		snprintf(nc->lines[3], sizeof(nc->lines[3]),
		         "NCCL_SOCKET_IFNAME=(unset: NCCL picks an interface)");
	else
		snprintf(nc->lines[3], sizeof(nc->lines[3]), "NCCL_SOCKET_IFNAME=%s: %s", ifn,
		         nc->ifname_match ? "matches an interface here"
		                          : "matches no interface here: NCCL finds no socket interface");
	nc->choice = DR_NCCL_SOCKET;
	if (disabled) {
		snprintf(nc->text, sizeof(nc->text), "NCCL would use Socket: NCCL_IB_DISABLE=%s", dis);
	} else if (net && strcasecmp(net, "IB")) {
		nc->choice = DR_NCCL_NET;
		snprintf(nc->text, sizeof(nc->text), "NCCL would use the %s network: NCCL_NET=%s", net, net);
	} else if (n) {
		nc->choice = DR_NCCL_IB;
		snprintf(nc->text, sizeof(nc->text), "NCCL would use NET/IB over %s%s", match,
		         plugin ? " (unless its net plugin takes over)" : "");
	} else if (net) {
		nc->choice = DR_NCCL_FAIL;
		snprintf(nc->text, sizeof(nc->text),
		         "NCCL would fail: NCCL_NET=%s forces IB and no usable port is admitted", net);
	} else if (h->usable) {
		snprintf(nc->text, sizeof(nc->text),
		         "NCCL would fall back to Socket: no usable port matches the HCA filter %s", hca);
	} else {
		snprintf(nc->text, sizeof(nc->text), "NCCL would fall back to Socket: no usable RDMA port");
	}
}

/* Live host without devices: does this kernel even have SoftRoCE? */
static void rxe_module(const struct dr_roots *r, struct dr_host *h)
{
	struct utsname u;
	char dir[400];

	h->rxe = -1;
	if (!r->live || uname(&u))
		return;
	snprintf(dir, sizeof(dir), "/lib/modules/%s/kernel/drivers/infiniband/sw/rxe", u.release);
	h->rxe = rb_sysfs_exists("/", dir + 1);
	if (h->rxe)
		snprintf(h->rxe_module, sizeof(h->rxe_module),
		         "this kernel has rdma_rxe: 'rdma link add rxe0 type rxe netdev eth0' makes a "
		         "SoftRoCE device");
	else
		snprintf(h->rxe_module, sizeof(h->rxe_module),
		         "kernel %.40s has no RDMA drivers at all (no drivers/infiniband/sw/rxe among its "
		         "modules; "
		         "tools/softroce's vm mode runs one)",
		         u.release);
}

static void conclude(const struct dr_roots *r, struct dr_host *h)
{
	for (int d = 0; d < h->ndevs; d++) {
		struct dr_dev *dev = &h->dev[d];
		bool warn = dev->pcie.degraded;
		int fail = -1, usable = 0;

		for (int l = 0; l < DR_NLAYERS && fail < 0; l++)
			if (dev->layer[l].v == DR_FAIL)
				fail = l;
		for (int l = 0; l < DR_NLAYERS; l++)
			warn |= dev->layer[l].v == DR_WARN;
		dev->failed_layer = fail;
		if (fail >= 0)
			snprintf(dev->conclusion, sizeof(dev->conclusion), "%s: %s layer: %s", dev->name,
			         dr_layer_name((enum dr_layer)fail), dev->layer[fail].evidence);
		else if (!dev->nports)
			snprintf(dev->conclusion, sizeof(dev->conclusion), "%s: no ports in sysfs",
			         dev->name);
		else {
			int best = 0;
			for (int p = dev->nports - 1; p >= 0; p--)
				if (dev->port[p].usable)
					best = p;
			snprintf(dev->conclusion, sizeof(dev->conclusion), "%s", dev->port[best].verdict);
		}
		for (int p = 0; p < dev->nports; p++)
			usable += dev->port[p].usable;
		dev->v = !usable ? DR_FAIL : warn ? DR_WARN : DR_OK;
		h->usable += usable;
	}
	if (h->ndevs == 0 && h->norphans)
		snprintf(h->conclusion, sizeof(h->conclusion), "no RDMA device: %s", h->orphan[0].why);
	else if (h->ndevs == 0)
		snprintf(h->conclusion, sizeof(h->conclusion),
		         "no RDMA device: %s/class/infiniband is %s%s%s", r->sys,
		         rb_sysfs_exists(r->sys, "class/infiniband") ? "empty"
		                                                     : "absent (no RDMA driver is loaded)",
		         h->rxe_module[0] ? "; " : "", h->rxe_module);
	else if (h->usable)
		for (int d = 0; d < h->ndevs && !h->conclusion[0]; d++)
			for (int p = 0; p < h->dev[d].nports && !h->conclusion[0]; p++)
				if (h->dev[d].port[p].usable)
					snprintf(h->conclusion, sizeof(h->conclusion),
					         "%d usable port%s; first: %s", h->usable,
					         h->usable == 1 ? "" : "s", h->dev[d].port[p].verdict);
	if (!h->conclusion[0])
		snprintf(h->conclusion, sizeof(h->conclusion), "no usable port; %.480s",
		         h->dev[0].conclusion);
	degraded(h);
}

void dr_scan_host(const struct dr_roots *r, struct dr_host *h, const char *hca)
{
	memlock(h);
	hugepages(r, h);
	gpus(r, h);
	dr_scan_evidence(r, h);
	rxe_module(r, h);
	conclude(r, h);
	nccl(r, h, hca);
}

void dr_scan(const struct dr_roots *r, struct dr_host *h, const struct rb_hca_filter *filt,
             const struct rb_addr_range *range, const char *hca)
{
	memset(h, 0, sizeof(*h));
	dr_scan_devices(r, h);
	for (int d = 0; d < h->ndevs; d++)
		dr_scan_ports(r, &h->dev[d], filt, range);
	dr_scan_host(r, h, hca);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Host evidence beyond the five layers: facts that do not stop verbs from working but
 * bound what a run can reach, each line with the file it came from.
 */
#include "doctor.h"

#include "host/host.h"
#include "base/base.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The IOMMU group's type of an RDMA device: passthrough costs nothing, translation a lookup per DMA. */
static void iommu(const struct dr_roots *r, struct dr_dev *d)
{
	char rel[160];
	const char *type = d->iommu_type;

	snprintf(rel, sizeof(rel), "class/infiniband/%s/device/iommu_group/type", d->name);
	d->iommu_source[0] = 0;
	if (d->software) {
		d->iommu_mode = DR_IOMMU_SOFTWARE;
		snprintf(d->iommu, sizeof(d->iommu), "IOMMU: not on this path (a software device)");
		return;
	}
	snprintf(d->iommu_source, sizeof(d->iommu_source), "%.100s/%.100s", r->sys, rel);
	if (!rb_sysfs_line(r->sys, rel, d->iommu_type, sizeof(d->iommu_type))) {
		d->iommu_type[0] = 0;
		d->iommu_mode = DR_IOMMU_ABSENT;
		snprintf(d->iommu, sizeof(d->iommu), "IOMMU: no group (%s absent: off, or not used)",
		         d->iommu_source);
	} else if (!strcmp(type, "identity")) {
		d->iommu_mode = DR_IOMMU_PASSTHROUGH;
		snprintf(d->iommu, sizeof(d->iommu), "IOMMU: identity (passthrough: DMA untranslated) (%s)",
		         d->iommu_source);
	} else {
		d->iommu_mode = DR_IOMMU_TRANSLATED;
		snprintf(
		    d->iommu, sizeof(d->iommu),
		    "IOMMU: %.31s (translated: every DMA is looked up; iommu=pt avoids it) (%.60s/%.90s)",
		    type, r->sys, rel);
	}
}

/* The priorities whose file under dir ("class/net/X/ecn/roce_np/enable") holds 1, as "3,4"; their mask. */
static unsigned prios(const struct dr_roots *r, const char *dir, char *out, size_t len)
{
	char rel[200];
	unsigned mask = 0;
	size_t off = 0;

	out[0] = 0;
	for (int p = 0; p < 8; p++) {
		snprintf(rel, sizeof(rel), "%s/%d", dir, p);
		if (rb_sysfs_long(r->sys, rel, 0) == 1 && off < len) {
			off += (size_t)snprintf(out + off, len - off, "%s%d", mask ? "," : "", p);
			mask |= 1u << p;
		}
	}
	return mask;
}

/* RoCE ECN as mlx5 shows it under the netdev: the notification point (receiver) and reaction point (sender).
 */
static void ecn(const struct dr_roots *r, struct dr_dev *d)
{
	const char *nd = d->port[0].chosen_gid.ndev[0] ? d->port[0].chosen_gid.ndev : d->netdev;
	char np[32], rp[32], dir[160];

	d->ecn[0] = 0;
	if (!d->nports || !nd[0])
		return;
	snprintf(dir, sizeof(dir), "class/net/%s/ecn", nd);
	if (!rb_sysfs_exists(r->sys, dir))
		return;
	snprintf(dir, sizeof(dir), "class/net/%s/ecn/roce_np/enable", nd);
	d->ecn_np = prios(r, dir, np, sizeof(np));
	snprintf(dir, sizeof(dir), "class/net/%s/ecn/roce_rp/enable", nd);
	d->ecn_rp = prios(r, dir, rp, sizeof(rp));
	snprintf(d->ecn_ndev, sizeof(d->ecn_ndev), "%s", nd);
	snprintf(d->ecn_source, sizeof(d->ecn_source), "%.100s/class/net/%s/ecn", r->sys, nd);
	snprintf(d->ecn, sizeof(d->ecn),
	         "RoCE ECN on %s: notification point on priorities %s, reaction point on %s (%s)", nd,
	         np[0] ? np : "none", rp[0] ? rp : "none", d->ecn_source);
}

/* ACS on the bridges above a GPU: redirected peer-to-peer crosses the root complex. */
static void acs(const struct dr_roots *r, struct dr_gpu *g)
{
	char *first = g->acs_nearest;
	unsigned ctl = 0;
	int n = rb_acs_redirecting(r->sys, g->pci, first, sizeof(g->acs_nearest), &ctl);

	g->acs_redirect = n > 0;
	g->acs_bridges = n;
	g->acs_ctl = n > 0 ? ctl : 0;
	if (n <= 0)
		first[0] = 0;
	if (n > 0)
		snprintf(g->acs, sizeof(g->acs),
		         "ACS: %d bridge%s above redirect peer-to-peer, the nearest %s (ACSCtl 0x%04x%s%s): "
		         "GPUDirect "
		         "traffic to a NIC below the same switch goes through the root complex (NCCL: "
		         "disable ACS)",
		         n, n == 1 ? "" : "s", first, ctl, ctl & RB_ACS_REQ_REDIR ? ", request redirect" : "",
		         ctl & RB_ACS_CMPL_REDIR ? ", completion redirect" : "");
	else if (n < 0)
		snprintf(g->acs, sizeof(g->acs),
		         "ACS: unknown (the bridges' config space past its header needs root: run as root)");
	else
		snprintf(g->acs, sizeof(g->acs), "ACS: no bridge above redirects peer-to-peer");
}

/* The CPU frequency governors: anything but performance lets a core idle down between messages. */
static void governor(const struct dr_roots *r, struct dr_host *h)
{
	struct dr_governor *g = &h->governor;
	char dir[512], rel[128], gov[32];
	struct dirent *e;
	DIR *dp;

	g->v = DR_UNKNOWN;
	snprintf(g->source, sizeof(g->source), "%.100s/devices/system/cpu", r->sys);
	if (!rb_sysfs_path(dir, sizeof(dir), r->sys, "devices/system/cpu") || !(dp = opendir(dir))) {
		snprintf(g->text, sizeof(g->text),
		         "CPU frequency governor: unknown (no %.100s/devices/system/cpu)", r->sys);
		return;
	}
	while ((e = readdir(dp))) {
		if (strncmp(e->d_name, "cpu", 3) || !strchr("0123456789", e->d_name[3]) || !e->d_name[3])
			continue;
		snprintf(rel, sizeof(rel), "devices/system/cpu/%.40s/cpufreq/scaling_governor", e->d_name);
		if (!rb_sysfs_line(r->sys, rel, gov, sizeof(gov)))
			continue;
		g->cpus++;
		if (!strcmp(gov, "performance"))
			g->performance++;
		else if (!g->other[0])
			snprintf(g->other, sizeof(g->other), "%s", gov);
	}
	closedir(dp);
	if (!g->cpus) {
		snprintf(
		    g->text, sizeof(g->text),
		    "CPU frequency governor: none exposed (a VM, or cpufreq off) (%.100s/devices/system/cpu)",
		    r->sys);
	} else if (g->performance == g->cpus) {
		g->v = DR_OK;
		snprintf(g->text, sizeof(g->text), "CPU frequency governor: performance on all %d CPUs",
		         g->cpus);
	} else {
		g->v = DR_WARN;
		snprintf(
		    g->text, sizeof(g->text),
		    "CPU frequency governor: %s on %d of %d CPUs: latency moves with the clock (cpupower "
		    "frequency-set -g performance)",
		    g->other, g->cpus - g->performance, g->cpus);
	}
}

/*
 * Automatic NUMA balancing unmaps a task's pages now and then to learn which node uses
 * them: the next touch takes a hinting fault, inside a timed loop as anywhere. Only this
 * host's own setting is read (a copied tree has no /proc).
 */
static void numa_balancing(const struct dr_roots *r, struct dr_host *h)
{
	struct dr_numa_balancing *n = &h->numa_balancing;
	char v[16];

	n->v = DR_UNKNOWN;
	n->mode = -1;
	snprintf(n->source, sizeof(n->source), "/proc/sys/kernel/numa_balancing");
	if (!r->live || !rb_sysfs_line("/proc", "sys/kernel/numa_balancing", v, sizeof(v))) {
		snprintf(n->text, sizeof(n->text), "automatic NUMA balancing: unknown (%s)",
		         r->live ? "no /proc/sys/kernel/numa_balancing" : "not this host's tree");
		return;
	}
	n->mode = atoi(v);
	n->v = n->mode ? DR_WARN : DR_OK;
	if (!n->mode)
		snprintf(n->text, sizeof(n->text), "automatic NUMA balancing: off (kernel.numa_balancing=0)");
	else
		snprintf(
		    n->text, sizeof(n->text),
		    "automatic NUMA balancing: on (kernel.numa_balancing=%d): the kernel unmaps pages now "
		    "and then to see which node uses them, and the hinting faults land inside timed loops "
		    "(sysctl kernel.numa_balancing=0 while benchmarking)",
		    n->mode);
}

void dr_scan_evidence(const struct dr_roots *r, struct dr_host *h)
{
	for (int d = 0; d < h->ndevs; d++) {
		iommu(r, &h->dev[d]);
		ecn(r, &h->dev[d]);
	}
	for (int g = 0; g < h->ngpus; g++)
		acs(r, &h->gpu[g]);
	governor(r, h);
	numa_balancing(r, h);
}

/* SPDX-License-Identifier: BSD-2-Clause */
#include "pcie.h"

#include "base/base.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *rb_pcie_rel_name(enum rb_pcie_rel r)
{
	switch (r) {
	case RB_PCIE_NOT_PCI: return "no PCIe path (the RDMA device is not a PCI function)";
	case RB_PCIE_SWITCH: return "same PCIe switch (PIX/PXB)";
	case RB_PCIE_HOST_BRIDGE: return "same host bridge (PHB)";
	case RB_PCIE_NODE: return "different host bridges on one NUMA node (NODE)";
	case RB_PCIE_ROOTS: return "different host bridges, NUMA nodes unknown (NODE or SYS)";
	case RB_PCIE_SOCKETS: return "across sockets (SYS)";
	case RB_PCIE_UNKNOWN: break;
	}
	return "unknown";
}

/* The NUMA node in a device directory's numa_node file, -1 when unknown. */
static int numa_node_of(const char *devpath)
{
	return (int)rb_sysfs_long(devpath, "numa_node", -1);
}

/* The PCI root ("pci0000:00": a domain and a bus) and the bridge chain below it, as one path tail. */
static const char *pci_tail(const char *path)
{
	for (const char *p = strstr(path, "/pci"); p; p = strstr(p + 1, "/pci"))
		if (strspn(p + 4, "0123456789abcdef") == 4 && p[8] == ':')
			return p + 1;
	return NULL;
}

/* How many leading path components a and b share. */
static unsigned common_components(const char *a, const char *b)
{
	unsigned n = 0;

	for (;;) {
		size_t la = strcspn(a, "/"), lb = strcspn(b, "/");
		if (la != lb || strncmp(a, b, la) || !la)
			return n;
		n++;
		a += la;
		b += lb;
		if (*a != '/' || *b != '/')
			return n;
		a++;
		b++;
	}
}

enum rb_pcie_rel rb_pcie_relation(const char *sysfs, const char *bdf, const char *ibdev, char *desc,
                                  size_t len)
{
	char rel[PATH_MAX], lower[32];
	char *gpu, *nic;
	const char *gt, *nt;
	enum rb_pcie_rel r = RB_PCIE_UNKNOWN;
	unsigned common;
	int gnode, nnode;

	snprintf(lower, sizeof(lower), "%s", bdf);
	for (char *c = lower; *c; c++)
		*c = (char)tolower((unsigned char)*c);
	snprintf(rel, sizeof(rel), "bus/pci/devices/%s", lower);
	gpu = rb_sysfs_real(sysfs, rel);
	snprintf(rel, sizeof(rel), "class/infiniband/%s/device", ibdev);
	nic = rb_sysfs_real(sysfs, rel);
	if (!nic || !pci_tail(nic)) {
		snprintf(desc, len,
		         "%s has no PCI device in %s/class/infiniband/%s/device: GPU data to it "
		         "crosses host memory",
		         ibdev, sysfs, ibdev);
		r = RB_PCIE_NOT_PCI;
		goto out;
	}
	if (!gpu || !(gt = pci_tail(gpu))) {
		snprintf(desc, len, "GPU %s is not in %s/bus/pci/devices", lower, sysfs);
		goto out;
	}
	nt = pci_tail(nic);
	gnode = numa_node_of(gpu);
	nnode = numa_node_of(nic);
	common = common_components(gt, nt);
	if (common >= 2)
		r = RB_PCIE_SWITCH;
	else if (common == 1)
		r = RB_PCIE_HOST_BRIDGE;
	else if (gnode < 0 || nnode < 0)
		r = RB_PCIE_ROOTS;
	else if (gnode != nnode)
		r = RB_PCIE_SOCKETS;
	else
		r = RB_PCIE_NODE;
	snprintf(desc, len, "%s: GPU %s (NUMA %d) and %s %s (NUMA %d)", rb_pcie_rel_name(r), gt, gnode, ibdev,
	         nt, nnode);
out:
	free(gpu);
	free(nic);
	return r;
}

double rb_pcie_link_gbps(const char *sysfs, const char *ibdev, char *desc, size_t len)
{
	char rel[256], speed[64];
	double gts, enc;
	long width;

	desc[0] = 0;
	snprintf(rel, sizeof(rel), "class/infiniband/%s/device/current_link_speed", ibdev);
	if (!rb_sysfs_line(sysfs, rel, speed, sizeof(speed)))
		return 0;
	snprintf(rel, sizeof(rel), "class/infiniband/%s/device", ibdev);
	width = rb_sysfs_long(sysfs, strcat(rel, "/current_link_width"), 0);
	gts = strtod(speed, NULL); /* "16.0 GT/s PCIe"; "Unknown" reads as 0 */
	if (!(gts > 0) || width <= 0 || width > 32)
		return 0;
	enc = gts <= 5.0 ? 0.8 : gts < 64.0 ? 128.0 / 130.0 : 236.0 / 256.0; /* a FLIT's TLP bytes */
	snprintf(desc, len, "x%ld at %.1f GT/s", width, gts);
	return gts * (double)width * enc;
}

/* A sysfs link speed ("16.0 GT/s PCIe", "Unknown") under dir as GT/s; 0 unknown. */
static double gts_of(const char *sysfs, const char *dir, const char *file)
{
	char rel[320], v[64];

	snprintf(rel, sizeof(rel), "%s/%s", dir, file);
	return rb_sysfs_line(sysfs, rel, v, sizeof(v)) ? strtod(v, NULL) : 0;
}

static long width_of(const char *sysfs, const char *dir, const char *file)
{
	char rel[320];
	long w;

	snprintf(rel, sizeof(rel), "%s/%s", dir, file);
	w = rb_sysfs_long(sysfs, rel, 0);
	return w > 0 && w <= 32 ? w : 0;
}

bool rb_pcie_link_read(const char *sysfs, const char *rel, struct rb_pcie_link *l)
{
	l->cur_gts = gts_of(sysfs, rel, "current_link_speed");
	l->max_gts = gts_of(sysfs, rel, "max_link_speed");
	l->cur_width = width_of(sysfs, rel, "current_link_width");
	l->max_width = width_of(sysfs, rel, "max_link_width");
	return l->cur_gts > 0 && l->cur_width > 0;
}

bool rb_pcie_link_degraded(const struct rb_pcie_link *l)
{
	return (l->max_gts > 0 && l->cur_gts > 0 && l->cur_gts < l->max_gts) ||
	       (l->max_width > 0 && l->cur_width > 0 && l->cur_width < l->max_width);
}

void rb_pcie_link_fmt(const struct rb_pcie_link *l, char *buf, size_t len)
{
	int n = snprintf(buf, len, "x%ld at %.1f GT/s", l->cur_width, l->cur_gts);

	if (n > 0 && (size_t)n < len && l->max_gts > 0 && l->max_width > 0)
		snprintf(buf + n, len - (size_t)n, " of x%ld at %.1f GT/s", l->max_width, l->max_gts);
}

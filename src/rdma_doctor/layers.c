/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The five layers under every RDMA device (doctor.h), and the PCI functions that
 * should be RDMA devices and are not.
 */
#include "doctor.h"

#include "base/base.h"

#include <dirent.h>
#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <infiniband/verbs.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MELLANOX "0x15b3"

/* The layer's verdict, the file or directory it read (src; "" none) and its sentence. */
static bool set(struct dr_check *c, enum dr_verdict v, const char *src, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static bool set(struct dr_check *c, enum dr_verdict v, const char *src, const char *fmt, ...)
{
	va_list ap;

	c->v = v;
	snprintf(c->source, sizeof(c->source), "%s", src);
	va_start(ap, fmt);
	vsnprintf(c->evidence, sizeof(c->evidence), fmt, ap);
	va_end(ap);
	return v != DR_FAIL;
}

/* "class/infiniband/DEV/REST" */
static const char *devrel(char *buf, size_t len, const char *dev, const char *rest)
{
	snprintf(buf, len, "class/infiniband/%s/%s", dev, rest);
	return buf;
}

/* "ROOT/REL" into buf: a check's source ("" when it does not fit). */
static const char *at(char *buf, size_t len, const char *root, const char *rel)
{
	if (!rb_sysfs_path(buf, len, root, rel))
		buf[0] = 0;
	return buf;
}

/* A path kept as a fact, whole or not at all. */
static void keep(char *dst, size_t len, const char *path)
{
	size_t n = strlen(path);

	if (n >= len)
		n = 0;
	memcpy(dst, path, n);
	dst[n] = 0;
}

/* Whether path, below the (resolved) sysfs root, runs through a PCI root "pciDDDD:BB". */
static bool under_pci(const char *root, const char *path)
{
	char *r = realpath(root, NULL);
	size_t skip = r && !strncmp(path, r, strlen(r)) ? strlen(r) : 0;
	const char *p = path + skip;

	free(r);
	for (p = strstr(p, "/pci"); p; p = strstr(p + 1, "/pci"))
		if (strspn(p + 4, "0123456789abcdef") == 4 && p[8] == ':')
			return true;
	return false;
}

static bool layer_pci(const struct dr_roots *r, struct dr_dev *d)
{
	char rel[256], src[DR_SOURCE], *vendor = d->vendor_id, *device = d->device_id;
	char *real = rb_sysfs_real(r->sys, devrel(rel, sizeof(rel), d->name, "device"));
	const char *slash = real ? strrchr(real, '/') : NULL;

	at(src, sizeof(src), r->sys, rel);
	if (real && slash)
		snprintf(d->pci, sizeof(d->pci), "%.31s", slash + 1);
	if (real && slash && under_pci(r->sys, real)) {
		if (!rb_sysfs_line(r->sys, devrel(rel, sizeof(rel), d->name, "device/vendor"), vendor,
		                   sizeof(d->vendor_id)))
			vendor[0] = 0;
		if (!rb_sysfs_line(r->sys, devrel(rel, sizeof(rel), d->name, "device/device"), device,
		                   sizeof(d->device_id)))
			device[0] = 0;
		d->numa_node =
		    (int)rb_sysfs_long(r->sys, devrel(rel, sizeof(rel), d->name, "device/numa_node"), -1);
		set(&d->layer[DR_PCI], DR_OK, src, "PCI %s (vendor %s, device %s)", d->pci,
		    vendor[0] ? vendor : "?", device[0] ? device : "?");
		dr_pcie_link(r, devrel(rel, sizeof(rel), d->name, "device"), &d->pcie);
	} else if (rb_sysfs_line(r->sys, devrel(rel, sizeof(rel), d->name, "parent"), d->netdev,
	                         sizeof(d->netdev)) &&
	           d->netdev[0]) {
		d->software = true;
		d->pci[0] = '\0';
		set(&d->layer[DR_PCI], DR_OK, at(src, sizeof(src), r->sys, rel),
		    "software RDMA device over netdev %s (%s/%s): no PCI function", d->netdev, r->sys, rel);
	} else if (real && slash) {
		set(&d->layer[DR_PCI], DR_OK, src, "device %s, not on PCI (a platform or auxiliary device)",
		    d->pci);
	} else {
		set(&d->layer[DR_PCI], DR_FAIL,
		    at(src, sizeof(src), r->sys, devrel(rel, sizeof(rel), d->name, "")),
		    "%s/class/infiniband/%s has neither a device link nor a parent netdev", r->sys, d->name);
	}
	free(real);
	return d->layer[DR_PCI].v != DR_FAIL;
}

static bool layer_driver(const struct dr_roots *r, struct dr_dev *d)
{
	char rel[256], src[DR_SOURCE];

	if (d->software) {
		const char *mod = !strncmp(d->name, "siw", 3) ? "siw" : "rdma_rxe";
		snprintf(d->driver, sizeof(d->driver), "%s", mod);
		snprintf(rel, sizeof(rel), "module/%s", mod);
		if (rb_sysfs_exists(r->sys, rel))
			return set(&d->layer[DR_DRIVER], DR_OK, at(src, sizeof(src), r->sys, rel),
			           "kernel module %s loaded (%s/%s)", mod, r->sys, rel);
		/* A copied tree may lack /sys/module: the device entry itself says the driver ran. */
		return set(&d->layer[DR_DRIVER], DR_WARN, at(src, sizeof(src), r->sys, rel),
		           "%s/%s is absent; the device entry implies %s", r->sys, rel, mod);
	}
	if (!rb_sysfs_link_name(r->sys, devrel(rel, sizeof(rel), d->name, "device/driver"), d->driver,
	                        sizeof(d->driver)))
		return set(&d->layer[DR_DRIVER], DR_FAIL, at(src, sizeof(src), r->sys, rel),
		           "no kernel driver bound to PCI %s (%s/%s is absent)", d->pci, r->sys, rel);
	return set(&d->layer[DR_DRIVER], DR_OK, at(src, sizeof(src), r->sys, rel),
	           "kernel driver %s bound to PCI %s", d->driver, d->pci);
}

/* The uverbs node of device name: "uverbs3" into out; false when ib_uverbs shows none. */
static bool find_uverbs(const struct dr_roots *r, const char *name, char *out, size_t len)
{
	char dir[PATH_MAX], rel[300], ibdev[64];
	struct dirent *e;
	bool found = false;
	DIR *dp;

	if (!rb_sysfs_path(dir, sizeof(dir), r->sys, "class/infiniband_verbs") || !(dp = opendir(dir)))
		return false;
	while (!found && (e = readdir(dp))) {
		if (strncmp(e->d_name, "uverbs", 6))
			continue;
		snprintf(rel, sizeof(rel), "class/infiniband_verbs/%s/ibdev", e->d_name);
		if (rb_sysfs_line(r->sys, rel, ibdev, sizeof(ibdev)) && !strcmp(ibdev, name)) {
			snprintf(out, len, "%.31s", e->d_name);
			found = true;
		}
	}
	closedir(dp);
	return found;
}

static bool layer_uverbs(const struct dr_roots *r, struct dr_dev *d, char *node, size_t len)
{
	char uv[32], rel[64], path[PATH_MAX], src[DR_SOURCE];
	struct stat st;
	const char *cm;

	if (!find_uverbs(r, d->name, uv, sizeof(uv)))
		return set(&d->layer[DR_UVERBS], DR_FAIL,
		           at(src, sizeof(src), r->sys, "class/infiniband_verbs"),
		           "no uverbs device for %s in %s/class/infiniband_verbs: ib_uverbs is not loaded "
		           "(modprobe ib_uverbs)",
		           d->name, r->sys);
	if (!rb_sysfs_path(path, sizeof(path), r->dev, "infiniband/uverbs0"))
		return set(&d->layer[DR_UVERBS], DR_FAIL, "", "--dev-root %s is too long a path", r->dev);
	if (!rb_sysfs_exists(r->dev, "infiniband"))
		return set(
		    &d->layer[DR_UVERBS], DR_FAIL, at(src, sizeof(src), r->dev, "infiniband"),
		    "sysfs shows %s but %s/infiniband is absent: the verbs devices are not exposed to this "
		    "container (docker run --device=/dev/infiniband/%s, or the RDMA device plugin)",
		    d->name, r->dev, uv);
	snprintf(rel, sizeof(rel), "infiniband/%s", uv);
	rb_sysfs_path(path, sizeof(path), r->dev, rel);
	snprintf(node, len, "%s", path);
	if (stat(path, &st))
		return set(
		    &d->layer[DR_UVERBS], DR_FAIL, path,
		    "%s is missing although sysfs has %s for %s: the device node was not created or not "
		    "passed into this container",
		    path, uv, d->name);
	/* In a copied tree any file stands for the node; on the live /dev it must be one. */
	if (r->live && !S_ISCHR(st.st_mode))
		return set(&d->layer[DR_UVERBS], DR_FAIL, path, "%s is not a character device", path);
	keep(d->uverbs, sizeof(d->uverbs), path);
	d->rdma_cm = rb_sysfs_exists(r->dev, "infiniband/rdma_cm");
	cm = d->rdma_cm ? "; rdma_cm present"
	                : "; no infiniband/rdma_cm (rdma_cm connections need "
	                  "modprobe rdma_ucm)";
	return set(&d->layer[DR_UVERBS], DR_OK, path, "%s for %s%s", path, d->name, cm);
}

/* rdma-core's provider for a kernel driver. */
static const char *provider_of(const char *driver)
{
	static const struct {
		const char *driver, *provider;
	} map[] = {
	    /* the PCI function's driver (the RDMA driver is an auxiliary one on top of it) */
	    {"mlx5_core", "mlx5"},    {"mlx4_core", "mlx4"},  {"rdma_rxe", "rxe"},
	    {"siw", "siw"},           {"ice", "irdma"},       {"i40e", "irdma"},
	    {"irdma", "irdma"},       {"bnxt_en", "bnxt_re"}, {"qede", "qedr"},
	    {"efa", "efa"},           {"hns3", "hns"},        {"erdma", "erdma"},
	    {"mana", "mana"},         {"cxgb4", "cxgb4"},     {"hfi1", "hfi1verbs"},
	    {"be2net", "ocrdma"},     {"ocrdma", "ocrdma"},   {"vmw_pvrdma", "vmw_pvrdma"},
	    {"ib_qib", "ipathverbs"},
	};

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (!strcmp(map[i].driver, driver))
			return map[i].provider;
	return NULL;
}

/* libibverbs lists the device: the provider claimed it. */
static bool verbs_lists(const char *name)
{
	int n = 0;
	struct ibv_device **l = ibv_get_device_list(&n);
	bool found = false;

	for (int i = 0; l && i < n; i++)
		found |= !strcmp(ibv_get_device_name(l[i]), name);
	if (l)
		ibv_free_device_list(l);
	return found;
}

/*
 * On the live host libibverbs decides (providers may live elsewhere: MOFED paths in
 * /etc/libibverbs.d, static builds); the file is evidence. In a given tree the file
 * is all there is, and a driver rdma_doctor cannot map leaves the layer unverified.
 */
static bool layer_provider(const struct dr_roots *r, struct dr_dev *d)
{
	const char *p = provider_of(d->driver);
	char pattern[PATH_MAX], found[PATH_MAX] = "";
	const char *src;
	glob_t g;

	if (p) {
		snprintf(pattern, sizeof(pattern), "%s/lib%s-rdmav*.so", r->prov, p);
		if (glob(pattern, 0, NULL, &g) == 0) {
			snprintf(found, sizeof(found), "%s", g.gl_pathv[0]);
			globfree(&g);
		}
	} else {
		snprintf(pattern, sizeof(pattern), "(no provider known to rdma_doctor for driver %s)",
		         d->driver);
	}
	keep(d->provider_lib, sizeof(d->provider_lib), found);
	src = found[0] ? found : p ? pattern : r->prov;
	if (r->live && verbs_lists(d->name))
		return set(&d->layer[DR_PROVIDER], DR_OK, src, "libibverbs lists %s (%s)", d->name,
		           found[0]
		               ? found
		               : "its provider is not in the provider directory: MOFED or a static build");
	if (r->live && found[0])
		return set(&d->layer[DR_PROVIDER], DR_FAIL, src,
		           "%s is installed but libibverbs does not list %s (a provider and kernel that do "
		           "not match; "
		           "IBV_SHOW_WARNINGS=1 ibv_devices says why)",
		           found, d->name);
	if (r->live)
		return set(
		    &d->layer[DR_PROVIDER], DR_FAIL, src,
		    "no userspace provider claims %s: %s is missing (install rdma-core's ibverbs-providers)",
		    d->name, pattern);
	if (!p)
		return set(&d->layer[DR_PROVIDER], DR_WARN, src, "unverified: %s", pattern);
	if (!found[0])
		return set(&d->layer[DR_PROVIDER], DR_FAIL, src,
		           "no userspace provider for %s (driver %s): %s is missing (install rdma-core's "
		           "ibverbs-providers)",
		           d->name, d->driver, pattern);
	return set(&d->layer[DR_PROVIDER], DR_OK, src, "%s", found);
}

static bool layer_access(const struct dr_roots *r, struct dr_dev *d, const char *node)
{
	struct ibv_device **l;
	int n = 0, err = 0;
	bool opened = false;

	if (!r->live)
		return access(node, R_OK | W_OK) == 0
		           ? set(&d->layer[DR_ACCESS], DR_OK, node, "%s is readable and writable", node)
		           : set(&d->layer[DR_ACCESS], DR_FAIL, node, "%s: %s", node, strerror(errno));
	l = ibv_get_device_list(&n);
	for (int i = 0; l && i < n && !opened; i++) {
		struct ibv_context *ctx;
		if (strcmp(ibv_get_device_name(l[i]), d->name))
			continue;
		errno = 0;
		ctx = ibv_open_device(l[i]);
		err = errno;
		opened = ctx != NULL;
		if (ctx)
			ibv_close_device(ctx);
	}
	if (l)
		ibv_free_device_list(l);
	if (opened)
		return set(&d->layer[DR_ACCESS], DR_OK, node, "ibv_open_device(%s) works (%s)", d->name,
		           node);
	return set(&d->layer[DR_ACCESS], DR_FAIL, node,
	           "ibv_open_device(%s) failed: %s (%s: is this user allowed, e.g. the rdma group; in a "
	           "container, does the device cgroup allow it?)",
	           d->name, strerror(err ? err : EACCES), node);
}

static void check_device(const struct dr_roots *r, struct dr_dev *d)
{
	char node[PATH_MAX] = "";
	bool ok;

	d->numa_node = -1;
	d->rdma_cm = -1;
	for (int l = 0; l < DR_NLAYERS; l++)
		set(&d->layer[l], DR_UNCHECKED, "", "not checked: a layer below failed");
	ok = layer_pci(r, d) && layer_driver(r, d) && layer_uverbs(r, d, node, sizeof(node)) &&
	     layer_provider(r, d) && layer_access(r, d, node);
	(void)ok;
}

/* Another function of the same PCI slot (0000:3b:00.x) has an RDMA device. */
static bool sibling_has_rdma(const struct dr_roots *r, const char *bdf)
{
	char rel[300];
	size_t slot = strcspn(bdf, ".");

	for (int fn = 0; fn < 8; fn++) {
		snprintf(rel, sizeof(rel), "bus/pci/devices/%.*s.%d/infiniband", (int)(slot < 64 ? slot : 64),
		         bdf, fn);
		if (rb_sysfs_exists(r->sys, rel))
			return true;
	}
	return false;
}

/* A PCI function whose vendor makes RDMA NICs, or whose class is InfiniBand, with no RDMA device. */
static void orphan(const struct dr_roots *r, struct dr_host *h, const char *bdf)
{
	char rel[300], vendor[16] = "", class[16] = "", driver[64] = "";
	struct dr_orphan *o;

	snprintf(rel, sizeof(rel), "bus/pci/devices/%s/vendor", bdf);
	rb_sysfs_line(r->sys, rel, vendor, sizeof(vendor));
	snprintf(rel, sizeof(rel), "bus/pci/devices/%s/class", bdf);
	rb_sysfs_line(r->sys, rel, class, sizeof(class));
	if (strcmp(vendor, MELLANOX) && strncmp(class, "0x0207", 6))
		return;
	if (strncmp(class, "0x02", 4)) /* a Mellanox bridge or DPU function, not a NIC */
		return;
	snprintf(rel, sizeof(rel), "bus/pci/devices/%s/infiniband", bdf);
	if (rb_sysfs_exists(r->sys, rel) || h->norphans >= DR_MAX_DEVS)
		return;
	snprintf(rel, sizeof(rel), "bus/pci/devices/%s/driver", bdf);
	rb_sysfs_link_name(r->sys, rel, driver, sizeof(driver));
	/* Passed to a VM, or the second port of a bond whose RDMA device lives on the first. */
	if (!strcmp(driver, "vfio-pci") || !strcmp(driver, "pci-stub") || sibling_has_rdma(r, bdf))
		return;
	o = &h->orphan[h->norphans++];
	snprintf(o->pci, sizeof(o->pci), "%.31s", bdf);
	snprintf(o->vendor, sizeof(o->vendor), "%s", vendor);
	snprintf(o->class, sizeof(o->class), "%s", class);
	o->reason = !driver[0]                                                     ? DR_ORPHAN_NO_DRIVER
	            : !strcmp(driver, "mlx5_core") || !strcmp(driver, "mlx4_core") ? DR_ORPHAN_NO_IB_DRIVER
	                                                                           : DR_ORPHAN_NOT_RDMA;
	o->module = o->reason == DR_ORPHAN_NO_IB_DRIVER
	                ? (!strcmp(driver, "mlx4_core") ? "mlx4_ib" : "mlx5_ib")
	            : o->reason == DR_ORPHAN_NO_DRIVER && !strcmp(vendor, MELLANOX) ? "mlx5_core"
	                                                                            : NULL;
	if (o->reason == DR_ORPHAN_NO_DRIVER)
		snprintf(o->why, sizeof(o->why),
		         "PCI %.31s (vendor %s, class %s) has no kernel driver bound "
		         "(modprobe mlx5_core, or the NIC vendor's driver)",
		         bdf, vendor, class);
	else if (o->reason == DR_ORPHAN_NO_IB_DRIVER)
		snprintf(o->why, sizeof(o->why),
		         "PCI %.31s is bound to %s but has no RDMA device (modprobe %s)", bdf, driver,
		         o->module);
	else
		snprintf(o->why, sizeof(o->why), "PCI %.31s is bound to %s, which makes no RDMA device of it",
		         bdf, driver);
	snprintf(o->driver, sizeof(o->driver), "%s", driver);
}

static void scan_orphans(const struct dr_roots *r, struct dr_host *h)
{
	char dir[PATH_MAX];
	struct dirent *e;
	DIR *dp;

	if (!rb_sysfs_path(dir, sizeof(dir), r->sys, "bus/pci/devices") || !(dp = opendir(dir)))
		return;
	while ((e = readdir(dp)))
		if (e->d_name[0] != '.')
			orphan(r, h, e->d_name);
	closedir(dp);
}

static int by_name(const void *a, const void *b)
{
	return strverscmp(*(char *const *)a, *(char *const *)b);
}

static bool printable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x21 || (unsigned char)*s > 0x7e)
			return false;
	return true;
}

void dr_scan_devices(const struct dr_roots *r, struct dr_host *h)
{
	char dir[PATH_MAX], *names[1024];
	struct dirent *e;
	unsigned n = 0;
	DIR *dp;

	if (rb_sysfs_path(dir, sizeof(dir), r->sys, "class/infiniband") && (dp = opendir(dir))) {
		while ((e = readdir(dp)) && n < sizeof(names) / sizeof(names[0]))
			if (e->d_name[0] != '.' && (names[n] = strdup(e->d_name)))
				n++;
		closedir(dp);
	}
	/* mlx5_2 before mlx5_10; the first DR_MAX_DEVS are examined, the rest counted. */
	qsort(names, n, sizeof(names[0]), by_name);
	for (unsigned i = 0; i < n; i++) {
		if (h->ndevs < DR_MAX_DEVS && printable(names[i]) &&
		    strlen(names[i]) < sizeof(h->dev[0].name))
			snprintf(h->dev[h->ndevs++].name, sizeof(h->dev[0].name), "%s", names[i]);
		else
			h->omitted++;
		free(names[i]);
	}
	for (int i = 0; i < h->ndevs; i++)
		check_device(r, &h->dev[i]);
	scan_orphans(r, h);
}

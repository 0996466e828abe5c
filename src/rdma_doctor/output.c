/* SPDX-License-Identifier: BSD-2-Clause */
/* The findings as text (for people) and as JSON (for machines). */
#include "doctor.h"

#include "report/report.h"

#include <stdio.h>

static const char *const layer_names[DR_NLAYERS] = {"pci", "driver", "uverbs", "provider", "access"};
static const char *const verdict_names[] = {"ok", "FAIL", "warn", "-"};

const char *dr_layer_name(enum dr_layer l)
{
	return layer_names[l];
}

static void text_port(FILE *f, const struct dr_port *p)
{
	fprintf(f, "  port %d: %s (%s), %s, %s, LID 0x%lx", p->num, p->state, p->phys, p->link_layer, p->rate,
	        p->lid);
	if (p->active_mtu)
		fprintf(f, ", active MTU %d", p->active_mtu);
	if (p->netdev_mtu)
		fprintf(f, ", netdev MTU %d", p->netdev_mtu);
	fprintf(f, "\n    GID table (%d non-zero%s):\n", p->ngids,
	        p->shown < p->ngids ? ", the first shown" : "");
	for (int g = 0; g < p->shown; g++)
		fprintf(f, "    %c %3d  %-40s %-12s %s\n", p->gids[g].index == p->chosen ? '*' : ' ',
		        p->gids[g].index, p->gids[g].gid, p->gids[g].type, p->gids[g].ndev);
	fprintf(f, "    chosen GID: %s\n", p->why);
	fprintf(f, "    => %s\n", p->verdict);
}

void dr_print_text(FILE *f, const struct dr_host *h, const struct dr_roots *r)
{
	fprintf(f, "rdma_doctor: sysfs %s, devices %s, providers %s%s\n\n", r->sys, r->dev, r->prov,
	        r->live ? "" : " (a given tree: libibverbs not asked)");
	for (int d = 0; d < h->ndevs; d++) {
		const struct dr_dev *dev = &h->dev[d];

		fprintf(f, "%s%s\n", dev->name, dev->software ? " (software)" : "");
		for (int l = 0; l < DR_NLAYERS; l++)
			fprintf(f, "  %-9s %-5s %s\n", layer_names[l], verdict_names[dev->layer[l].v],
			        dev->layer[l].evidence);
		if (dev->pcie[0])
			fprintf(f, "  %s\n", dev->pcie);
		if (dev->iommu[0])
			fprintf(f, "  %s\n", dev->iommu);
		if (dev->ecn[0])
			fprintf(f, "  %s\n", dev->ecn);
		if (dev->numa_node >= 0)
			fprintf(f, "  NUMA node %d\n", dev->numa_node);
		if (dev->dmabuf >= 0)
			fprintf(f, "  dma-buf registration (GPU memory without peermem): %s (%s)\n",
			        dev->dmabuf ? "supported" : "not supported", dev->dmabuf_why);
		for (int p = 0; p < dev->nports; p++)
			text_port(f, &dev->port[p]);
		if (dev->ports_omitted)
			fprintf(f, "  (%d more ports not examined)\n", dev->ports_omitted);
		fputc('\n', f);
	}
	if (h->omitted)
		fprintf(
		    f,
		    "(%d more devices not examined: past the first %d, or names that are not printable)\n\n",
		    h->omitted, DR_MAX_DEVS);
	for (int o = 0; o < h->norphans; o++)
		fprintf(f, "PCI %s: %s\n", h->orphan[o].pci, h->orphan[o].why);
	fprintf(f, "%s\n%s\n%s\n%s\n", h->memlock, h->hugepages, h->peermem, h->governor);
	for (int g = 0; g < h->ngpus; g++) {
		fprintf(f, "GPU at PCI %s (NUMA %d)\n", h->gpu[g].pci, h->gpu[g].numa_node);
		if (h->gpu[g].pcie[0])
			fprintf(f, "  %s\n", h->gpu[g].pcie);
		fprintf(f, "  %s\n", h->gpu[g].acs);
		for (int d = 0; d < h->ndevs; d++)
			fprintf(f, "  to %s: %s\n", h->dev[d].name, h->gpu[g].rel[d]);
	}
	for (int i = 0; i < 4; i++)
		fprintf(f, "%s\n", h->nccl[i]);
	fprintf(f, "%s\n\nconclusion: %s\n", h->nccl_choice, h->conclusion);
}

/* "key": "value" with the separator before it. */
static void kv(FILE *f, const char *sep, const char *key, const char *val)
{
	fputs(sep, f);
	rb_json_string(f, key);
	fputs(": ", f);
	rb_json_string(f, val);
}

static void json_port(FILE *f, const struct dr_port *p, const char *sep)
{
	fprintf(f, "%s{\"port\": %d", sep, p->num);
	kv(f, ", ", "state", p->state);
	kv(f, ", ", "phys_state", p->phys);
	kv(f, ", ", "link_layer", p->link_layer);
	kv(f, ", ", "rate", p->rate);
	fprintf(f,
	        ", \"lid\": %ld, \"active_mtu\": %d, \"netdev_mtu\": %d, \"usable\": %s, "
	        "\"nccl_ib_hca_admits\": %s",
	        p->lid, p->active_mtu, p->netdev_mtu, p->usable ? "true" : "false",
	        p->hca_match ? "true" : "false");
	kv(f, ", ", "verdict", p->verdict);
	fprintf(f, ", \"chosen_gid_index\": %d, \"gids_total\": %d", p->chosen, p->ngids);
	kv(f, ", ", "chosen_gid", p->chosen >= 0 ? p->chosen_gid.gid : "");
	kv(f, ", ", "chosen_gid_why", p->why);
	fputs(", \"gids\": [", f);
	for (int g = 0; g < p->shown; g++) {
		fprintf(f, "%s{\"index\": %d", g ? ", " : "", p->gids[g].index);
		kv(f, ", ", "gid", p->gids[g].gid);
		kv(f, ", ", "type", p->gids[g].type);
		kv(f, ", ", "netdev", p->gids[g].ndev);
		fprintf(f, ", \"ipv4\": %s}", p->gids[g].ipv4 ? "true" : "false");
	}
	fputs("]}", f);
}

void dr_print_json(FILE *f, const struct dr_host *h, const struct dr_roots *r)
{
	fputs("{", f);
	kv(f, "", "sysfs_root", r->sys);
	kv(f, ", ", "dev_root", r->dev);
	kv(f, ", ", "provider_dir", r->prov);
	fprintf(f, ", \"live\": %s, \"usable_ports\": %d, \"devices_omitted\": %d,\n \"devices\": [",
	        r->live ? "true" : "false", h->usable, h->omitted);
	for (int d = 0; d < h->ndevs; d++) {
		const struct dr_dev *dev = &h->dev[d];

		fprintf(f, "%s\n  {", d ? "," : "");
		kv(f, "", "name", dev->name);
		kv(f, ", ", "driver", dev->driver);
		kv(f, ", ", "pci", dev->pci);
		kv(f, ", ", "netdev", dev->netdev);
		kv(f, ", ", "pcie_link", dev->pcie);
		kv(f, ", ", "iommu", dev->iommu);
		kv(f, ", ", "roce_ecn", dev->ecn);
		fprintf(f, ", \"pcie_degraded\": %s", dev->pcie_degraded ? "true" : "false");
		fprintf(f, ", \"software\": %s, \"numa_node\": %d, \"dmabuf\": %s, \"layers\": {",
		        dev->software ? "true" : "false", dev->numa_node,
		        dev->dmabuf < 0 ? "null"
		        : dev->dmabuf   ? "true"
		                        : "false");
		for (int l = 0; l < DR_NLAYERS; l++) {
			fprintf(f, "%s\"%s\": {", l ? ", " : "", layer_names[l]);
			kv(f, "", "verdict", verdict_names[dev->layer[l].v]);
			kv(f, ", ", "evidence", dev->layer[l].evidence);
			fputs("}", f);
		}
		fputs("}, \"ports\": [", f);
		for (int p = 0; p < dev->nports; p++)
			json_port(f, &dev->port[p], p ? ", " : "");
		fputs("]", f);
		kv(f, ", ", "conclusion", dev->conclusion);
		fputs("}", f);
	}
	fputs("],\n \"pci_without_rdma\": [", f);
	for (int o = 0; o < h->norphans; o++) {
		fprintf(f, "%s{", o ? ", " : "");
		kv(f, "", "pci", h->orphan[o].pci);
		kv(f, ", ", "driver", h->orphan[o].driver);
		kv(f, ", ", "why", h->orphan[o].why);
		fputs("}", f);
	}
	fputs("],\n \"gpus\": [", f);
	for (int g = 0; g < h->ngpus; g++) {
		fprintf(f, "%s{", g ? ", " : "");
		kv(f, "", "pci", h->gpu[g].pci);
		kv(f, ", ", "pcie_link", h->gpu[g].pcie);
		kv(f, ", ", "acs", h->gpu[g].acs);
		fprintf(f, ", \"acs_redirect\": %s", h->gpu[g].acs_redirect ? "true" : "false");
		fprintf(f, ", \"pcie_degraded\": %s", h->gpu[g].pcie_degraded ? "true" : "false");
		fprintf(f, ", \"numa_node\": %d, \"to_devices\": {", h->gpu[g].numa_node);
		for (int d = 0; d < h->ndevs; d++)
			kv(f, d ? ", " : "", h->dev[d].name, h->gpu[g].rel[d]);
		fputs("}}", f);
	}
	fputs("]", f);
	kv(f, ",\n ", "memlock", h->memlock);
	kv(f, ",\n ", "cpu_governor", h->governor);
	kv(f, ",\n ", "hugepages", h->hugepages);
	kv(f, ",\n ", "peermem", h->peermem);
	fputs(",\n \"nccl\": [", f);
	for (int i = 0; i < 4; i++) {
		fputs(i ? ", " : "", f);
		rb_json_string(f, h->nccl[i]);
	}
	fputs("]", f);
	kv(f, ",\n ", "nccl_choice", h->nccl_choice);
	kv(f, ",\n ", "conclusion", h->conclusion);
	fputs("\n}\n", f);
}

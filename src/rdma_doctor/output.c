/* SPDX-License-Identifier: BSD-2-Clause */
/* The findings as text (for people) and as JSON (for machines). */
#include "doctor.h"

#include "base/base.h"
#include "host/host.h"
#include "report/report.h"
#include "rb_config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *const layer_names[DR_NLAYERS] = {"pci", "driver", "uverbs", "provider", "access"};
static const char *const verdict_names[] = {"ok", "FAIL", "warn", "-", "?"};
static const char *const verdict_json[] = {"ok", "fail", "warn", "unchecked", "unknown"};

const char *dr_layer_name(enum dr_layer l)
{
	return layer_names[l];
}

const char *dr_verdict_name(enum dr_verdict v)
{
	return verdict_json[v];
}

/* The dma-buf line of a device asked (live roots). */
static void dmabuf_line(const struct dr_dev *d, char *out, size_t len)
{
	snprintf(out, len, "dma-buf registration (GPU memory without peermem): %s (%s)",
	         d->dmabuf ? "supported" : "not supported", d->dmabuf_why);
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
		if (dev->pcie.text[0])
			fprintf(f, "  %s\n", dev->pcie.text);
		if (dev->iommu[0])
			fprintf(f, "  %s\n", dev->iommu);
		if (dev->ecn[0])
			fprintf(f, "  %s\n", dev->ecn);
		if (dev->dcb_text[0])
			fprintf(f, "  %s\n", dev->dcb_text);
		if (dev->numa_node >= 0)
			fprintf(f, "  NUMA node %d\n", dev->numa_node);
		if (dev->dmabuf >= 0) {
			char line[160];
			dmabuf_line(dev, line, sizeof(line));
			fprintf(f, "  %s\n", line);
		}
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
	fprintf(f, "%s\n%s\n%s\n%s\n%s\n", h->memlock.text, h->hugepages.text, h->peermem, h->governor.text,
	        h->numa_balancing.text);
	for (int g = 0; g < h->ngpus; g++) {
		fprintf(f, "GPU at PCI %s (NUMA %d)\n", h->gpu[g].pci, h->gpu[g].numa_node);
		if (h->gpu[g].pcie.text[0])
			fprintf(f, "  %s\n", h->gpu[g].pcie.text);
		fprintf(f, "  %s\n", h->gpu[g].acs);
		for (int d = 0; d < h->ndevs; d++)
			fprintf(f, "  to %s: %s\n", h->dev[d].name, h->gpu[g].rel[d]);
	}
	for (int i = 0; i < 4; i++)
		fprintf(f, "%s\n", h->nccl.lines[i]);
	fprintf(f, "%s\n\nconclusion: %s\n", h->nccl.text, h->conclusion);
}

/* The separator, the line break (unless flat) and the key before a value. */
static bool member(struct dr_json *j, const char *key)
{
	int d = j->depth;

	if (!j->f)
		return false;
	if (j->more[d])
		fputc(',', j->f);
	if (j->flat && d >= j->flat) {
		if (j->more[d])
			fputc(' ', j->f);
	} else {
		fprintf(j->f, "\n%*s", 2 * d, "");
	}
	j->more[d] = true;
	if (key) {
		rb_json_string(j->f, key);
		fputs(": ", j->f);
	}
	return true;
}

void dr_json_open(struct dr_json *j, const char *key, char bracket, bool flat)
{
	if (j->depth + 1 >= DR_JSON_DEPTH || !member(j, key))
		return;
	fputc(bracket, j->f);
	j->depth++;
	j->more[j->depth] = false;
	j->close[j->depth] = bracket == '{' ? '}' : ']';
	if (flat && !j->flat)
		j->flat = j->depth;
}

void dr_json_close(struct dr_json *j)
{
	int d = j->depth;

	if (!j->f || d == 0)
		return;
	if (j->more[d] && !(j->flat && d >= j->flat))
		fprintf(j->f, "\n%*s", 2 * (d - 1), "");
	fputc(j->close[d], j->f);
	if (j->flat == d)
		j->flat = 0;
	j->depth--;
}

void dr_json_str(struct dr_json *j, const char *key, const char *s)
{
	if (!member(j, key))
		return;
	if (s)
		rb_json_string(j->f, s);
	else
		fputs("null", j->f);
}

void dr_json_str0(struct dr_json *j, const char *key, const char *s)
{
	dr_json_str(j, key, s && s[0] ? s : NULL);
}

void dr_json_int(struct dr_json *j, const char *key, long long v)
{
	if (member(j, key))
		fprintf(j->f, "%lld", v);
}

void dr_json_known(struct dr_json *j, const char *key, long long v)
{
	if (v < 0)
		dr_json_str(j, key, NULL);
	else
		dr_json_int(j, key, v);
}

void dr_json_num(struct dr_json *j, const char *key, double v)
{
	if (!isfinite(v))
		dr_json_str(j, key, NULL);
	else if (member(j, key))
		rb_dbl_full(j->f, v);
}

void dr_json_bool(struct dr_json *j, const char *key, bool v)
{
	if (member(j, key))
		fputs(v ? "true" : "false", j->f);
}

void dr_json_known_bool(struct dr_json *j, const char *key, int v)
{
	if (v < 0)
		dr_json_str(j, key, NULL);
	else
		dr_json_bool(j, key, v);
}

bool dr_json_object(struct dr_json *j, const char *key, bool present)
{
	if (!present) {
		dr_json_str(j, key, NULL);
		return false;
	}
	dr_json_open(j, key, '{', true);
	return true;
}

void dr_json_members(struct dr_json *j, FILE *f)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
	j->depth = j->flat = 1;
	j->more[1] = true;
	j->close[1] = '}';
}

void dr_json_raw(struct dr_json *j, const char *members, size_t len)
{
	if (!j->f || !len)
		return;
	fwrite(members, 1, len, j->f);
	j->more[j->depth] = true;
}

void dr_json_begin(struct dr_json *j, FILE *f, const char *mode)
{
	char host[256] = "", when[32] = "";
	time_t now = time(NULL);
	struct tm tm;

	memset(j, 0, sizeof(*j));
	j->f = f;
	j->depth = 1;
	j->close[1] = '}';
	fputc('{', f);
	if (gethostname(host, sizeof(host) - 1))
		host[0] = 0;
	if (gmtime_r(&now, &tm))
		strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	dr_json_str(j, "schema", DR_SCHEMA);
	dr_json_str(j, "tool", "rdma_doctor");
	dr_json_str(j, "version", RB_VERSION);
	dr_json_str0(j, "host", host);
	dr_json_str0(j, "date", when);
	dr_json_str(j, "mode", mode);
}

void dr_json_end(struct dr_json *j)
{
	while (j->f && j->depth > 0)
		dr_json_close(j);
	if (j->f) {
		fputc('\n', j->f);
		fflush(j->f);
	}
}

/* Every sentence below becomes "text", beside the facts in it. */

/* The end of a fact's object: where it was read ("" nowhere) and its sentence. */
static void said(struct dr_json *j, const char *source, const char *text)
{
	dr_json_str0(j, "source", source);
	dr_json_str(j, "text", text);
	dr_json_close(j);
}
static void json_link(struct dr_json *j, const char *key, const struct dr_link *l)
{
	if (!dr_json_object(j, key, l->known))
		return;
	dr_json_str(j, "verdict", l->degraded ? "degraded" : "ok");
	dr_json_int(j, "width", l->width);
	dr_json_num(j, "speed_gts", l->speed_gts);
	dr_json_known(j, "max_width", l->max_width > 0 ? l->max_width : -1);
	dr_json_num(j, "max_speed_gts", l->max_speed_gts > 0 ? l->max_speed_gts : NAN);
	said(j, l->source, l->text);
}

static const char *const port_why[] = {
    [DR_PORT_USABLE] = NULL,
    [DR_PORT_LAYER] = "layer_failed",
    [DR_PORT_STATE] = "state_unknown",
    [DR_PORT_NOT_ACTIVE] = "not_active",
    [DR_PORT_LINK_DOWN] = "link_down",
    [DR_PORT_NO_LID] = "no_lid",
    [DR_PORT_LINK_LAYER] = "link_layer_unknown",
    [DR_PORT_NO_GID] = "no_gid",
};

static void json_gid(struct dr_json *j, const struct dr_gid *g)
{
	dr_json_int(j, "index", g->index);
	dr_json_str(j, "gid", g->gid);
	dr_json_str(j, "type", g->type);
	dr_json_str0(j, "netdev", g->ndev);
	dr_json_bool(j, "ipv4", g->ipv4);
}

static void json_port(struct dr_json *j, const struct dr_port *p)
{
	dr_json_open(j, NULL, '{', false);
	dr_json_int(j, "port", p->num);
	dr_json_str(j, "verdict", dr_verdict_name(!p->usable ? DR_FAIL : p->unverified ? DR_WARN : DR_OK));
	dr_json_bool(j, "usable", p->usable);
	dr_json_str(j, "reason", port_why[p->why_not]);
	dr_json_str(j, "state", p->state);
	dr_json_str(j, "phys_state", p->phys);
	dr_json_str(j, "link_layer", p->link_layer);
	dr_json_str(j, "transport", p->transport);
	dr_json_num(j, "rate_gbps", p->rate_gbps > 0 ? p->rate_gbps : NAN);
	dr_json_str(j, "rate", p->rate);
	dr_json_int(j, "lid", p->lid);
	dr_json_known(j, "active_mtu_bytes", p->active_mtu ? p->active_mtu : -1);
	dr_json_known(j, "netdev_mtu_bytes", p->netdev_mtu ? p->netdev_mtu : -1);
	dr_json_bool(j, "nccl_ib_hca_admits", p->hca_match);
	dr_json_int(j, "gids_total", p->ngids);
	dr_json_open(j, "chosen_gid", '{', true);
	if (p->chosen >= 0) {
		json_gid(j, &p->chosen_gid);
	} else {
		static const char *const none[] = {"index", "gid", "type", "netdev", "ipv4"};
		for (size_t k = 0; k < sizeof(none) / sizeof(none[0]); k++)
			dr_json_str(j, none[k], NULL);
	}
	dr_json_bool(j, "in_range", p->in_range);
	dr_json_str(j, "text", p->why);
	dr_json_close(j);
	dr_json_open(j, "gids", '[', false);
	for (int g = 0; g < p->shown; g++) {
		dr_json_open(j, NULL, '{', true);
		json_gid(j, &p->gids[g]);
		dr_json_close(j);
	}
	dr_json_close(j);
	dr_json_str(j, "text", p->verdict);
	dr_json_close(j);
}

/* The priorities in mask, as a list. */
static void json_prios(struct dr_json *j, const char *key, unsigned mask)
{
	dr_json_open(j, key, '[', true);
	for (int p = 0; p < 8; p++)
		if (mask & (1u << p))
			dr_json_int(j, NULL, p);
	dr_json_close(j);
}

static const char *const iommu_modes[] = {"software", "absent", "passthrough", "translated"};

static void json_device(struct dr_json *j, const struct dr_dev *dev)
{
	dr_json_open(j, NULL, '{', false);
	dr_json_str(j, "name", dev->name);
	dr_json_str(j, "verdict", dr_verdict_name(dev->v));
	dr_json_str(j, "failed_layer", dev->failed_layer >= 0 ? layer_names[dev->failed_layer] : NULL);
	dr_json_bool(j, "software", dev->software);
	dr_json_str0(j, "driver", dev->driver);
	dr_json_str0(j, "pci", dev->software ? "" : dev->pci);
	dr_json_str0(j, "vendor_id", dev->vendor_id);
	dr_json_str0(j, "device_id", dev->device_id);
	dr_json_str0(j, "netdev", dev->netdev);
	dr_json_known(j, "numa_node", dev->numa_node);
	dr_json_str0(j, "uverbs", dev->uverbs);
	dr_json_known_bool(j, "rdma_cm", dev->rdma_cm);
	dr_json_str0(j, "provider_library", dev->provider_lib);
	dr_json_open(j, "layers", '{', false);
	for (int l = 0; l < DR_NLAYERS; l++) {
		dr_json_open(j, layer_names[l], '{', true);
		dr_json_str(j, "verdict", dr_verdict_name(dev->layer[l].v));
		said(j, dev->layer[l].source, dev->layer[l].evidence);
	}
	dr_json_close(j);
	json_link(j, "pcie", &dev->pcie);
	dr_json_open(j, "iommu", '{', true);
	dr_json_str(j, "mode", iommu_modes[dev->iommu_mode]);
	dr_json_str0(j, "group_type", dev->iommu_type);
	said(j, dev->iommu_source, dev->iommu);
	if (dr_json_object(j, "roce_ecn", dev->ecn[0])) {
		dr_json_str(j, "netdev", dev->ecn_ndev);
		json_prios(j, "np_priorities", dev->ecn_np);
		json_prios(j, "rp_priorities", dev->ecn_rp);
		said(j, dev->ecn_source, dev->ecn);
	}
	if (dr_json_object(j, "dcb", dev->dcb_text[0])) {
		dr_json_str(j, "netdev", dev->dcb_ndev);
		dr_json_known_bool(j, "offered", dev->dcb_state);
		if (dev->dcb_state > 0) {
			if (dev->dcb.pfc_known)
				json_prios(j, "pfc_priorities", dev->dcb.pfc_en);
			else
				dr_json_str(j, "pfc_priorities", NULL);
			dr_json_str(j, "trust", dev->dcb.ndscp ? "dscp" : "pcp");
			dr_json_int(j, "dscp_mapped", dev->dcb.ndscp);
			dr_json_int(j, "tclass", dev->dcb_tclass.value);
			dr_json_str(j, "tclass_from", dev->dcb_tclass.from);
			dr_json_known(j, "priority", dev->dcb_prio);
			/* null: not judged (PFC not reported, or the VLAN tag's priority decides) */
			dr_json_known_bool(j, "lossless",
			                   dev->dcb.pfc_known && dev->dcb_prio >= 0 ? dev->dcb_lossless : -1);
			dr_json_known(j, "lossless_tclass", dev->dcb_better);
		}
		said(j, "netlink RTM_GETDCB", dev->dcb_text);
	}
	if (dr_json_object(j, "dmabuf", dev->dmabuf >= 0)) {
		char line[160];
		dmabuf_line(dev, line, sizeof(line));
		dr_json_bool(j, "supported", dev->dmabuf);
		dr_json_str(j, "text", line);
		dr_json_close(j);
	}
	dr_json_open(j, "ports", '[', false);
	for (int p = 0; p < dev->nports; p++)
		json_port(j, &dev->port[p]);
	dr_json_close(j);
	dr_json_int(j, "ports_omitted", dev->ports_omitted);
	dr_json_str(j, "text", dev->conclusion);
	dr_json_close(j);
}

static const char *const orphan_why[] = {"no_driver", "no_rdma_module", "other_driver"};

static const char *const relations[] = {
    [RB_PCIE_UNKNOWN] = "unknown",        [RB_PCIE_NOT_PCI] = "not_pci",
    [RB_PCIE_SWITCH] = "same_switch",     [RB_PCIE_HOST_BRIDGE] = "same_host_bridge",
    [RB_PCIE_NODE] = "same_numa_node",    [RB_PCIE_ROOTS] = "host_bridges",
    [RB_PCIE_SOCKETS] = "across_sockets",
};

static void json_gpu(struct dr_json *j, const struct dr_host *h, const struct dr_gpu *g,
                     const struct dr_roots *r)
{
	char cfg[DR_SOURCE];

	dr_json_open(j, NULL, '{', false);
	dr_json_str(j, "pci", g->pci);
	dr_json_known(j, "numa_node", g->numa_node);
	json_link(j, "pcie", &g->pcie);
	dr_json_open(j, "acs", '{', true);
	dr_json_known_bool(j, "redirect", g->acs_bridges < 0 ? -1 : g->acs_redirect);
	dr_json_known(j, "bridges", g->acs_bridges);
	if (g->acs_bridges > 0) {
		snprintf(cfg, sizeof(cfg), "%.200s/bus/pci/devices/%s/config", r->sys, g->acs_nearest);
		dr_json_str(j, "nearest", g->acs_nearest);
		dr_json_int(j, "acs_ctl", g->acs_ctl);
		dr_json_bool(j, "request_redirect", g->acs_ctl & RB_ACS_REQ_REDIR);
		dr_json_bool(j, "completion_redirect", g->acs_ctl & RB_ACS_CMPL_REDIR);
	}
	said(j, g->acs_bridges > 0 ? cfg : "", g->acs);
	dr_json_open(j, "to_devices", '[', false);
	for (int d = 0; d < h->ndevs; d++) {
		dr_json_open(j, NULL, '{', true);
		dr_json_str(j, "device", h->dev[d].name);
		dr_json_str(j, "relation", relations[g->rel_kind[d]]);
		dr_json_str(j, "text", g->rel[d]);
		dr_json_close(j);
	}
	dr_json_close(j);
	dr_json_close(j);
}

static void json_host(struct dr_json *j, const struct dr_host *h)
{
	const struct dr_memlock *m = &h->memlock;
	const struct dr_hugepages *hp = &h->hugepages;
	const struct dr_governor *gv = &h->governor;

	dr_json_open(j, "memlock", '{', true);
	dr_json_str(j, "verdict", dr_verdict_name(m->v));
	dr_json_bool(j, "unlimited", m->unlimited);
	dr_json_bool(j, "cap_ipc_lock", m->capability);
	dr_json_known(j, "limit_bytes", m->limit_bytes);
	dr_json_int(j, "default_run_bytes", DR_DEFAULT_RUN_BYTES);
	dr_json_int(j, "sweep_run_bytes", DR_SWEEP_RUN_BYTES);
	dr_json_str(j, "text", m->text);
	dr_json_close(j);
	dr_json_open(j, "hugepages", '{', true);
	dr_json_known(j, "page_bytes", hp->page_bytes ? (long long)hp->page_bytes : -1);
	dr_json_str0(j, "page_size", hp->name);
	dr_json_known(j, "reserved_pages", hp->reserved);
	dr_json_known(j, "free_pages", hp->free);
	said(j, hp->source, hp->text);
	dr_json_open(j, "peermem", '{', true);
	dr_json_bool(j, "loaded", h->peermem_source[0]);
	said(j, h->peermem_source, h->peermem);
	dr_json_open(j, "cpu_governor", '{', true);
	dr_json_str(j, "verdict", dr_verdict_name(gv->v));
	dr_json_int(j, "cpus", gv->cpus);
	dr_json_int(j, "performance_cpus", gv->performance);
	dr_json_str0(j, "other_governor", gv->other);
	said(j, gv->source, gv->text);
	dr_json_open(j, "numa_balancing", '{', true);
	dr_json_str(j, "verdict", dr_verdict_name(h->numa_balancing.v));
	dr_json_known(j, "mode", h->numa_balancing.mode);
	said(j, h->numa_balancing.source, h->numa_balancing.text);
}

static const char *const nccl_choices[] = {"ib", "socket", "net", "none"};

static void json_nccl(struct dr_json *j, const struct dr_host *h)
{
	const struct dr_nccl *n = &h->nccl;

	dr_json_open(j, "nccl", '{', false);
	dr_json_str(j, "choice", nccl_choices[n->choice]);
	dr_json_str(j, "ib_disable", n->ib_disable);
	dr_json_str(j, "net", n->net);
	dr_json_str(j, "net_plugin", n->plugin);
	dr_json_str(j, "ib_hca", n->hca);
	dr_json_open(j, "admitted_ports", '[', true);
	for (int d = 0; d < h->ndevs; d++)
		for (int p = 0; p < h->dev[d].nports; p++)
			if (h->dev[d].port[p].usable && h->dev[d].port[p].hca_match) {
				dr_json_open(j, NULL, '{', true);
				dr_json_str(j, "device", h->dev[d].name);
				dr_json_int(j, "port", h->dev[d].port[p].num);
				dr_json_close(j);
			}
	dr_json_close(j);
	dr_json_str(j, "socket_ifname", n->ifname);
	dr_json_known_bool(j, "socket_ifname_matches", n->ifname_match);
	dr_json_str(j, "text", n->text);
	dr_json_close(j);
}

void dr_print_json(FILE *f, const struct dr_host *h, const struct dr_roots *r)
{
	struct dr_json j;
	const struct dr_dev *first = NULL;
	const struct dr_port *port = NULL;

	for (int d = 0; d < h->ndevs && !port; d++)
		for (int p = 0; p < h->dev[d].nports && !port; p++)
			if (h->dev[d].port[p].usable) {
				first = &h->dev[d];
				port = &first->port[p];
			}
	dr_json_begin(&j, f, "host");
	dr_json_str(&j, "sysfs_root", r->sys);
	dr_json_str(&j, "dev_root", r->dev);
	dr_json_str(&j, "provider_dir", r->prov);
	dr_json_bool(&j, "live", r->live);
	dr_json_str(&j, "verdict", dr_verdict_name(h->v));
	dr_json_int(&j, "usable_ports", h->usable);
	if (dr_json_object(&j, "first_usable", port)) {
		dr_json_str(&j, "device", first->name);
		dr_json_int(&j, "port", port->num);
		dr_json_close(&j);
	}
	dr_json_str(&j, "pcie_degraded", h->capped_pcie);
	dr_json_str(&j, "acs_redirect_gpu", h->capped_acs);
	dr_json_int(&j, "devices_omitted", h->omitted);
	dr_json_open(&j, "devices", '[', false);
	for (int d = 0; d < h->ndevs; d++)
		json_device(&j, &h->dev[d]);
	dr_json_close(&j);
	dr_json_open(&j, "pci_without_rdma", '[', false);
	for (int i = 0; i < h->norphans; i++) {
		const struct dr_orphan *o = &h->orphan[i];
		dr_json_open(&j, NULL, '{', true);
		dr_json_str(&j, "pci", o->pci);
		dr_json_str0(&j, "vendor_id", o->vendor);
		dr_json_str0(&j, "class_id", o->class);
		dr_json_str0(&j, "driver", o->driver);
		dr_json_str(&j, "reason", orphan_why[o->reason]);
		dr_json_str(&j, "module", o->module);
		dr_json_str(&j, "text", o->why);
		dr_json_close(&j);
	}
	dr_json_close(&j);
	dr_json_open(&j, "gpus", '[', false);
	for (int g = 0; g < h->ngpus; g++)
		json_gpu(&j, h, &h->gpu[g], r);
	dr_json_close(&j);
	json_host(&j, h);
	json_nccl(&j, h);
	if (dr_json_object(&j, "rxe_module", h->rxe >= 0)) {
		dr_json_bool(&j, "present", h->rxe);
		dr_json_str(&j, "text", h->rxe_module);
		dr_json_close(&j);
	}
	dr_json_str(&j, "conclusion", h->conclusion);
	dr_json_end(&j);
}

/* Each device's ports: state, link, rate, LID, the GID table and the GID the tools pick. */
#include "doctor.h"

#include "device.h"
#include "gid.h"
#include "gpu.h"
#include "hca.h"
#include "sysfs.h"

#include <arpa/inet.h>
#include <infiniband/verbs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "4: ACTIVE" -> "ACTIVE" */
static void after_colon(char *s)
{
	char *c = strstr(s, ": ");
	if (c)
		memmove(s, c + 2, strlen(c + 2) + 1);
}

static void port_line(const char *sys, const char *dev, int port, const char *what, char *out, size_t len)
{
	char rel[300];

	snprintf(rel, sizeof(rel), "class/infiniband/%s/ports/%d/%s", dev, port, what);
	if (!rb_sysfs_line(sys, rel, out, len))
		snprintf(out, len, "unknown");
}

/* The non-zero GIDs of the port (sysfs lists every entry of the table, most of them zero). */
static void read_gids(const char *sys, const char *dev, struct dr_port *p, struct rb_gid *raw)
{
	char rel[300], text[64];

	p->ngids = 0;
	for (int i = 0; i < 256 && p->ngids < DR_MAX_GIDS; i++) {
		struct dr_gid *g = &p->gids[p->ngids];
		uint8_t bin[16];

		snprintf(rel, sizeof(rel), "class/infiniband/%s/ports/%d/gids/%d", dev, p->num, i);
		if (!rb_sysfs_line(sys, rel, text, sizeof(text)))
			break;
		if (inet_pton(AF_INET6, text, bin) != 1 || rb_gid_is_zero(bin))
			continue;
		g->index = i;
		rb_gid_fmt(bin, g->gid, sizeof(g->gid));
		g->ipv4 = rb_gid_is_ipv4(bin);
		snprintf(rel, sizeof(rel), "class/infiniband/%s/ports/%d/gid_attrs/types/%d", dev, p->num, i);
		if (!rb_sysfs_line(sys, rel, g->type, sizeof(g->type)))
			snprintf(g->type, sizeof(g->type), "unknown");
		snprintf(rel, sizeof(rel), "class/infiniband/%s/ports/%d/gid_attrs/ndevs/%d", dev, p->num, i);
		if (!rb_sysfs_line(sys, rel, g->ndev, sizeof(g->ndev)))
			g->ndev[0] = '\0';
		raw[p->ngids] = (struct rb_gid){
		    .index = i, .type = !strcmp(g->type, "RoCE v2") ? RB_GID_ROCE_V2 : RB_GID_ROCE_V1};
		memcpy(raw[p->ngids].raw, bin, 16);
		p->ngids++;
	}
}

/* The GID the tools would use, and why. */
static void choose_gid(const char *sys, struct dr_port *p, const struct rb_gid *raw, const char *range_spec)
{
	struct rb_addr_range range = {0};
	struct dr_gid g;
	char rel[96];

	p->chosen = -1;
	if (strcmp(p->link_layer, "Ethernet")) {
		p->chosen = p->ngids ? 0 : -1;
		snprintf(p->why, sizeof(p->why),
		         "InfiniBand: GID index %d, the port GID (addressing is by LID)",
		         p->ngids ? p->gids[0].index : 0);
		return;
	}
	if (range_spec && rb_addr_range_parse(range_spec, &range))
		range.set = false;
	p->chosen = rb_gid_select(raw, (unsigned)p->ngids, range.set ? &range : NULL);
	if (p->chosen < 0) {
		snprintf(p->why, sizeof(p->why), "no GID%s: does the netdev have an IP address?",
		         range.set ? " inside the address range" : "");
		return;
	}
	g = p->gids[p->chosen];
	snprintf(p->why, sizeof(p->why),
	         "index %d: %s, %s%s (NCCL's rule: IPv4-mapped, then RoCE v2, then not "
	         "link-local)",
	         g.index, g.type, g.ipv4 ? "IPv4-mapped" : "IPv6",
	         range.set ? ", inside the address range" : "");
	snprintf(rel, sizeof(rel), "class/net/%s/mtu", g.ndev);
	p->netdev_mtu = (int)rb_sysfs_long(sys, rel, 0);
}

static const char *link_name(const struct dr_port *p)
{
	if (strcmp(p->link_layer, "Ethernet"))
		return "InfiniBand";
	return p->chosen >= 0 && !strcmp(p->gids[p->chosen].type, "RoCE v2") ? "RoCE v2" : "RoCE v1";
}

static void verdict(const struct dr_dev *d, struct dr_port *p)
{
	bool layers = true;
	const char *why = NULL;

	for (int l = 0; l < DR_NLAYERS; l++)
		layers &= d->layer[l].v != DR_FAIL && d->layer[l].v != DR_UNCHECKED;
	if (!layers)
		why = "a layer under the device failed";
	else if (strcmp(p->state, "ACTIVE"))
		why = !strcmp(p->phys, "LinkUp")
		          ? "the link is up but the port is not ACTIVE (InfiniBand: no subnet "
		            "manager has brought it up)"
		          : "the link is down (cable, switch port, or the netdev is down)";
	else if (strcmp(p->link_layer, "Ethernet") && p->lid == 0)
		why = "LID 0: no subnet manager has configured this port";
	else if (p->chosen < 0)
		why = "no usable GID";
	char v[sizeof(p->verdict)];

	p->usable = !why;
	if (p->usable)
		snprintf(v, sizeof(v), "%s port %d ACTIVE, %s, usable", d->name, p->num, link_name(p));
	else
		snprintf(v, sizeof(v), "%s port %d %s (%s): not usable: %s", d->name, p->num, p->state,
		         p->phys, why);
	memcpy(p->verdict, v, sizeof(v));
}

/* Live roots, the device opened: each port's active MTU and the NIC's dma-buf support. */
static void ask_verbs(struct dr_dev *d)
{
	struct ibv_device **l;
	int n = 0;

	d->dmabuf = -1;
	if (d->layer[DR_ACCESS].v != DR_OK || !(l = ibv_get_device_list(&n)))
		return;
	for (int i = 0; i < n; i++) {
		struct ibv_context *ctx;
		struct ibv_pd *pd;
		int err;

		if (strcmp(ibv_get_device_name(l[i]), d->name) || !(ctx = ibv_open_device(l[i])))
			continue;
		for (int p = 0; p < d->nports; p++) {
			struct ibv_port_attr pa;
			if (!ibv_query_port(ctx, (uint8_t)d->port[p].num, &pa))
				d->port[p].active_mtu = (int)rb_mtu_bytes(pa.active_mtu);
		}
		if ((pd = ibv_alloc_pd(ctx))) {
			d->dmabuf = rb_nic_dmabuf(pd, &err);
			snprintf(d->dmabuf_why, sizeof(d->dmabuf_why), "%s",
			         d->dmabuf ? "EBADF on fd -1" : strerror(err));
			ibv_dealloc_pd(pd);
		}
		ibv_close_device(ctx);
	}
	ibv_free_device_list(l);
}

void dr_scan_ports(const struct dr_roots *r, struct dr_dev *d, const char *hca, const char *gid_range)
{
	struct rb_hca_filter filt;
	struct rb_gid raw[DR_MAX_GIDS];
	char rel[300], lid[32];

	if (rb_hca_filter_parse(hca, &filt))
		rb_hca_filter_parse(NULL, &filt);
	d->nports = 0;
	for (int n = 1; n <= DR_MAX_PORTS; n++) {
		struct dr_port *p = &d->port[d->nports];

		snprintf(rel, sizeof(rel), "class/infiniband/%s/ports/%d", d->name, n);
		if (!rb_sysfs_exists(r->sys, rel))
			continue;
		memset(p, 0, sizeof(*p));
		p->num = n;
		port_line(r->sys, d->name, n, "state", p->state, sizeof(p->state));
		port_line(r->sys, d->name, n, "phys_state", p->phys, sizeof(p->phys));
		port_line(r->sys, d->name, n, "link_layer", p->link_layer, sizeof(p->link_layer));
		port_line(r->sys, d->name, n, "rate", p->rate, sizeof(p->rate));
		port_line(r->sys, d->name, n, "lid", lid, sizeof(lid));
		p->lid = strtol(lid, NULL, 0);
		after_colon(p->state);
		after_colon(p->phys);
		read_gids(r->sys, d->name, p, raw);
		choose_gid(r->sys, p, raw, gid_range);
		p->hca_match = rb_hca_filter_match(&filt, d->name, n);
		verdict(d, p);
		d->nports++;
	}
	d->dmabuf = -1;
	if (r->live)
		ask_verbs(d);
}

/* SPDX-License-Identifier: BSD-2-Clause */
/* Each device's ports: state, link, rate, LID, the GID table and the GID the tools pick. */
#include "doctor.h"

#include "verbs/verbs.h"
#include "gpu/gpu.h"
#include "host/host.h"
#include "base/base.h"

#include <arpa/inet.h>
#include <dirent.h>
#include <limits.h>
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

#define GID_TABLE 256 /* entries read, as the tools read them */

/* The non-zero GIDs of the port (sysfs lists every entry, most of them zero): all into raw, the first
 * DR_MAX_GIDS shown. */
static void read_gids(const char *sys, const char *dev, struct dr_port *p, struct rb_gid *raw,
                      struct dr_gid *all)
{
	char rel[300], text[64];

	p->ngids = 0;
	for (int i = 0; i < GID_TABLE; i++) {
		struct dr_gid *g = &all[p->ngids];
		uint8_t bin[16];

		snprintf(rel, sizeof(rel), "class/infiniband/%s/ports/%d/gids/%d", dev, p->num, i);
		if (!rb_sysfs_line(sys, rel, text, sizeof(text)))
			break;
		if (inet_pton(AF_INET6, text, bin) != 1 || rb_gid_is_zero(bin))
			continue;
		memset(g, 0, sizeof(*g));
		g->index = i;
		rb_gid_fmt(bin, g->gid, sizeof(g->gid));
		g->ipv4 = rb_gid_is_ipv4(bin);
		snprintf(rel, sizeof(rel), "class/infiniband/%s/ports/%d/gid_attrs/types/%d", dev, p->num, i);
		if (!rb_sysfs_line(sys, rel, g->type, sizeof(g->type)))
			snprintf(g->type, sizeof(g->type), "unknown");
		snprintf(rel, sizeof(rel), "class/infiniband/%s/ports/%d/gid_attrs/ndevs/%d", dev, p->num, i);
		rb_sysfs_line(sys, rel, g->ndev, sizeof(g->ndev));
		raw[p->ngids] = (struct rb_gid){
		    .index = i, .type = !strcmp(g->type, "RoCE v2") ? RB_GID_ROCE_V2 : RB_GID_ROCE_V1};
		memcpy(raw[p->ngids].raw, bin, 16);
		p->ngids++;
	}
	p->shown = p->ngids < DR_MAX_GIDS ? p->ngids : DR_MAX_GIDS;
	memcpy(p->gids, all, (size_t)p->shown * sizeof(*all));
}

static bool is_ib(const struct dr_port *p)
{
	return !strcmp(p->link_layer, "InfiniBand");
}

static bool is_eth(const struct dr_port *p)
{
	return !strcmp(p->link_layer, "Ethernet");
}

/* The GID the tools would use (rc_write_bw's automatic choice), and why. */
static void choose_gid(const char *sys, struct dr_port *p, const struct rb_gid *raw, const struct dr_gid *all,
                       const struct rb_addr_range *range)
{
	char rel[96];
	int at;

	p->chosen = -1;
	if (!is_eth(p)) {
		if (p->ngids) {
			p->chosen = all[0].index;
			p->chosen_gid = all[0];
		}
		snprintf(p->why, sizeof(p->why), "index %d: the port GID (%s addresses by LID)", p->chosen,
		         is_ib(p) ? "InfiniBand" : "this link layer");
		return;
	}
	at = rb_gid_select(raw, (unsigned)p->ngids, range && range->set ? range : NULL);
	if (at < 0) {
		snprintf(p->why, sizeof(p->why), "no GID%s: does the netdev have an IP address?",
		         range && range->set ? " inside the address range" : "");
		return;
	}
	p->chosen = all[at].index;
	p->chosen_gid = all[at];
	p->in_range = range && range->set;
	snprintf(p->why, sizeof(p->why),
	         "index %d: %s, %s%s (the tools' rule: IPv4-mapped, then RoCE v2, then not "
	         "link-local; -x overrides)",
	         all[at].index, all[at].type, all[at].ipv4 ? "IPv4-mapped" : "IPv6",
	         range && range->set ? ", inside the address range" : "");
	snprintf(rel, sizeof(rel), "class/net/%s/mtu", all[at].ndev);
	p->netdev_mtu = (int)rb_sysfs_long(sys, rel, 0);
}

static const char *link_name(const struct dr_port *p)
{
	if (p->iwarp)
		return "iWARP";
	if (is_ib(p))
		return "InfiniBand";
	if (!is_eth(p))
		return p->link_layer;
	return p->chosen >= 0 && !strcmp(p->chosen_gid.type, "RoCE v2") ? "RoCE v2" : "RoCE v1";
}

/* The same as an enum of the JSON document; NULL for a link layer the tools do not know. */
static const char *transport(const struct dr_port *p)
{
	static const char *const names[][2] = {
	    {"iWARP", "iwarp"}, {"InfiniBand", "infiniband"}, {"RoCE v2", "roce_v2"}, {"RoCE v1", "roce_v1"}};
	const char *l = link_name(p);

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (l != p->link_layer && !strcmp(l, names[i][0]))
			return names[i][1];
	return NULL;
}

/* Why the port is not usable (layers: every layer under it passed or is unverified). */
static enum dr_port_why why_not(const struct dr_port *p, bool layers)
{
	if (!layers)
		return DR_PORT_LAYER;
	if (!strcmp(p->state, "unknown"))
		return DR_PORT_STATE;
	if (strcmp(p->state, "ACTIVE"))
		return !strcmp(p->phys, "LinkUp") ? DR_PORT_NOT_ACTIVE : DR_PORT_LINK_DOWN;
	if (is_ib(p) && p->lid == 0)
		return DR_PORT_NO_LID;
	if (!is_ib(p) && !is_eth(p))
		return DR_PORT_LINK_LAYER;
	return p->chosen < 0 ? DR_PORT_NO_GID : DR_PORT_USABLE;
}

static const char *why_text(const struct dr_port *p)
{
	switch (p->why_not) {
	case DR_PORT_USABLE: return NULL;
	case DR_PORT_LAYER: return "a layer under the device failed";
	case DR_PORT_STATE: return "its state could not be read";
	case DR_PORT_NOT_ACTIVE:
		return is_ib(p) ? "the link is up but the port is not ACTIVE (InfiniBand: "
		                  "no subnet manager has brought it up)"
		                : "the link is up but the port is not ACTIVE";
	case DR_PORT_LINK_DOWN: return "the link is down (cable, switch port, or the netdev is down)";
	case DR_PORT_NO_LID: return "LID 0: no subnet manager has configured this port";
	case DR_PORT_LINK_LAYER: return "its link layer is not one the tools know (InfiniBand or Ethernet)";
	case DR_PORT_NO_GID: return "no usable GID";
	}
	return NULL;
}

static void verdict(const struct dr_dev *d, struct dr_port *p)
{
	bool layers = true, unverified = false;
	const char *why;
	char v[sizeof(p->verdict)];

	for (int l = 0; l < DR_NLAYERS; l++) {
		layers &= d->layer[l].v != DR_FAIL && d->layer[l].v != DR_UNCHECKED;
		unverified |= d->layer[l].v == DR_WARN;
	}
	p->why_not = why_not(p, layers);
	why = why_text(p);
	p->usable = !why;
	p->unverified = p->usable && unverified;
	p->transport = transport(p);
	if (p->usable)
		snprintf(v, sizeof(v), "%s port %d ACTIVE, %s, usable%s", d->name, p->num, link_name(p),
		         unverified ? " as far as this tree shows (a layer is unverified)" : "");
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

static int by_number(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* The port numbers under ports/ (switch port 0 included), sorted. */
static int list_ports(const char *sys, const char *dev, int *out, int max, int *omitted)
{
	char rel[256], dir[PATH_MAX];
	struct dirent *e;
	int n = 0;
	DIR *dp;

	snprintf(rel, sizeof(rel), "class/infiniband/%s/ports", dev);
	*omitted = 0;
	if (!rb_sysfs_path(dir, sizeof(dir), sys, rel) || !(dp = opendir(dir)))
		return 0;
	while ((e = readdir(dp)))
		if (e->d_name[0] >= '0' && e->d_name[0] <= '9' &&
		    strspn(e->d_name, "0123456789") == strlen(e->d_name)) {
			if (n < max)
				out[n++] = atoi(e->d_name);
			else
				(*omitted)++;
		}
	closedir(dp);
	qsort(out, (size_t)n, sizeof(*out), by_number);
	return n;
}

void dr_scan_ports(const struct dr_roots *r, struct dr_dev *d, const struct rb_hca_filter *filt,
                   const struct rb_addr_range *range)
{
	static struct rb_gid raw[GID_TABLE];
	static struct dr_gid all[GID_TABLE];
	char rel[300], lid[32], node_type[32];
	int nums[DR_MAX_PORTS], n = list_ports(r->sys, d->name, nums, DR_MAX_PORTS, &d->ports_omitted);

	snprintf(rel, sizeof(rel), "class/infiniband/%s/node_type", d->name);
	rb_sysfs_line(r->sys, rel, node_type, sizeof(node_type));
	d->nports = 0;
	for (int i = 0; i < n; i++) {
		struct dr_port *p = &d->port[d->nports];
		int num = nums[i];

		memset(p, 0, sizeof(*p));
		p->num = num;
		p->iwarp = strstr(node_type, "RNIC") != NULL;
		port_line(r->sys, d->name, num, "state", p->state, sizeof(p->state));
		port_line(r->sys, d->name, num, "phys_state", p->phys, sizeof(p->phys));
		port_line(r->sys, d->name, num, "link_layer", p->link_layer, sizeof(p->link_layer));
		port_line(r->sys, d->name, num, "rate", p->rate, sizeof(p->rate));
		if (sscanf(p->rate, "%lf", &p->rate_gbps) != 1 || !(p->rate_gbps > 0))
			p->rate_gbps = 0;
		port_line(r->sys, d->name, num, "lid", lid, sizeof(lid));
		p->lid = strtol(lid, NULL, 0);
		after_colon(p->state);
		after_colon(p->phys);
		read_gids(r->sys, d->name, p, raw, all);
		choose_gid(r->sys, p, raw, all, range);
		p->hca_match = rb_hca_filter_match(filt, d->name, num);
		verdict(d, p);
		d->nports++;
	}
	d->dmabuf = -1;
	if (r->live)
		ask_verbs(d);
}

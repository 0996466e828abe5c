/* SPDX-License-Identifier: BSD-2-Clause */
#include "device.h"

#include "async.h"

#include "host/host.h"
#include "linkrate.h"
#include "base/base.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

void rb_dev_opts_default(struct rb_dev_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->gid_index = -1;
}

static int parse_gid_index(const char *arg, void *dst)
{
	uint64_t v;
	int ret = rb_parse_u64_range(arg, 0, 255, &v);
	if (!ret)
		*(int *)dst = (int)v;
	return ret;
}

static int check_range(const char *arg, void *dst)
{
	struct rb_addr_range r;
	int ret = rb_addr_range_parse(arg, &r);
	if (!ret)
		*(const char **)dst = arg;
	return ret;
}

static int check_hca(const char *arg, void *dst)
{
	struct rb_hca_filter f;
	int ret = rb_hca_filter_parse(arg, &f);
	if (!ret)
		*(const char **)dst = arg;
	return ret;
}

struct rb_opt_table rb_dev_opt_table(struct rb_dev_opts *o)
{
	static const struct rb_opt rows[] = {
	    {.name = "ib-dev",
	     .key = 'd',
	     .type = RB_OPT_STR,
	     .off = offsetof(struct rb_dev_opts, name),
	     .arg = "DEV",
	     .help = "RDMA device, exact name (default: first ACTIVE); with --all-pairs a comma-separated "
	             "list of rails"},
	    {.name = "hca",
	     .type = RB_OPT_FN,
	     .off = offsetof(struct rb_dev_opts, hca),
	     .arg = "LIST",
	     .help = "NCCL_IB_HCA-style filter: prefix match, '=' exact, '^' exclude, NAME:PORT",
	     .fn = check_hca,
	     .allowed = "comma list of NAME[:PORT], optionally led by ^ and/or =",
	     .env = "NCCL_IB_HCA"},
	    {.name = "ib-port",
	     .key = 'i',
	     .type = RB_OPT_U32,
	     .off = offsetof(struct rb_dev_opts, port),
	     .arg = "PORT",
	     .help = "port number (default: first ACTIVE)",
	     .min = 1,
	     .max = 255},
	    {.name = "gid-index",
	     .key = 'x',
	     .type = RB_OPT_FN,
	     .off = offsetof(struct rb_dev_opts, gid_index),
	     .arg = "IDX",
	     .help = "GID index (default: auto, IPv4-mapped RoCE v2 first)",
	     .fn = parse_gid_index,
	     .allowed = "an integer from 0 to 255",
	     .env = "NCCL_IB_GID_INDEX",
	     .flags = RB_OPT_ENV_NCCL},
	    {.name = "gid-range",
	     .type = RB_OPT_FN,
	     .off = offsetof(struct rb_dev_opts, gid_range),
	     .arg = "CIDR",
	     .help = "auto GID only from this address range (default: $NCCL_IB_ADDR_RANGE)",
	     .fn = check_range,
	     .allowed = "an IPv4 or IPv6 prefix such as 10.0.0.0/8",
	     .env = "NCCL_IB_ADDR_RANGE"},
	    {0},
	};
	return (struct rb_opt_table){"Device", rows, o, false, NULL};
}

unsigned rb_mtu_bytes(enum ibv_mtu m)
{
	return (m >= IBV_MTU_256 && m <= IBV_MTU_4096) ? 128u << m : 0;
}

int rb_mtu_from_bytes(unsigned bytes, enum ibv_mtu *m)
{
	for (int i = IBV_MTU_256; i <= IBV_MTU_4096; i++) {
		if ((128u << i) == bytes) {
			*m = (enum ibv_mtu)i;
			return 0;
		}
	}
	return -EINVAL;
}

const char *rb_link_layer_name(const struct rb_device *d)
{
	return d->roce ? "Ethernet" : "InfiniBand";
}

static int read_numa_node(const char *dev)
{
	char path[256];
	FILE *f;
	int node = -1;

	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/device/numa_node", dev);
	f = fopen(path, "r");
	if (f) {
		if (fscanf(f, "%d", &node) != 1)
			node = -1;
		fclose(f);
	}
	return node;
}

static enum rb_gid_type gid_type_of(uint32_t t)
{
	switch (t) {
	case IBV_GID_TYPE_ROCE_V1: return RB_GID_ROCE_V1;
	case IBV_GID_TYPE_ROCE_V2: return RB_GID_ROCE_V2;
	default: return RB_GID_IB;
	}
}

/* Reads the port's GID table; returns the number of entries. */
static int read_gids(struct rb_device *d, struct rb_gid *t, unsigned cap)
{
	unsigned n = 0;

	for (int i = 0; i < d->port_attr.gid_tbl_len && n < cap; i++) {
		struct ibv_gid_entry e;
		if (ibv_query_gid_ex(d->ctx, d->port, (uint32_t)i, &e, 0))
			continue; /* empty slot */
		t[n].index = i;
		t[n].type = gid_type_of(e.gid_type);
		memcpy(t[n].raw, e.gid.raw, 16);
		n++;
	}
	return (int)n;
}

static int pick_gid(const struct rb_dev_opts *o, struct rb_device *d)
{
	struct rb_gid t[256];
	struct rb_addr_range range = {0};
	int n = read_gids(d, t, 256), pos;

	if (o->gid_index >= 0) {
		for (int i = 0; i < n; i++) {
			if (t[i].index == o->gid_index && !rb_gid_is_zero(t[i].raw)) {
				d->gid = t[i];
				return 0;
			}
		}
		char have[256] = "";
		for (int i = 0, off = 0; i < n && off < 200; i++)
			if (!rb_gid_is_zero(t[i].raw))
				off += snprintf(have + off, sizeof(have) - (size_t)off, "%s%d",
				                off ? "," : "", t[i].index);
		rb_usage_err("GID index %d is empty or out of range on %s port %u (valid: %s)", o->gid_index,
		             d->name, d->port, have[0] ? have : "none");
		return -EINVAL;
	}
	if (!d->roce) {
		/* InfiniBand: index 0 (the port GID) is what LID routing needs. */
		d->gid.index = 0;
		d->gid.type = RB_GID_IB;
		for (int i = 0; i < n; i++)
			if (t[i].index == 0)
				d->gid = t[i];
		d->gid_auto = true;
		return 0;
	}
	if (o->gid_range && rb_addr_range_parse(o->gid_range, &range)) {
		rb_usage_err("invalid GID range '%s' (allowed: an IPv4 or IPv6 prefix such as 10.0.0.0/8)",
		             o->gid_range);
		return -EINVAL;
	}
	pos = rb_gid_select(t, (unsigned)n, &range);
	if (pos < 0) {
		rb_err("no usable GID on %s port %u%s%s (is an IP address configured on its netdev?)",
		       d->name, d->port, range.set ? " inside " : "", range.set ? o->gid_range : "");
		return -ENETDOWN;
	}
	d->gid = t[pos];
	d->gid_auto = true;
	return 0;
}

static const char *port_state_name(enum ibv_port_state s)
{
	return ibv_port_state_str(s);
}

/* Tries one device; returns 0, or -errno with a message when the user named it. */
static int try_device(struct ibv_device *dev, const struct rb_dev_opts *o, const struct rb_hca_filter *filt,
                      bool named, struct rb_device *d)
{
	const char *name = ibv_get_device_name(dev);
	int last_err = -ENODEV;

	d->ctx = ibv_open_device(dev);
	if (!d->ctx) {
		int err = errno ? errno : EIO;
		rb_err("cannot open device %s: %s", name, strerror(err));
		return -err;
	}
	if (rb_async_init(d))
		goto fail;
	if (ibv_query_device(d->ctx, &d->attr)) {
		rb_err("ibv_query_device(%s) failed: %s", name, strerror(errno));
		goto fail;
	}
	snprintf(d->name, sizeof(d->name), "%s", name);
	if (o->port && o->port > d->attr.phys_port_cnt) {
		rb_usage_err("port %u out of range for %s (it has %u port%s)", o->port, name,
		             d->attr.phys_port_cnt, d->attr.phys_port_cnt == 1 ? "" : "s");
		last_err = -EINVAL;
		goto fail;
	}
	for (unsigned p = 1; p <= d->attr.phys_port_cnt; p++) {
		if (o->port && p != o->port)
			continue;
		if (!rb_hca_filter_match(filt, name, (int)p))
			continue;
		if (ibv_query_port(d->ctx, (uint8_t)p, &d->port_attr))
			continue;
		if (d->port_attr.state != IBV_PORT_ACTIVE) {
			if (named || o->port) {
				rb_err("port %u of %s is %s (needs PORT_ACTIVE)", p, name,
				       port_state_name(d->port_attr.state));
				last_err = -ENETDOWN;
			}
			continue;
		}
		d->port = (uint8_t)p;
		d->roce = d->port_attr.link_layer == IBV_LINK_LAYER_ETHERNET;
		d->numa_node = read_numa_node(name);
		last_err = pick_gid(o, d);
		if (last_err)
			goto fail;
		return 0;
	}
fail:
	ibv_close_device(d->ctx);
	d->ctx = NULL;
	return last_err;
}

/* Each device with an ACTIVE port the filter lets through. */
static int filtered_rails(const struct rb_hca_filter *f, char (*out)[RB_RAIL_NAME])
{
	struct ibv_device **list;
	int n = 0, cnt = 0;

	list = ibv_get_device_list(&n);
	for (int i = 0; list && i < n && cnt < RB_MAX_RAILS; i++) {
		struct ibv_context *ctx = ibv_open_device(list[i]);
		struct ibv_device_attr da;
		bool up = false;

		if (!ctx)
			continue;
		if (!ibv_query_device(ctx, &da)) {
			for (unsigned p = 1; p <= da.phys_port_cnt && !up; p++) {
				struct ibv_port_attr pa;
				up = rb_hca_filter_match(f, ibv_get_device_name(list[i]), (int)p) &&
				     !ibv_query_port(ctx, (uint8_t)p, &pa) && pa.state == IBV_PORT_ACTIVE;
			}
		}
		ibv_close_device(ctx);
		if (up)
			snprintf(out[cnt++], RB_RAIL_NAME, "%s", ibv_get_device_name(list[i]));
	}
	if (list)
		ibv_free_device_list(list);
	return cnt;
}

int rb_dev_rails(const struct rb_dev_opts *o, char (*out)[RB_RAIL_NAME])
{
	struct rb_hca_filter f;
	const char *p;
	int n = 0;

	out[0][0] = '\0';
	if (o->name && !strchr(o->name, ',')) {
		snprintf(out[0], RB_RAIL_NAME, "%s", o->name);
		return 1;
	}
	/* No -d: the devices --hca lets through, or the one a run would open (the first ACTIVE). */
	if (!o->name) {
		if (rb_hca_filter_parse(o->hca, &f))
			return 1;
		n = filtered_rails(&f, out);
		return !o->hca || !n ? 1 : n;
	}
	for (p = o->name; *p;) {
		size_t len = strcspn(p, ",");

		if (len == 0 || len >= RB_RAIL_NAME || n == RB_MAX_RAILS) {
			rb_usage_err(
			    "invalid value '%s' for -d: a list of up to %d device names, comma-separated",
			    o->name, RB_MAX_RAILS);
			return -EINVAL;
		}
		memcpy(out[n], p, len);
		out[n][len] = '\0';
		for (int i = 0; i < n; i++) {
			if (!strcmp(out[i], out[n])) {
				rb_usage_err("invalid value '%s' for -d: %s named twice", o->name, out[n]);
				return -EINVAL;
			}
		}
		n++;
		p += len;
		if (*p == ',' && !*++p) {
			rb_usage_err("invalid value '%s' for -d: a list of device names, comma-separated",
			             o->name);
			return -EINVAL;
		}
	}
	return n;
}

int rb_device_open(const struct rb_dev_opts *o, struct rb_device *d)
{
	struct ibv_device **list;
	struct rb_hca_filter filt;
	char names[256] = "";
	int n = 0, ret = -ENODEV, off = 0;
	bool seen = false;

	memset(d, 0, sizeof(*d));
	if (o->name && strchr(o->name, ',')) {
		rb_usage_err("-d %s names several devices (rails): measuring through several at once is "
		             "--all-pairs's; a run between two nodes uses one",
		             o->name);
		return -EINVAL;
	}
	if (rb_hca_filter_parse(o->hca, &filt)) {
		rb_usage_err("invalid HCA list '%s'", o->hca);
		return -EINVAL;
	}
	list = ibv_get_device_list(&n);
	if (!list) {
		rb_usage_err("cannot list RDMA devices: %s (is ib_uverbs loaded?)", strerror(errno));
		return -ENODEV;
	}
	for (int i = 0; i < n && off < 200; i++)
		off += snprintf(names + off, sizeof(names) - (size_t)off, "%s%s", i ? ", " : "",
		                ibv_get_device_name(list[i]));
	if (n == 0) {
		rb_err("no RDMA devices found (rdma_doctor explains why)");
		goto out;
	}
	for (int i = 0; i < n; i++) {
		const char *name = ibv_get_device_name(list[i]);
		if (o->name && strcmp(name, o->name))
			continue;
		seen = true;
		ret = try_device(list[i], o, &filt, o->name != NULL, d);
		if (!ret || ret == -EINVAL || ret == -ENETDOWN || o->name)
			break;
	}
	if (o->name && !seen) {
		rb_usage_err("device '%s' not found (available: %s)", o->name, names);
		ret = -ENODEV;
	} else if (ret == -ENODEV) {
		rb_err("no ACTIVE port matches the selection (devices: %s%s%s)", names,
		       o->hca ? "; --hca " : "", o->hca ? o->hca : "");
	}
out:
	ibv_free_device_list(list);
	return ret;
}

void rb_device_close(struct rb_device *d)
{
	if (d->ctx)
		ibv_close_device(d->ctx);
	d->ctx = NULL;
}

void rb_device_describe(const struct rb_device *d, FILE *f)
{
	char gid[64], slot[48];
	double gbps = rb_port_gbps(&d->port_attr), pcie;

	fprintf(f, " Device         : %s port %u (%s)\n", d->name, d->port, rb_link_layer_name(d));
	if (gbps > 0)
		fprintf(f, " Link speed     : %.1f Gb/s (%s, %s)\n", gbps,
		        rb_link_speed_name(d->port_attr.active_speed, rb_port_speed_ex(&d->port_attr)),
		        d->roce ? "the Ethernet rate it stands for" : "data rate");
	pcie = rb_pcie_link_gbps("/sys", d->name, slot, sizeof(slot));
	if (pcie > 0 && gbps > 0 && pcie < gbps)
		fprintf(f,
		        " PCIe ceiling   : %.1f Gb/s (%s): below the port's rate, the slot limits the NIC\n",
		        pcie, slot);
	fprintf(f, " Active MTU     : %u B\n", rb_mtu_bytes(d->port_attr.active_mtu));
	if (d->numa_node >= 0)
		fprintf(f, " NUMA node      : %d\n", d->numa_node);
	else
		fprintf(f, " NUMA node      : unknown\n");
	if (d->roce)
		fprintf(f, " GID index      : %d (%s, %s)%s\n", d->gid.index, rb_gid_type_name(d->gid.type),
		        rb_gid_fmt(d->gid.raw, gid, sizeof(gid)), d->gid_auto ? " auto-selected" : "");
	else
		fprintf(f, " LID            : 0x%04x\n", d->port_attr.lid);
}

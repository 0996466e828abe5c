/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A host's facts for its triage peer: its verdict, the port a run would use, that
 * port's addresses, MTUs and counters, as one bounded key/value list (a HELLO's
 * parameters, so the wire's own checks bound it). Values longer than a parameter
 * holds are cut, never refused: a fact is evidence, not a parameter to agree on.
 */
#include "triage.h"

#include "base/base.h"
#include "rb_config.h"
#include "oob/oob.h"
#include "verbs/verbs.h"

#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const struct dr_port *dr_pick_port(const struct dr_host *h, const char *dev, const struct dr_dev **d)
{
	const struct dr_port *first = NULL;

	*d = NULL;
	for (int i = 0; i < h->ndevs; i++) {
		if (dev && strcmp(h->dev[i].name, dev))
			continue;
		for (int p = 0; p < h->dev[i].nports; p++) {
			if (h->dev[i].port[p].usable) {
				*d = &h->dev[i];
				return &h->dev[i].port[p];
			}
			if (!first) {
				*d = &h->dev[i];
				first = &h->dev[i].port[p];
			}
		}
	}
	return first;
}

/* A fact, cut to what a parameter holds. */
static void put(struct rb_hello *f, const char *key, const char *fmt, ...) RB_PRINTF(3, 4);
static void put(struct rb_hello *f, const char *key, const char *fmt, ...)
{
	char val[RB_WIRE_VAL_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(val, sizeof(val), fmt, ap);
	va_end(ap);
	rb_hello_add(f, key, "%s", val);
}

/* The GID's address with its prefix on the netdev ("10.0.0.2/24"); "" when the netdev lacks it. */
void dr_gid_subnet(const struct dr_gid *g, char *out, size_t len)
{
	struct in6_addr a6;
	struct ifaddrs *ifs, *i;
	char addr[INET6_ADDRSTRLEN];

	out[0] = 0;
	/* The tools print an IPv4-mapped GID as the IPv4 address. */
	memset(&a6, 0, sizeof(a6));
	if (inet_pton(AF_INET, g->gid, a6.s6_addr + 12) == 1) {
		a6.s6_addr[10] = a6.s6_addr[11] = 0xff;
	} else if (inet_pton(AF_INET6, g->gid, &a6) != 1) {
		return;
	}
	if (getifaddrs(&ifs))
		return;
	for (i = ifs; i && !out[0]; i = i->ifa_next) {
		unsigned bits = 0;
		const uint8_t *m;
		size_t n;

		if (!i->ifa_addr || !i->ifa_netmask || strcmp(i->ifa_name, g->ndev))
			continue;
		if (g->ipv4 && i->ifa_addr->sa_family == AF_INET) {
			const struct sockaddr_in *s = (const void *)i->ifa_addr;
			if (memcmp(&s->sin_addr, a6.s6_addr + 12, 4))
				continue;
			m = (const uint8_t *)&((const struct sockaddr_in *)(const void *)i->ifa_netmask)
			        ->sin_addr;
			n = 4;
			inet_ntop(AF_INET, &s->sin_addr, addr, sizeof(addr));
		} else if (!g->ipv4 && i->ifa_addr->sa_family == AF_INET6) {
			const struct sockaddr_in6 *s = (const void *)i->ifa_addr;
			if (memcmp(&s->sin6_addr, &a6, 16))
				continue;
			m = ((const struct sockaddr_in6 *)(const void *)i->ifa_netmask)->sin6_addr.s6_addr;
			n = 16;
			inet_ntop(AF_INET6, &s->sin6_addr, addr, sizeof(addr));
		} else {
			continue;
		}
		for (size_t b = 0; b < n; b++)
			bits += (unsigned)__builtin_popcount(m[b]);
		snprintf(out, len, "%s/%u", addr, bits);
	}
	freeifaddrs(ifs);
}

/* The VLAN a netdev tags with (/proc/net/vlan/config: "name | vid | parent"); -1: none. */
long dr_netdev_vlan(const char *ndev)
{
	FILE *f = fopen("/proc/net/vlan/config", "r");
	char line[256], name[64];
	long vid = -1, v;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%63s | %ld", name, &v) == 2 && !strcmp(name, ndev))
			vid = v;
	if (f)
		fclose(f);
	return vid;
}

static void port_facts(const struct dr_dev *d, const struct dr_port *p, const char *sysfs, struct rb_hello *f)
{
	static struct rb_counters c; /* large: not on the stack */
	char subnet[96];

	put(f, "dev", "%s", d->name);
	put(f, "port", "%d", p->num);
	put(f, "port_usable", "%d", p->usable);
	put(f, "port_verdict", "%s", p->verdict);
	put(f, "state", "%s", p->state);
	put(f, "link_layer", "%s", p->link_layer);
	put(f, "rate", "%s", p->rate);
	put(f, "software", "%d", d->software);
	put(f, "pcie", "%s", d->pcie.text);
	put(f, "pcie_degraded", "%d", d->pcie.degraded);
	put(f, "active_mtu", "%d", p->active_mtu);
	if (p->chosen >= 0) {
		put(f, "gid", "%s", p->chosen_gid.gid);
		put(f, "gid_index", "%d", p->chosen);
		put(f, "gid_type", "%s", p->chosen_gid.type);
		put(f, "gid_ipv4", "%d", p->chosen_gid.ipv4);
		put(f, "netdev", "%s", p->chosen_gid.ndev);
		put(f, "netdev_mtu", "%d", p->netdev_mtu);
		put(f, "vlan", "%ld", dr_netdev_vlan(p->chosen_gid.ndev));
		dr_gid_subnet(&p->chosen_gid, subnet, sizeof(subnet));
		put(f, "subnet", "%s", subnet);
	}
	{
		struct dr_dcb_end e;

		dr_dcb_end_of(d, &e);
		put(f, "dcb_state", "%d", e.state);
		put(f, "dcb_prio", "%d", e.prio);
		put(f, "dcb_pfc", "%d", e.pfc);
		put(f, "dcb_tclass", "%d", d->dcb_tclass.value);
	}
	/* The counters as they stand: the asking side takes deltas around its run. */
	rb_counters_open(&c, sysfs, d->name, (unsigned)p->num);
	rb_counters_mark(&c);
	for (unsigned i = 0; i < c.n; i++)
		put(f, c.key[i], "%llu", (unsigned long long)c.step[i]);
	rb_counters_close(&c);
}

void dr_facts(const struct dr_host *h, const char *dev, const char *sysfs, const unsigned ports[3],
              struct rb_hello *f)
{
	const struct dr_dev *d;
	const struct dr_port *p = dr_pick_port(h, dev, &d);

	memset(f, 0, sizeof(*f));
	snprintf(f->tool, sizeof(f->tool), "rdma_doctor");
	snprintf(f->version, sizeof(f->version), "%s", RB_VERSION);
	if (gethostname(f->host, sizeof(f->host) - 1))
		snprintf(f->host, sizeof(f->host), "?");
	put(f, "usable", "%d", h->usable);
	put(f, "conclusion", "%s", h->conclusion);
	put(f, "bw_port", "%u", ports[0]);
	put(f, "sock_port", "%u", ports[1]);
	put(f, "perftest_port", "%u", ports[2]);
	if (p)
		port_facts(d, p, sysfs, f);
	else
		put(f, "port_verdict", "%s", dev ? "no such device here" : "no RDMA port here");
}

const char *dr_fact(const struct rb_hello *f, const char *key)
{
	const char *v = rb_hello_get(f, key);
	return v ? v : "";
}

long dr_fact_long(const struct rb_hello *f, const char *key, long dflt)
{
	const char *v = rb_hello_get(f, key);
	char *end;
	long n;

	if (!v || !*v)
		return dflt;
	n = strtol(v, &end, 10);
	return *end ? dflt : n;
}

bool dr_same_subnet(const char *a, const char *b)
{
	char sa[96], sb[96];
	uint8_t xa[16] = {0}, xb[16] = {0};
	unsigned ba, bb;
	char *pa, *pb;
	int fa, fb;

	snprintf(sa, sizeof(sa), "%s", a);
	snprintf(sb, sizeof(sb), "%s", b);
	pa = strchr(sa, '/');
	pb = strchr(sb, '/');
	if (!pa || !pb)
		return true; /* unknown: nothing to say */
	*pa++ = 0;
	*pb++ = 0;
	ba = (unsigned)atoi(pa);
	bb = (unsigned)atoi(pb);
	fa = strchr(sa, ':') ? AF_INET6 : AF_INET;
	fb = strchr(sb, ':') ? AF_INET6 : AF_INET;
	if (fa != fb || ba != bb || inet_pton(fa, sa, xa) != 1 || inet_pton(fb, sb, xb) != 1)
		return false;
	for (unsigned bit = 0; bit < ba && bit < 128; bit++)
		if (((xa[bit / 8] ^ xb[bit / 8]) >> (7 - bit % 8)) & 1)
			return false;
	return true;
}

void dr_triage_hello(struct rb_hello *h)
{
	memset(h, 0, sizeof(*h));
	snprintf(h->tool, sizeof(h->tool), "rdma_doctor");
	snprintf(h->version, sizeof(h->version), "%s", RB_VERSION);
	if (gethostname(h->host, sizeof(h->host) - 1))
		h->host[0] = 0;
	rb_hello_add(h, "protocol", "triage-1");
}

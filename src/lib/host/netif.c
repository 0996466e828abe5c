/* SPDX-License-Identifier: BSD-2-Clause */
#include "netif.h"

#include "base/base.h"

#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int rb_netif_choose(const struct rb_netif_cand *c, unsigned n, const struct rb_hca_filter *f, int family)
{
	for (unsigned i = 0; i < n; i++) {
		if (!c[i].up || c[i].link_local)
			continue;
		if (family && c[i].family != family)
			continue;
		if (rb_hca_filter_match(f, c[i].name, 0))
			return (int)i;
	}
	return -ENOENT;
}

static void fill(struct rb_netif *out, const char *name, const struct sockaddr *sa)
{
	const void *a = sa->sa_family == AF_INET
	                    ? (const void *)&((const struct sockaddr_in *)sa)->sin_addr
	                    : (const void *)&((const struct sockaddr_in6 *)sa)->sin6_addr;

	memset(out, 0, sizeof(*out));
	snprintf(out->name, sizeof(out->name), "%s", name);
	out->family = sa->sa_family;
	out->addrlen = sa->sa_family == AF_INET ? sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6);
	memcpy(&out->addr, sa, out->addrlen);
	((struct sockaddr_in *)&out->addr)->sin_port = 0;
	inet_ntop(sa->sa_family, a, out->addr_str, sizeof(out->addr_str));
}

static bool is_link_local(const struct sockaddr *sa)
{
	const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)sa;
	return sa->sa_family == AF_INET6 && IN6_IS_ADDR_LINKLOCAL(&s6->sin6_addr);
}

static int find(const char *spec, int family, struct rb_netif *out, bool quiet)
{
	struct ifaddrs *ifa, *i;
	struct rb_hca_filter f;
	struct rb_netif_cand cand[256];
	struct ifaddrs *ref[256];
	char names[256] = "";
	unsigned n = 0;
	int af = family == 4 ? AF_INET : family == 6 ? AF_INET6 : 0, pos, off = 0;

	if (rb_hca_filter_parse(spec, &f)) {
		if (quiet)
			return -EINVAL;
		rb_usage_err(
		    "invalid interface list '%s' (allowed: comma list of name prefixes, optionally led by "
		    "^ and/or =)",
		    spec);
		return -EINVAL;
	}
	if (getifaddrs(&ifa)) {
		rb_err("getifaddrs failed: %s", strerror(errno));
		return -errno;
	}
	for (i = ifa; i && n < 256; i = i->ifa_next) {
		if (!i->ifa_addr || (i->ifa_addr->sa_family != AF_INET && i->ifa_addr->sa_family != AF_INET6))
			continue;
		cand[n] = (struct rb_netif_cand){i->ifa_name, i->ifa_addr->sa_family,
		                                 (i->ifa_flags & IFF_UP) != 0, is_link_local(i->ifa_addr)};
		ref[n++] = i;
		if (!strstr(names, i->ifa_name) && off < 200)
			off += snprintf(names + off, sizeof(names) - (size_t)off, "%s%s", off ? ", " : "",
			                i->ifa_name);
	}
	pos = rb_netif_choose(cand, n, &f, af);
	if (pos >= 0)
		fill(out, ref[pos]->ifa_name, ref[pos]->ifa_addr);
	freeifaddrs(ifa);
	if (pos < 0 && quiet)
		return -ENODEV;
	if (pos < 0) {
		rb_usage_err("no socket interface found matching '%s'%s (available: %s)",
		             spec ? spec : "(any)",
		             family == 4   ? " with an IPv4 address"
		             : family == 6 ? " with an IPv6 address"
		                           : "",
		             names);
		return -ENODEV;
	}
	return 0;
}

int rb_netif_find(const char *spec, int family, struct rb_netif *out)
{
	return find(spec, family, out, false);
}

int rb_netif_pick(const char *spec, const char *rdma_dev, struct rb_netif *out, char *how, size_t cap)
{
	const char *env = getenv("NCCL_SOCKET_IFNAME");
	char rel[160], ndev[64], exact[80];

	if (spec) {
		snprintf(how, cap, "--oob-ifname %s", spec);
		return find(spec, 0, out, false);
	}
	if (env && *env) {
		snprintf(how, cap, "NCCL_SOCKET_IFNAME=%s", env);
		return find(env, 0, out, false);
	}
	/* The netdev of the device's GID (RoCE); an IB port has none, and it may have no address. */
	snprintf(rel, sizeof(rel), "class/infiniband/%s/ports/1/gid_attrs/ndevs/0", rdma_dev ? rdma_dev : "");
	if (rdma_dev && *rdma_dev && rb_sysfs_line("/sys", rel, ndev, sizeof(ndev)) && ndev[0]) {
		snprintf(exact, sizeof(exact), "=%s", ndev);
		snprintf(how, cap, "the netdev of %s's GID", rdma_dev);
		if (!find(exact, 0, out, true))
			return 0;
	}
	/* NCCL's order when nothing is named: IPoIB, anything but docker and lo, docker, lo. */
	{
		static const char *const tries[][2] = {
		    {"ib", "the first IPoIB interface up"},
		    {"^docker,lo", "the first interface up but lo and docker"},
		    {"docker", "no other interface up: docker"},
		    {"lo", "no other interface up: loopback, which reaches this host only"},
		};

		for (unsigned i = 0; i < sizeof(tries) / sizeof(tries[0]); i++) {
			snprintf(how, cap, "%s", tries[i][1]);
			if (!find(tries[i][0], 0, out, true))
				return 0;
		}
	}
	return find("^docker,lo", 0, out, false);
}

int rb_netif_of_addr(const struct sockaddr *sa, struct rb_netif *out)
{
	struct ifaddrs *ifa, *i;
	int ret = -ENOENT;

	if (getifaddrs(&ifa))
		return -errno;
	for (i = ifa; i; i = i->ifa_next) {
		if (!i->ifa_addr || i->ifa_addr->sa_family != sa->sa_family)
			continue;
		if ((sa->sa_family == AF_INET &&
		     !memcmp(&((const struct sockaddr_in *)sa)->sin_addr,
		             &((const struct sockaddr_in *)i->ifa_addr)->sin_addr, sizeof(struct in_addr))) ||
		    (sa->sa_family == AF_INET6 &&
		     !memcmp(&((const struct sockaddr_in6 *)sa)->sin6_addr,
		             &((const struct sockaddr_in6 *)i->ifa_addr)->sin6_addr,
		             sizeof(struct in6_addr)))) {
			fill(out, i->ifa_name, sa);
			ret = 0;
			break;
		}
	}
	freeifaddrs(ifa);
	return ret;
}

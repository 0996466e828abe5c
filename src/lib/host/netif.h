/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Socket interface selection with NCCL_SOCKET_IFNAME semantics: a comma list of
 * interface-name prefixes, '=' for exact names, '^' to exclude (the same list syntax
 * as NCCL_IB_HCA, see hca.h), and an address family.
 */
#ifndef RB_NETIF_H
#define RB_NETIF_H

#include "hca.h"

#include <netinet/in.h>
#include <stdbool.h>
#include <sys/socket.h>

struct rb_netif {
	char name[64];
	int family; /* AF_INET or AF_INET6 */
	struct sockaddr_storage addr;
	socklen_t addrlen;
	char addr_str[64];
};

/* One interface as getifaddrs reports it, for the pure chooser. */
struct rb_netif_cand {
	const char *name;
	int family;
	bool up, link_local;
};

/*
 * Picks the first candidate that is up, of the family (0 = any) and matches the
 * filter; IPv6 link-local addresses are skipped. Returns its position or -ENOENT.
 */
int rb_netif_choose(const struct rb_netif_cand *c, unsigned n, const struct rb_hca_filter *f, int family);

/*
 * Finds the local interface address matching spec (NULL = unset) and family (4, 6,
 * or 0 for either). On no match says "no socket interface found matching ..." with
 * what exists, and returns -ENODEV.
 */
int rb_netif_find(const char *spec, int family, struct rb_netif *out);

/*
 * The address a rank of --all-pairs publishes, by NCCL's rules: the interfaces spec
 * names (NULL: $NCCL_SOCKET_IFNAME when set), else the netdev of rdma_dev's GID
 * (port 1, index 0) when it has an address, else as NCCL: the first IPoIB interface
 * up (ib*), else the first but lo and docker*, else docker*, else lo. how gets where
 * the choice came from. 0, or -ENODEV/-EINVAL (said).
 */
int rb_netif_pick(const char *spec, const char *rdma_dev, struct rb_netif *out, char *how, size_t cap);

/* The interface that owns a local address (e.g. getsockname of a connection). */
int rb_netif_of_addr(const struct sockaddr *sa, struct rb_netif *out);

#endif

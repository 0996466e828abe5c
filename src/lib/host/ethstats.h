/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A network interface's driver statistics, as `ethtool -S` shows them: names and
 * 64-bit values, read with the SIOCETHTOOL ioctl (ETHTOOL_GSSET_INFO, GSTRINGS,
 * GSTATS), or parsed from a recorded `ethtool -S` output. What the names mean is the
 * driver's (mlx5's pause, discard and buffer counters: verbs/counters.c).
 */
#ifndef RB_ETHSTATS_H
#define RB_ETHSTATS_H

#include <stddef.h>
#include <stdint.h>

#define RB_ETHSTAT_NAME 32   /* ETH_GSTRING_LEN */
#define RB_ETHSTATS_MAX 8192 /* a driver that says more is not believed */

struct rb_ethstats {
	unsigned n;
	char (*name)[RB_ETHSTAT_NAME];
	uint64_t *val;
};

/* Every statistic of interface ifname, names and values: 0, or -errno (an interface without any:
 * -EOPNOTSUPP). */
int rb_ethstats_read(const char *ifname, struct rb_ethstats *s);
/* The values again, the names kept: 0, or -errno (-ESTALE when the driver's set changed size). */
int rb_ethstats_refresh(const char *ifname, struct rb_ethstats *s);
/* A recorded `ethtool -S IF` output ("NIC statistics:", then "     name: value" lines): 0 or -EINVAL. */
int rb_ethstats_parse(const char *text, struct rb_ethstats *s);
/* The index of name, or -1. */
int rb_ethstats_find(const struct rb_ethstats *s, const char *name);
void rb_ethstats_free(struct rb_ethstats *s);

#endif

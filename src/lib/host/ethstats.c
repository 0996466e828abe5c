/* SPDX-License-Identifier: BSD-2-Clause */
#include "ethstats.h"

#include "base/base.h"

#include <errno.h>
#include <linux/ethtool.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

static int ethtool(const char *ifname, void *cmd)
{
	struct ifreq ifr;
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), ret = 0;

	if (fd < 0)
		return -errno;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", ifname);
	ifr.ifr_data = cmd;
	if (ioctl(fd, SIOCETHTOOL, &ifr) < 0)
		ret = -errno;
	close(fd);
	return ret;
}

/* How many statistics the driver has now. */
static int count(const char *ifname, unsigned *n)
{
	/* The header, then one u32 per set asked for (ETH_SS_STATS only). */
	uint64_t raw[(sizeof(struct ethtool_sset_info) + sizeof(uint32_t) + 7) / 8];
	struct ethtool_sset_info *info = (struct ethtool_sset_info *)raw;
	uint32_t len;
	int ret;

	memset(raw, 0, sizeof(raw));
	info->cmd = ETHTOOL_GSSET_INFO;
	info->sset_mask = 1ull << ETH_SS_STATS;
	if ((ret = ethtool(ifname, info)))
		return ret;
	memcpy(&len, (const uint8_t *)raw + sizeof(*info), sizeof(len));
	if (!(info->sset_mask & (1ull << ETH_SS_STATS)) || len == 0)
		return -EOPNOTSUPP;
	if (len > RB_ETHSTATS_MAX)
		return -E2BIG;
	*n = len;
	return 0;
}

void rb_ethstats_free(struct rb_ethstats *s)
{
	free(s->name);
	free(s->val);
	s->name = NULL;
	s->val = NULL;
	s->n = 0;
}

static int room(struct rb_ethstats *s, unsigned n)
{
	rb_ethstats_free(s);
	s->name = calloc(n, sizeof(*s->name));
	s->val = calloc(n, sizeof(*s->val));
	if (!s->name || !s->val) {
		rb_ethstats_free(s);
		return -ENOMEM;
	}
	s->n = n;
	return 0;
}

/*
 * The kernel writes as many entries as the driver has now, whatever the request says:
 * the count is asked again just before (a set that changed size is -ESTALE), and the
 * buffer holds RB_ETHSTATS_MAX entries whatever happens between the two calls.
 */
static int same_count(const char *ifname, unsigned n)
{
	unsigned now;
	int ret = count(ifname, &now);

	return ret ? ret : now == n ? 0 : -ESTALE;
}

int rb_ethstats_refresh(const char *ifname, struct rb_ethstats *s)
{
	struct ethtool_stats *st;
	int ret = same_count(ifname, s->n);

	if (ret)
		return ret;
	st = calloc(1, sizeof(*st) + (size_t)RB_ETHSTATS_MAX * sizeof(uint64_t));
	if (!st)
		return -ENOMEM;
	st->cmd = ETHTOOL_GSTATS;
	st->n_stats = s->n;
	ret = ethtool(ifname, st);
	if (!ret && st->n_stats != s->n)
		ret = -ESTALE;
	if (!ret)
		memcpy(s->val, st->data, (size_t)s->n * sizeof(uint64_t));
	free(st);
	return ret;
}

int rb_ethstats_read(const char *ifname, struct rb_ethstats *s)
{
	struct ethtool_gstrings *gs;
	unsigned n;
	int ret = count(ifname, &n);

	if (ret || (ret = room(s, n)))
		return ret;
	gs = calloc(1, sizeof(*gs) + (size_t)RB_ETHSTATS_MAX * ETH_GSTRING_LEN); /* see same_count */
	if (!gs) {
		rb_ethstats_free(s);
		return -ENOMEM;
	}
	gs->cmd = ETHTOOL_GSTRINGS;
	gs->string_set = ETH_SS_STATS;
	gs->len = n;
	ret = same_count(ifname, n);
	if (!ret)
		ret = ethtool(ifname, gs);
	if (!ret && gs->len != n)
		ret = -ESTALE;
	for (unsigned i = 0; !ret && i < n; i++) {
		memcpy(s->name[i], gs->data + (size_t)i * ETH_GSTRING_LEN, RB_ETHSTAT_NAME);
		s->name[i][RB_ETHSTAT_NAME - 1] =
		    '\0'; /* the driver's bytes: a name ends here at the latest */
	}
	free(gs);
	if (!ret)
		ret = rb_ethstats_refresh(ifname, s);
	if (ret)
		rb_ethstats_free(s);
	return ret;
}

int rb_ethstats_parse(const char *text, struct rb_ethstats *s)
{
	unsigned n = 0, cap = 0;
	const char *p = text;

	rb_ethstats_free(s);
	for (const char *q = text; *q; q++)
		cap += *q == '\n';
	if (room(s, cap + 1))
		return -ENOMEM;
	while (*p) {
		const char *eol = strchr(p, '\n'), *colon;
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		char line[256], num[32];
		uint64_t v;

		if (len < sizeof(line)) {
			memcpy(line, p, len);
			line[len] = '\0';
			colon = strrchr(line, ':');
			if (colon && strcmp(line, "NIC statistics:")) {
				const char *name = line + strspn(line, " \t");
				size_t nl = (size_t)(colon - name);

				snprintf(num, sizeof(num), "%s", colon + 1 + strspn(colon + 1, " \t"));
				if (nl == 0 || nl >= RB_ETHSTAT_NAME || rb_parse_u64(num, &v)) {
					rb_ethstats_free(s);
					return -EINVAL;
				}
				memcpy(s->name[n], name, nl);
				s->name[n][nl] = '\0';
				s->val[n++] = v;
			}
		}
		p += len + (eol != NULL);
	}
	s->n = n;
	return 0;
}

int rb_ethstats_find(const struct rb_ethstats *s, const char *name)
{
	for (unsigned i = 0; i < s->n; i++)
		if (!strcmp(s->name[i], name))
			return (int)i;
	return -1;
}

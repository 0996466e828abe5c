/* SPDX-License-Identifier: BSD-2-Clause */
#include "rankaddr.h"

#include "fabmsg.h"
#include "base/base.h"
#include "verbs/verbs.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

/* The port a listening socket got (port 0 asks the kernel for a free one). */
uint32_t rb_rank_bound_port(int fd)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);

	if (getsockname(fd, (struct sockaddr *)&ss, &len))
		return 0;
	if (ss.ss_family == AF_INET6)
		return ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
	return ntohs(((struct sockaddr_in *)&ss)->sin_port);
}

/* 32 lowercase hex digits, exactly, into the cookie's bytes: -EPROTO otherwise. */
static int parse_cookie(const char *s, uint8_t *cookie)
{
	static const char digits[] = "0123456789abcdef";

	if (strlen(s) != 2 * RB_FAB_COOKIE_LEN || strspn(s, digits) != 2 * RB_FAB_COOKIE_LEN)
		return -EPROTO;
	for (int i = 0; i < RB_FAB_COOKIE_LEN; i++)
		cookie[i] = (uint8_t)((strchr(digits, s[2 * i]) - digits) << 4 |
		                      (strchr(digits, s[2 * i + 1]) - digits));
	return 0;
}

/*
 * Splits "host port[,port...] ctlport cookie" (another rank's word: checked): its
 * host, its listener per rail (as many as want), and rank 0's coordinator port and
 * the job's cookie (zeros from the others).
 */
int rb_rank_split_addr(const char *s, char *host, size_t cap, uint32_t *ports, int want, uint32_t *cport,
                       uint8_t *cookie)
{
	const char *sp1 = strchr(s, ' '), *sp2 = sp1 ? strchr(sp1 + 1, ' ') : NULL;
	const char *sp3 = sp2 ? strchr(sp2 + 1, ' ') : NULL, *p;
	char num[24];
	uint64_t v;
	int n = 0;

	*cport = 0;
	if (!sp1 || !sp2 || !sp3 || sp1 == s || (size_t)(sp1 - s) >= cap)
		return -EPROTO;
	memcpy(host, s, (size_t)(sp1 - s));
	host[sp1 - s] = '\0';
	for (p = sp1 + 1; p < sp2; n++) {
		size_t len = strcspn(p, ", ");

		if (n == want || len == 0 || len >= sizeof(num))
			return -EPROTO;
		memcpy(num, p, len);
		num[len] = '\0';
		if (rb_parse_u64(num, &v) || v == 0 || v > 65535)
			return -EPROTO;
		ports[n] = (uint32_t)v;
		p += len + (p[len] == ',');
	}
	if (n != want || (size_t)(sp3 - sp2 - 1) >= sizeof(num))
		return -EPROTO;
	memcpy(num, sp2 + 1, (size_t)(sp3 - sp2 - 1));
	num[sp3 - sp2 - 1] = '\0';
	if (rb_parse_u64(num, &v) || v > 65535)
		return -EPROTO;
	*cport = (uint32_t)v;
	return parse_cookie(sp3 + 1, cookie);
}

/* "rank 3's address ...": why another rank's word cannot be used. */
void rb_rank_bad_addr(uint32_t rank, const char *word, int nrails)
{
	if (!strncmp(word, "failed ", 7))
		rb_err("--all-pairs: rank %u could not set up (its own message says why)", rank);
	else
		rb_err(
		    "--all-pairs: rank %u's address from the launcher is malformed or has another number of "
		    "rails than this rank's %d: '%s'",
		    rank, nrails, word);
}

/*
 * This rank's word: the address the others reach it on (the interface rb_netif_pick
 * chose: never the host name, which a container may not resolve), its listeners,
 * and rank 0's coordinator port and cookie.
 */
void rb_rank_my_addr(const char *host, const uint32_t *ports, int n, uint32_t cport, const uint8_t *cookie,
                     char *out, size_t cap)
{
	char list[RB_MAX_RAILS * 6 + 1] = "", hex[2 * RB_FAB_COOKIE_LEN + 1];
	size_t off = 0;

	for (int i = 0; i < n && off < sizeof(list); i++)
		off += (size_t)snprintf(list + off, sizeof(list) - off, "%s%u", i ? "," : "", ports[i]);
	for (int i = 0; i < RB_FAB_COOKIE_LEN; i++)
		snprintf(hex + 2 * i, 3, "%02x", cookie[i]);
	snprintf(out, cap, "%s %s %u %s", host, list, cport, hex);
}

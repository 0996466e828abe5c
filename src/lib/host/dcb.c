/* SPDX-License-Identifier: BSD-2-Clause */
#include "dcb.h"

#include <errno.h>
#include <linux/dcbnl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* The attributes in [p, p + len): each checked against what is left before use. */
static int walk(const uint8_t *p, size_t len, struct rb_dcb *d, int depth)
{
	while (len >= sizeof(struct nlattr)) {
		struct nlattr a;
		const uint8_t *v = p + NLA_HDRLEN;
		size_t alen, step;

		memcpy(&a, p, sizeof(a));
		if (a.nla_len < NLA_HDRLEN || a.nla_len > len)
			return -EPROTO;
		alen = a.nla_len - NLA_HDRLEN;
		step = (size_t)NLA_ALIGN(a.nla_len) < len ? (size_t)NLA_ALIGN(a.nla_len) : len;
		unsigned type = a.nla_type & NLA_TYPE_MASK;

		if (depth == 0 && type == DCB_ATTR_IEEE) {
			if (walk(v, alen, d, 1))
				return -EPROTO;
		} else if (depth == 1 && type == DCB_ATTR_IEEE_PFC) {
			struct ieee_pfc pfc;

			if (alen < sizeof(pfc))
				return -EPROTO;
			memcpy(&pfc, v, sizeof(pfc));
			d->pfc_known = true;
			d->pfc_cap = pfc.pfc_cap;
			d->pfc_en = pfc.pfc_en;
		} else if (depth == 1 && type == DCB_ATTR_IEEE_APP_TABLE) {
			if (walk(v, alen, d, 2))
				return -EPROTO;
		} else if (depth == 2 && type == DCB_ATTR_IEEE_APP) {
			struct dcb_app app;

			if (alen < sizeof(app))
				return -EPROTO;
			memcpy(&app, v, sizeof(app));
			if (app.selector == IEEE_8021QAZ_APP_SEL_DSCP && app.protocol < 64 &&
			    app.priority < 8) {
				d->ndscp += d->dscp_prio[app.protocol] < 0; /* values mapped, each once */
				d->dscp_prio[app.protocol] = (int8_t)app.priority;
			}
		} /* anything else: not read */
		p += step;
		len -= step;
	}
	return 0;
}

int rb_dcb_parse(const uint8_t *msg, size_t len, struct rb_dcb *out)
{
	struct nlmsghdr h;

	memset(out, 0, sizeof(*out));
	memset(out->dscp_prio, -1, sizeof(out->dscp_prio));
	if (len < NLMSG_HDRLEN)
		return -EPROTO;
	memcpy(&h, msg, sizeof(h));
	if (h.nlmsg_len < NLMSG_HDRLEN || h.nlmsg_len > len)
		return -EPROTO;
	if (h.nlmsg_type == NLMSG_ERROR) {
		struct nlmsgerr e;

		if (h.nlmsg_len < NLMSG_HDRLEN + sizeof(e))
			return -EPROTO;
		memcpy(&e, msg + NLMSG_HDRLEN, sizeof(e));
		return e.error < 0 ? e.error : -EPROTO;
	}
	if (h.nlmsg_type != RTM_GETDCB || h.nlmsg_len < NLMSG_HDRLEN + sizeof(struct dcbmsg))
		return -EPROTO;
	return walk(msg + NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(struct dcbmsg)),
	            h.nlmsg_len - NLMSG_HDRLEN - NLMSG_ALIGN(sizeof(struct dcbmsg)), out, 0);
}

int rb_dcb_query(const char *ifname, struct rb_dcb *out)
{
	struct {
		struct nlmsghdr h;
		struct dcbmsg m;
		struct nlattr a;
		char name[32];
	} req;
	static uint8_t buf[65536];
	struct sockaddr_nl kernel = {.nl_family = AF_NETLINK};
	struct pollfd pf;
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE), ret;
	ssize_t n;

	if (fd < 0)
		return -errno;
	memset(&req, 0, sizeof(req));
	snprintf(req.name, sizeof(req.name), "%s", ifname);
	req.a.nla_type = DCB_ATTR_IFNAME;
	req.a.nla_len = (uint16_t)(NLA_HDRLEN + strlen(req.name) + 1);
	req.h.nlmsg_len = (uint32_t)(NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(req.m)) + NLA_ALIGN(req.a.nla_len));
	req.h.nlmsg_type = RTM_GETDCB;
	req.h.nlmsg_flags = NLM_F_REQUEST;
	req.h.nlmsg_seq = 1;
	req.m.dcb_family = AF_UNSPEC;
	req.m.cmd = DCB_CMD_IEEE_GET;
	if (sendto(fd, &req, req.h.nlmsg_len, 0, (struct sockaddr *)&kernel, sizeof(kernel)) < 0) {
		ret = -errno;
		close(fd);
		return ret;
	}
	/* Bounded: the kernel answers at once, or not at all. */
	pf = (struct pollfd){fd, POLLIN, 0};
	if (poll(&pf, 1, 2000) != 1) {
		close(fd);
		return -ETIMEDOUT;
	}
	n = recv(fd, buf, sizeof(buf), 0);
	ret = n < 0 ? -errno : rb_dcb_parse(buf, (size_t)n, out);
	close(fd);
	return ret;
}

int rb_dcb_tclass(const struct rb_dcb *d, unsigned tclass, bool *lossless, char *why, size_t cap)
{
	unsigned dscp = (tclass >> 2) & 63;
	char on[32] = "";
	int prio;

	for (unsigned p = 0, off = 0; p < 8 && off < sizeof(on); p++)
		if (d->pfc_en & (1u << p))
			off += (unsigned)snprintf(on + off, sizeof(on) - off, "%s%u", off ? "," : "", p);
	*lossless = false;
	if (!d->ndscp) {
		snprintf(why, cap,
		         "trust pcp (no DSCP map): the priority is the VLAN tag's, which traffic class %u "
		         "does not "
		         "set; PFC on priorities %s",
		         tclass, on[0] ? on : "none");
		return -1;
	}
	prio = d->dscp_prio[dscp];
	if (prio < 0) {
		snprintf(why, cap,
		         "traffic class %u is DSCP %u, which the DSCP map does not name: priority 0 by "
		         "default; PFC on "
		         "priorities %s",
		         tclass, dscp, on[0] ? on : "none");
		prio = 0;
	}
	*lossless = d->pfc_known && (d->pfc_en & (1u << prio));
	if (d->dscp_prio[dscp] >= 0)
		snprintf(why, cap, "traffic class %u is DSCP %u, priority %d: %s (PFC on priorities %s)",
		         tclass, dscp, prio, *lossless ? "lossless" : "lossy", on[0] ? on : "none");
	return prio;
}

/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The RoCE netdev's DCB as the kernel has it (netlink, the live host only): the
 * priorities PFC keeps lossless, the trust mode, and where the traffic class the
 * tools and NCCL will set (--tclass, $NCCL_IB_TC, else 0) lands.
 */
#include "doctor.h"

#include "base/base.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int dr_tclass_parse(const char *s, bool env, struct dr_tclass *tc)
{
	char *end;
	long long v;

	tc->value = 0;
	tc->from = "the tools' default";
	if (!s || (env && !s[0]))
		return 0;
	errno = 0;
	v = strtoll(s, &end, 0);
	if (!env) {
		if (!s[0] || *end || errno || v < 0 || v > 255) {
			rb_usage_err(
			    "invalid value '%s' for --tclass (allowed: a traffic class 0..255, as -T and "
			    "NCCL_IB_TC)",
			    s);
			return -1;
		}
		tc->value = (int)v;
		tc->from = "--tclass";
		return 0;
	}
	/*
	 * $NCCL_IB_TC is judged as NCCL reads it, not refused: strtoll's prefix (0 when
	 * there is none), its default 0 on overflow, and the QP's 8-bit traffic class keeps
	 * the low byte. What differs from the text is said.
	 */
	tc->from = "NCCL_IB_TC";
	if (errno) {
		rb_warn("NCCL_IB_TC='%s' is out of range: NCCL falls back to its default, traffic class 0",
		        s);
		return 0;
	}
	tc->value = (int)((unsigned long long)v & 0xff);
	if (end == s || *end)
		rb_warn(
		    "NCCL_IB_TC='%s' is not a number: NCCL reads %lld from it; judged as traffic class %d", s,
		    v, tc->value);
	else if (v < 0 || v > 255)
		rb_warn(
		    "NCCL_IB_TC=%s is out of 0..255: the QP's 8-bit traffic class keeps %d; judged as that",
		    s, tc->value);
	return 0;
}

/* The lowest traffic class whose DSCP the map sends to a lossless priority; -1 none. */
static int lossless_tclass(const struct rb_dcb *d)
{
	for (unsigned dscp = 0; dscp < 64; dscp++)
		if (d->dscp_prio[dscp] >= 0 && (d->pfc_en & (1u << d->dscp_prio[dscp])))
			return (int)(dscp << 2);
	return -1;
}

static void prio_list(unsigned mask, char *out, size_t cap)
{
	size_t off = 0;

	out[0] = 0;
	for (unsigned p = 0; p < 8 && off < cap; p++)
		if (mask & (1u << p))
			off += (size_t)snprintf(out + off, cap - off, "%s%u", off ? "," : "", p);
}

/* Appends to d->dcb_text, never past its end. */
static void say(struct dr_dev *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(struct dr_dev *d, const char *fmt, ...)
{
	size_t off = strlen(d->dcb_text);
	va_list ap;

	if (off + 1 >= sizeof(d->dcb_text))
		return;
	va_start(ap, fmt);
	vsnprintf(d->dcb_text + off, sizeof(d->dcb_text) - off, fmt, ap);
	va_end(ap);
}

void dr_dcb_judge(struct dr_dev *d, const char *nd, const struct dr_tclass *tc)
{
	struct rb_dcb *b = &d->dcb;
	char on[32], where[200];

	prio_list(b->pfc_en, on, sizeof(on));
	d->dcb_prio = rb_dcb_tclass(b, (unsigned)tc->value, &d->dcb_lossless, where, sizeof(where));
	/* A class can be moved to a lossless priority only through the DSCP map. */
	d->dcb_better = d->dcb_lossless || d->dcb_prio < 0 ? -1 : lossless_tclass(b);
	d->dcb_text[0] = 0;
	if (!b->pfc_known)
		say(d, "DCB on %s: PFC not reported (no IEEE PFC in the reply), trust %s", nd,
		    b->ndscp ? "dscp" : "pcp");
	else
		say(d, "DCB on %s: PFC on %s%s, trust %s", nd, on[0] ? "priorities " : "no priority", on,
		    b->ndscp ? "dscp" : "pcp");
	if (b->ndscp)
		say(d, " (%u DSCP values mapped)", b->ndscp);
	say(d, "; -T %d (%s): %s", tc->value, tc->from, where);
	if (!b->pfc_known || d->dcb_prio < 0)
		return; /* not judged: PFC unknown, or the VLAN tag's priority decides */
	if (!b->pfc_en)
		say(d, ": RoCE here is lossy, a drop costs a go-back-N retransmission");
	else if (d->dcb_better >= 0)
		say(d,
		    ": warning: lands on a lossy priority while PFC protects %s; -T %d (NCCL_IB_TC=%d) is "
		    "DSCP %d, priority %d",
		    on, d->dcb_better, d->dcb_better, d->dcb_better >> 2, b->dscp_prio[d->dcb_better >> 2]);
	else if (!d->dcb_lossless)
		say(d, ": warning: lands on a lossy priority while PFC protects %s, and no DSCP maps there",
		    on);
}

void dr_scan_dcb(const struct dr_roots *r, struct dr_host *h, const struct dr_tclass *tc)
{
	for (int i = 0; i < h->ndevs; i++) {
		struct dr_dev *d = &h->dev[i];
		const char *nd = d->port[0].chosen_gid.ndev[0] ? d->port[0].chosen_gid.ndev : d->netdev;
		int ret;

		d->dcb_state = -1;
		d->dcb_text[0] = 0;
		/* Netlink answers for this host only; a tree has no kernel behind it. */
		if (!r->live || !d->nports || !nd[0] || !d->port[0].transport ||
		    strncmp(d->port[0].transport, "roce", 4))
			continue;
		snprintf(d->dcb_ndev, sizeof(d->dcb_ndev), "%s", nd);
		d->dcb_tclass = *tc;
		ret = rb_dcb_query(nd, &d->dcb);
		if (ret == -EOPNOTSUPP) { /* the kernel's answer for a netdev with no DCB operations */
			d->dcb_state = 0;
			snprintf(
			    d->dcb_text, sizeof(d->dcb_text),
			    "DCB on %s: its driver offers none (no PFC: RoCE here is lossy, a drop costs a "
			    "go-back-N retransmission)",
			    nd);
		} else if (ret) {
			snprintf(d->dcb_text, sizeof(d->dcb_text),
			         "DCB on %s: not read (netlink RTM_GETDCB: %s)", nd, strerror(-ret));
		} else {
			d->dcb_state = 1;
			dr_dcb_judge(d, nd, tc);
		}
	}
}

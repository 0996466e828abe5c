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
	uint64_t tools;
	bool tools_ok;

	tc->value = 0;
	tc->from = "the tools' default";
	if (!s || (env && !s[0]))
		return 0;
	/* The tools' reading (-T and NCCL_IB_TC alike): decimal, 0..255. */
	tools_ok = !rb_parse_u64_range(s, 0, 255, &tools);
	if (!env) {
		if (!tools_ok) {
			rb_usage_err(
			    "invalid value '%s' for --tclass (allowed: a traffic class 0..255, as -T and "
			    "NCCL_IB_TC)",
			    s);
			return -1;
		}
		tc->value = (int)tools;
		tc->from = "--tclass";
		return 0;
	}
	/*
	 * $NCCL_IB_TC is judged as NCCL reads it, not refused: strtoll's prefix in any base
	 * (0 when there is none), its default 0 on overflow, and the QP's 8-bit traffic class
	 * keeps the low byte. Where that is not what rdmabench's tools read, a warning says both.
	 */
	tc->from = "NCCL_IB_TC";
	errno = 0;
	v = strtoll(s, &end, 0);
	if (errno)
		v = 0; /* NCCL's default */
	tc->value = (int)((unsigned long long)v & 0xff);
	if (tools_ok && (uint64_t)tc->value == tools)
		return 0;
	if (errno)
		rb_warn("NCCL_IB_TC='%s' is out of range: NCCL falls back to its default, traffic class 0; "
		        "rdmabench's tools refuse it (exit 2)",
		        s);
	else if (end == s)
		rb_warn("NCCL_IB_TC='%s' is not a number: NCCL reads 0; rdmabench's tools refuse it (exit 2)",
		        s);
	else if (*end)
		rb_warn("NCCL_IB_TC='%s' has characters after %lld: NCCL reads %lld, the traffic class %d; "
		        "rdmabench's tools refuse it (exit 2)",
		        s, v, v, tc->value);
	else if (tools_ok)
		rb_warn("NCCL_IB_TC=%s: NCCL reads %lld (a leading 0 is octal), rdmabench's tools %llu; "
		        "judged as "
		        "NCCL's",
		        s, v, (unsigned long long)tools);
	else
		rb_warn("NCCL_IB_TC=%s: NCCL reads %lld and the QP's 8-bit traffic class keeps %d; "
		        "rdmabench's tools refuse it (exit 2); judged as NCCL's",
		        s, v, tc->value);
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

void dr_dcb_end_of(const struct dr_dev *d, struct dr_dcb_end *e)
{
	e->state = d ? d->dcb_state : -1;
	e->prio = e->state == 1 ? d->dcb_prio : -1;
	e->pfc = e->state == 1 && d->dcb.pfc_known ? (int)(d->dcb.pfc_en & 0xff) : -1;
}

/* 1 lossless, 0 lossy, -1 not judged: an end's word on one class. */
static int end_lossless(const struct dr_dcb_end *e)
{
	if (e->state == 0)
		return 0; /* no DCB: no PFC */
	if (e->state != 1 || e->prio < 0 || e->prio > 7 || e->pfc < 0 || e->pfc > 0xff)
		return -1;
	return (e->pfc >> e->prio) & 1;
}

static void end_text(const struct dr_dcb_end *e, char *out, size_t cap)
{
	int l = end_lossless(e);

	if (e->state == 0)
		snprintf(out, cap, "no DCB (lossy)");
	else if (e->state == DR_DCB_OTHER_CLASS)
		snprintf(out, cap, "judged for another class (a serve that reads no tclass)");
	else if (e->state != 1)
		snprintf(out, cap, "DCB not read");
	else if (l < 0)
		snprintf(out, cap,
		         e->prio < 0 ? "not judged (trust pcp: the VLAN tag's priority decides)"
		                     : "not judged (PFC not reported)");
	else
		snprintf(out, cap, "priority %d, %s", e->prio, l ? "lossless" : "lossy");
}

enum dr_verdict dr_dcb_pair(const struct dr_dcb_end *here, const struct dr_dcb_end *there, int tc,
                            const char *peer, char *text, size_t cap)
{
	int a = end_lossless(here), b = end_lossless(there);
	/* PFC on some priority at an end whose DCB was read: someone meant this fabric to be lossless. */
	bool pfc = (here->state == 1 && here->pfc > 0) || (there->state == 1 && there->pfc > 0);
	char h[80], p[80];

	end_text(here, h, sizeof(h));
	end_text(there, p, sizeof(p));
	if (a < 0 && b < 0) {
		snprintf(text, cap, "-T %d: not judged at either end (here: %s; %s: %s)", tc, h, peer, p);
		return DR_UNKNOWN;
	}
	if (a < 0 || b < 0) {
		snprintf(text, cap, "-T %d: here %s; %s: %s; only one end judged", tc, h, peer, p);
		return DR_OK;
	}
	if (a && b) {
		snprintf(text, cap, "-T %d lands on a lossless priority at both ends (here %s; %s: %s)", tc,
		         h, peer, p);
		return DR_OK;
	}
	if (a != b) {
		snprintf(text, cap,
		         "-T %d is lossless at one end only (here %s; %s: %s): PFC protects one direction; "
		         "give both the same DSCP map and PFC priorities",
		         tc, h, peer, p);
		return DR_WARN;
	}
	if (pfc) {
		snprintf(text, cap,
		         "-T %d lands on a lossy priority at both ends (here %s; %s: %s) while PFC protects "
		         "another: rdma_doctor --tclass on each host names the class that maps there",
		         tc, h, peer, p);
		return DR_WARN;
	}
	snprintf(text, cap,
	         "-T %d: lossy at both ends, no PFC (here %s; %s: %s): a drop costs a go-back-N "
	         "retransmission",
	         tc, h, peer, p);
	return DR_OK;
}

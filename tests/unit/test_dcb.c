/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * DCB netlink, read as a hostile peer wrote it: a reply laid out as the kernel lays out
 * RTM_GETDCB's answer to DCB_CMD_IEEE_GET (PFC on priority 3, DSCP 26 and 46 mapped to
 * priorities 3 and 5) gives the lossless priorities, the trust mode and the map; a
 * traffic class lands where the map says; every truncation and an attribute longer
 * than its message are refused; the kernel's error reply is its error. rdma_doctor's
 * judgement of that reply: a traffic class on the lossless priority, one off it with
 * the class that would land there, and a port with no PFC at all.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "doctor.h"
#include "host/dcb.h"

#include <errno.h>
#include <linux/dcbnl.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>

static uint8_t msg[1024];
static size_t len;

static size_t attr(uint16_t type, const void *data, size_t n)
{
	struct nlattr a = {(uint16_t)(NLA_HDRLEN + n), type};
	size_t at = len;

	memcpy(msg + len, &a, sizeof(a));
	if (n)
		memcpy(msg + len + NLA_HDRLEN, data, n);
	len += NLA_ALIGN(a.nla_len);
	return at;
}

/* A nest's length, once its members are in. */
static void close_nest(size_t at)
{
	uint16_t n = (uint16_t)(len - at);

	memcpy(msg + at, &n, sizeof(n));
}

static void reply(bool with_map)
{
	struct nlmsghdr h = {0};
	struct dcbmsg m = {.dcb_family = AF_UNSPEC, .cmd = DCB_CMD_IEEE_GET};
	struct ieee_pfc pfc = {.pfc_cap = 8, .pfc_en = 1u << 3};
	struct dcb_app a26 = {IEEE_8021QAZ_APP_SEL_DSCP, 3, 26}, a46 = {IEEE_8021QAZ_APP_SEL_DSCP, 5, 46},
	               eth = {IEEE_8021QAZ_APP_SEL_ETHERTYPE, 3, 0x8915},
	               dflt = {IEEE_8021QAZ_APP_SEL_ETHERTYPE, 4, 0}; /* ethertype 0: the default priority */
	size_t ieee, table;

	memset(msg, 0, sizeof(msg));
	len = NLMSG_HDRLEN;
	memcpy(msg + len, &m, sizeof(m));
	len += NLMSG_ALIGN(sizeof(m));
	attr(DCB_ATTR_IFNAME, "eth9", 5);
	ieee = attr(DCB_ATTR_IEEE | NLA_F_NESTED, NULL, 0);
	attr(DCB_ATTR_IEEE_PFC, &pfc, sizeof(pfc));
	table = attr(DCB_ATTR_IEEE_APP_TABLE | NLA_F_NESTED, NULL, 0);
	attr(DCB_ATTR_IEEE_APP, &eth, sizeof(eth));
	attr(DCB_ATTR_IEEE_APP, &dflt, sizeof(dflt));
	if (with_map) {
		attr(DCB_ATTR_IEEE_APP, &a26, sizeof(a26));
		attr(DCB_ATTR_IEEE_APP, &a46, sizeof(a46));
		attr(DCB_ATTR_IEEE_APP, &a26, sizeof(a26)); /* the kernel's table may name one twice */
	}
	close_nest(table);
	close_nest(ieee);
	h.nlmsg_len = (uint32_t)len;
	h.nlmsg_type = RTM_GETDCB;
	memcpy(msg, &h, sizeof(h));
}

static void pfc_and_map(void **state)
{
	struct rb_dcb d;
	bool lossless;
	char why[256];
	(void)state;

	reply(true);
	assert_int_equal(rb_dcb_parse(msg, len, &d), 0);
	assert_true(d.pfc_known && d.pfc_cap == 8 && d.pfc_en == 1u << 3);
	assert_int_equal(d.ndscp, 2); /* DSCP values mapped, each once */
	assert_int_equal(d.dscp_prio[26], 3);
	assert_int_equal(d.dscp_prio[46], 5);
	assert_int_equal(d.dscp_prio[0], -1);
	/* NCCL's usual RoCE class, 106: DSCP 26 */
	assert_int_equal(rb_dcb_tclass(&d, 106, &lossless, why, sizeof(why)), 3);
	assert_true(lossless);
	assert_string_equal(why, "traffic class 106 is DSCP 26, priority 3: lossless (PFC on priorities 3)");
	assert_int_equal(rb_dcb_tclass(&d, 184, &lossless, why, sizeof(why)), 5); /* DSCP 46 */
	assert_false(lossless);
	assert_int_equal(rb_dcb_tclass(&d, 0, &lossless, why, sizeof(why)), 0);
	assert_false(lossless);
	assert_non_null(strstr(why, "DSCP 0, which the DSCP map does not name"));
	/* no DSCP entries: trust pcp, the class decides nothing */
	reply(false);
	assert_int_equal(rb_dcb_parse(msg, len, &d), 0);
	assert_int_equal(d.ndscp, 0);
	assert_int_equal(rb_dcb_tclass(&d, 106, &lossless, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "trust pcp"));
}

/* rdma_doctor's line for a RoCE netdev's DCB: where -T lands, and what to set instead. */
static void doctor_judges(void **state)
{
	static struct dr_dev dev;
	struct dr_tclass nccl = {106, "NCCL_IB_TC"}, none = {0, "the tools' default"};
	(void)state;

	reply(true);
	assert_int_equal(rb_dcb_parse(msg, len, &dev.dcb), 0);
	dr_dcb_judge(&dev, "eth2", &nccl);
	assert_true(dev.dcb_lossless);
	assert_int_equal(dev.dcb_prio, 3);
	assert_int_equal(dev.dcb_better, -1);
	assert_string_equal(dev.dcb_text,
	                    "DCB on eth2: PFC on priorities 3, trust dscp (2 DSCP values mapped); -T 106 "
	                    "(NCCL_IB_TC): traffic class 106 is DSCP 26, priority 3: lossless "
	                    "(PFC on priorities 3)");
	/* The default class lands on priority 0, lossy: the class that DSCP 26 gives is named. */
	dr_dcb_judge(&dev, "eth2", &none);
	assert_false(dev.dcb_lossless);
	assert_int_equal(dev.dcb_better, 104);
	assert_non_null(strstr(dev.dcb_text,
	                       "warning: lands on a lossy priority while PFC protects 3; -T 104 "
	                       "(NCCL_IB_TC=104) is DSCP 26, priority 3"));
	/* No PFC anywhere: lossy, said once, no class to suggest. */
	dev.dcb.pfc_en = 0;
	dr_dcb_judge(&dev, "eth2", &nccl);
	assert_false(dev.dcb_lossless);
	assert_int_equal(dev.dcb_better, -1);
	assert_non_null(strstr(dev.dcb_text, "PFC on no priority"));
	assert_non_null(strstr(dev.dcb_text, "RoCE here is lossy"));
	assert_null(strstr(dev.dcb_text, "warning"));
	/* Trust pcp (no DSCP map): the VLAN tag's priority decides, -T cannot: no warning, no class named. */
	reply(false);
	assert_int_equal(rb_dcb_parse(msg, len, &dev.dcb), 0);
	dr_dcb_judge(&dev, "eth2", &none);
	assert_int_equal(dev.dcb_prio, -1);
	assert_int_equal(dev.dcb_better, -1);
	assert_non_null(strstr(dev.dcb_text, "PFC on priorities 3, trust pcp"));
	assert_null(strstr(dev.dcb_text, "warning"));
	/* No IEEE PFC in the reply: said, not judged lossy. */
	dev.dcb.pfc_known = false;
	dr_dcb_judge(&dev, "eth2", &none);
	assert_non_null(strstr(dev.dcb_text, "PFC not reported"));
	assert_null(strstr(dev.dcb_text, "lossy"));
}

static void hostile(void **state)
{
	struct rb_dcb d;
	struct {
		struct nlmsghdr h;
		struct nlmsgerr e;
	} err = {{sizeof(err), NLMSG_ERROR, 0, 1, 0}, {-EOPNOTSUPP, {0}}};
	(void)state;

	reply(true);
	/* a message that claims more than was read, then each shorter read of it */
	for (size_t n = 0; n < len; n++)
		assert_int_equal(rb_dcb_parse(msg, n, &d), -EPROTO);
	/* an attribute longer than what holds it */
	{
		uint16_t big = 900;
		memcpy(msg + NLMSG_HDRLEN + NLMSG_ALIGN(sizeof(struct dcbmsg)), &big, sizeof(big));
	}
	assert_int_equal(rb_dcb_parse(msg, len, &d), -EPROTO);
	/* the kernel's error reply: its error */
	assert_int_equal(rb_dcb_parse((const uint8_t *)&err, sizeof(err), &d), -EOPNOTSUPP);
	/* the interface of another driver answers: no DCB here (lo: none) */
	assert_true(rb_dcb_query("lo", &d) < 0);
}

/* --tclass is the user's: refused when bad. $NCCL_IB_TC is judged as NCCL reads it. */
static void tclass_as_nccl(void **state)
{
	struct dr_tclass tc;
	(void)state;

	assert_int_equal(dr_tclass_parse("106", false, &tc), 0);
	assert_int_equal(tc.value, 106);
	assert_string_equal(tc.from, "--tclass");
	assert_int_equal(dr_tclass_parse("300", false, &tc), -1);
	assert_int_equal(dr_tclass_parse("106x", false, &tc), -1);
	assert_int_equal(dr_tclass_parse("300", true, &tc), 0); /* the 8-bit field keeps 44 */
	assert_int_equal(tc.value, 44);
	assert_string_equal(tc.from, "NCCL_IB_TC");
	assert_int_equal(dr_tclass_parse("106x", true, &tc), 0); /* strtoll's prefix */
	assert_int_equal(tc.value, 106);
	assert_int_equal(dr_tclass_parse("abc", true, &tc), 0);
	assert_int_equal(tc.value, 0);
	assert_int_equal(dr_tclass_parse("0x68", true, &tc), 0);
	assert_int_equal(tc.value, 104);
	assert_int_equal(dr_tclass_parse("0x68", false, &tc), -1); /* -T reads decimal */
	assert_int_equal(dr_tclass_parse("010", true, &tc), 0);    /* NCCL: octal */
	assert_int_equal(tc.value, 8);
	assert_int_equal(dr_tclass_parse("010", false, &tc), 0);
	assert_int_equal(tc.value, 10);
	assert_int_equal(dr_tclass_parse("-1", true, &tc), 0); /* the low byte */
	assert_int_equal(tc.value, 255);
	assert_int_equal(dr_tclass_parse("", true, &tc), 0); /* empty: NCCL's default */
	assert_int_equal(tc.value, 0);
	assert_int_equal(dr_tclass_parse("99999999999999999999", true, &tc), 0); /* NCCL's default */
	assert_int_equal(tc.value, 0);
	assert_int_equal(dr_tclass_parse(NULL, true, &tc), 0);
	assert_string_equal(tc.from, "the tools' default");
}

/* A triage's two ends: lossless at both, at one only, lossy with PFC elsewhere, no DCB, not read. */
static void pair_of_ends(void **state)
{
	const struct dr_dcb_end lossless3 = {1, 3, 1 << 3}, lossy0 = {1, 0, 1 << 3}, nodcb = {0, -1, -1},
	                        unread = {-1, -1, -1}, pcp = {1, -1, 1 << 3}, nopfc = {1, 0, 0};
	char t[512];
	(void)state;

	assert_int_equal(dr_dcb_pair(&lossless3, &lossless3, 106, "b", t, sizeof(t)), DR_OK);
	assert_string_equal(t,
	                    "-T 106 lands on a lossless priority at both ends (here priority 3, lossless; b: "
	                    "priority 3, lossless)");
	assert_int_equal(dr_dcb_pair(&lossless3, &nodcb, 106, "b", t, sizeof(t)), DR_WARN);
	assert_non_null(strstr(t, "lossless at one end only (here priority 3, lossless; b: no DCB (lossy))"));
	assert_int_equal(dr_dcb_pair(&lossy0, &lossless3, 0, "b", t, sizeof(t)), DR_WARN);
	assert_int_equal(dr_dcb_pair(&lossy0, &lossy0, 0, "b", t, sizeof(t)), DR_WARN);
	assert_non_null(strstr(t, "lossy priority at both ends"));
	assert_int_equal(dr_dcb_pair(&nodcb, &nodcb, 0, "b", t, sizeof(t)), DR_OK);
	assert_non_null(strstr(t, "lossy at both ends, no PFC"));
	assert_int_equal(dr_dcb_pair(&nopfc, &nodcb, 0, "b", t, sizeof(t)), DR_OK);
	assert_int_equal(dr_dcb_pair(&unread, &unread, 0, "b", t, sizeof(t)), DR_UNKNOWN);
	/* a peer that judged another class than ours (an older serve) judged nothing of ours */
	const struct dr_dcb_end other = {DR_DCB_OTHER_CLASS, 3, 1 << 3};
	assert_int_equal(dr_dcb_pair(&lossless3, &other, 106, "b", t, sizeof(t)), DR_OK);
	assert_non_null(
	    strstr(t, "b: judged for another class (a serve that reads no tclass); only one end judged"));
	assert_int_equal(dr_dcb_pair(&pcp, &lossless3, 106, "b", t, sizeof(t)), DR_OK);
	assert_non_null(strstr(t, "trust pcp"));
	assert_non_null(strstr(t, "only one end judged"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(pfc_and_map),    cmocka_unit_test(doctor_judges), cmocka_unit_test(hostile),
	    cmocka_unit_test(tclass_as_nccl), cmocka_unit_test(pair_of_ends),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

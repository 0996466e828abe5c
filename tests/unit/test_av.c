/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The address vector of a connected QP (av.h) on made-up ports: InfiniBand in the
 * same subnet, across subnets, on a port that requires a GRH and with -x given;
 * RoCE v1 and v2; LID 0 on either link layer.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "verbs/av.h"
#include "verbs/cq.h"

#include <errno.h>
#include <string.h>

static const uint8_t subnet_a[8] = {0xfe, 0x80, 0, 0, 0, 0, 0, 0};
static const uint8_t subnet_b[8] = {0xfe, 0x80, 0, 0, 0, 0, 0, 0x2a};

static void gid_in(uint8_t gid[16], const uint8_t prefix[8], uint8_t host)
{
	memcpy(gid, prefix, 8);
	memset(gid + 8, 0, 8);
	gid[8] = 0x0c;
	gid[15] = host;
}

static struct rb_av_port ib_port(void)
{
	struct rb_av_port l = {.port = 1, .lid = 0x11, .gid_index = 0};

	gid_in(l.gid, subnet_a, 1);
	return l;
}

static struct rb_qpinfo ib_peer(const uint8_t prefix[8])
{
	struct rb_qpinfo r = {.qpn = 0x123, .lid = 0x22, .mtu = IBV_MTU_4096};

	gid_in(r.gid, prefix, 2);
	return r;
}

static struct rb_qp_opts opts(unsigned sl, unsigned tclass, unsigned hop)
{
	struct rb_qp_opts o;

	rb_qp_opts_default(&o);
	o.sl = sl;
	o.tclass = tclass;
	o.hop_limit = hop;
	return o;
}

/* One InfiniBand case: our port, a peer in `prefix`, the options; what rb_av_build gave. */
struct ib_case {
	struct rb_av_port l;
	struct rb_qpinfo r;
	struct rb_qp_opts o;
	struct ibv_ah_attr ah;
	struct rb_qp_path p;
};

static struct ib_case ib_case(const uint8_t prefix[8], unsigned sl, unsigned tclass, unsigned hop)
{
	return (struct ib_case){.l = ib_port(), .r = ib_peer(prefix), .o = opts(sl, tclass, hop)};
}

static int build(struct ib_case *c)
{
	return rb_av_build(&c->l, &c->r, &c->o, &c->ah, &c->p);
}

/* The GRH half of ah: present, to the peer's GID, from our index, with the options' fields. */
static void assert_grh(const struct ibv_ah_attr *ah, const struct rb_qpinfo *r, int sgid, unsigned tclass,
                       unsigned hop)
{
	assert_int_equal(ah->is_global, 1);
	assert_memory_equal(ah->grh.dgid.raw, r->gid, 16);
	assert_int_equal(ah->grh.sgid_index, sgid);
	assert_int_equal(ah->grh.traffic_class, tclass);
	assert_int_equal(ah->grh.hop_limit, hop);
}

static void ib_same_subnet_no_grh(void **state)
{
	struct ib_case c = ib_case(subnet_a, 3, 96, 7);
	char buf[64];

	(void)state;
	assert_int_equal(build(&c), 0);
	assert_int_equal(c.ah.is_global, 0);
	assert_int_equal(c.ah.dlid, 0x22);
	assert_int_equal(c.ah.sl, 3);
	assert_int_equal(c.ah.port_num, 1);
	assert_false(c.p.grh);
	assert_string_equal(c.p.grh_why, "same subnet");
	assert_int_equal(c.p.sl, 3);
	/* Nothing carries them: recorded as not applied, and said. */
	assert_int_equal(c.p.tclass, 0);
	assert_int_equal(c.p.hop_limit, 0);
	assert_string_equal(rb_av_unapplied(&c.p, &c.o, buf, sizeof(buf)), " --tclass 96 --hop-limit 7");
	c.o = opts(0, 0, RB_QP_HOP_LIMIT_DEFAULT);
	assert_string_equal(rb_av_unapplied(&c.p, &c.o, buf, sizeof(buf)), "");
}

static void ib_other_subnet_grh(void **state)
{
	struct ib_case c = ib_case(subnet_b, 1, 32, 9);
	char buf[64];

	(void)state;
	assert_int_equal(build(&c), 0);
	assert_grh(&c.ah, &c.r, 0, 32, 9);
	assert_int_equal(c.ah.dlid, 0x22); /* the LRH still needs it */
	assert_true(c.p.grh);
	assert_string_equal(c.p.grh_why, "subnet prefixes differ");
	assert_int_equal(c.p.tclass, 32);
	assert_int_equal(c.p.hop_limit, 9);
	assert_string_equal(rb_av_unapplied(&c.p, &c.o, buf, sizeof(buf)), "");
}

static void ib_grh_required(void **state)
{
	struct ib_case c = ib_case(subnet_a, 0, 0, RB_QP_HOP_LIMIT_DEFAULT);

	(void)state;
	c.l.grh_required = true;
	assert_int_equal(build(&c), 0);
	assert_grh(&c.ah, &c.r, 0, 0, 64);
	assert_string_equal(c.p.grh_why, "the port requires one");
}

static void ib_gid_given(void **state)
{
	struct ib_case c = ib_case(subnet_a, 2, 64, 5);

	(void)state;
	c.l.gid_given = true;
	c.l.gid_index = 1;
	assert_int_equal(build(&c), 0);
	assert_grh(&c.ah, &c.r, 1, 64, 5);
	assert_int_equal(c.ah.sl, 2);
	assert_string_equal(c.p.grh_why, "-x given");
}

/* A peer whose GID is unknown (zero) says nothing about its subnet: no GRH for that. */
static void ib_peer_without_gid(void **state)
{
	struct ib_case c = ib_case(subnet_b, 0, 0, RB_QP_HOP_LIMIT_DEFAULT);

	(void)state;
	memset(c.r.gid, 0, 16);
	assert_int_equal(build(&c), 0);
	assert_false(c.p.grh);
}

/* RoCE v1 and v2 alike: always a GRH from the chosen GID index, never a DLID. */
static void roce_always_grh(void **state)
{
	static const uint8_t v2[16] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 1};
	static const uint8_t v1[16] = {0xfe, 0x80, 0,    0,    0,    0,    0,    0,
	                               0x02, 0x11, 0x22, 0xff, 0xfe, 0x33, 0x44, 0x55};

	(void)state;
	for (int i = 0; i < 2; i++) {
		struct rb_av_port l = {.roce = true, .port = 1, .gid_index = i ? 3 : 0};
		struct rb_qpinfo r = {.qpn = 7, .lid = 0, .mtu = IBV_MTU_1024};
		struct rb_qp_opts o = opts(4, 96, 7);
		struct ibv_ah_attr ah;
		struct rb_qp_path p;

		memcpy(l.gid, i ? v2 : v1, 16);
		memcpy(r.gid, i ? v2 : v1, 16);
		r.gid[15] ^= 1;
		assert_int_equal(rb_av_build(&l, &r, &o, &ah, &p), 0);
		assert_grh(&ah, &r, i ? 3 : 0, 96, 7);
		assert_int_equal(ah.dlid, 0);
		assert_int_equal(ah.sl, 4);
		assert_true(p.grh);
		assert_string_equal(p.grh_why, "RoCE");
		assert_int_equal(p.tclass, 96);
		assert_int_equal(p.hop_limit, 7);
	}
}

/* InfiniBand forwards by the LRH's DLID: LID 0 is unreachable, GRH or not; RoCE has no LIDs. */
static void lid_zero(void **state)
{
	struct ib_case c = ib_case(subnet_b, 0, 0, RB_QP_HOP_LIMIT_DEFAULT);

	(void)state;
	c.r.lid = 0;
	assert_int_equal(build(&c), -EHOSTUNREACH);
	c.l.grh_required = true;
	c.l.gid_given = true;
	assert_int_equal(build(&c), -EHOSTUNREACH);
	c.l.roce = true;
	assert_int_equal(build(&c), 0);
	assert_true(c.p.grh);
}

/* The attributes rdma_init_qp_attr gives for RTR on RoCE: a GRH from the route. */
static struct ibv_qp_attr cm_rtr(void)
{
	struct ibv_qp_attr a;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = IBV_MTU_4096;
	a.ah_attr.is_global = 1;
	a.ah_attr.sl = 5;                  /* rdma_cm's, from the system's ToS */
	a.ah_attr.grh.traffic_class = 106; /* ditto */
	a.ah_attr.grh.hop_limit = 64;      /* the IP route's */
	return a;
}

/* -R: the values given replace rdma_cm's; the defaults keep them; the record follows. */
static void cm_given_values_applied(void **state)
{
	struct rb_qp_opts o = opts(3, 96, 7);
	struct ibv_qp_attr a = cm_rtr();
	struct rb_qp_path p = {0};

	(void)state;
	o.mtu = 1024;
	assert_int_equal(rb_av_cm_adjust(&o, o.tclass, IBV_MTU_1024, &a, &p), 0);
	assert_int_equal(a.ah_attr.sl, 3);
	assert_int_equal(a.ah_attr.grh.traffic_class, 96);
	assert_int_equal(a.ah_attr.grh.hop_limit, 7);
	assert_int_equal(a.path_mtu, IBV_MTU_1024);
	assert_true(p.via_cm && p.grh);
	assert_int_equal(p.sl, 3);
	assert_int_equal(p.tclass, 96);
	assert_int_equal(p.hop_limit, 7);
	assert_int_equal(p.mtu, IBV_MTU_1024);

	/* fifo_pingpong's CTS QP: its own traffic class */
	a = cm_rtr();
	assert_int_equal(rb_av_cm_adjust(&o, 104, IBV_MTU_4096, &a, &p), 0);
	assert_int_equal(a.ah_attr.grh.traffic_class, 104);
	assert_int_equal(p.tclass, 104);
	assert_int_equal(p.mtu, IBV_MTU_4096);
}

static void cm_defaults_keep_cm_choice(void **state)
{
	struct rb_qp_opts o = opts(0, 0, RB_QP_HOP_LIMIT_DEFAULT);
	struct ibv_qp_attr a = cm_rtr();
	struct rb_qp_path p = {0};

	(void)state;
	a.path_mtu = IBV_MTU_1024; /* the route's MTU is below ours: it stays */
	assert_int_equal(rb_av_cm_adjust(&o, 0, IBV_MTU_4096, &a, &p), 0);
	assert_int_equal(a.ah_attr.sl, 5);
	assert_int_equal(a.ah_attr.grh.traffic_class, 106);
	assert_int_equal(p.sl, 5);
	assert_int_equal(p.tclass, 106);
	assert_int_equal(p.hop_limit, 64);
	assert_int_equal(p.mtu, IBV_MTU_1024);
}

/* An IB route without a GRH: --tclass has nowhere to go and is reported as not applied. */
static void cm_no_grh(void **state)
{
	struct rb_qp_opts o = opts(0, 96, RB_QP_HOP_LIMIT_DEFAULT);
	struct ibv_qp_attr a = cm_rtr();
	struct rb_qp_path p = {0};
	char buf[64];

	(void)state;
	a.ah_attr.is_global = 0;
	assert_int_equal(rb_av_cm_adjust(&o, 96, IBV_MTU_4096, &a, &p), 0);
	assert_false(p.grh);
	assert_int_equal(p.tclass, 0);
	assert_string_equal(rb_av_unapplied(&p, &o, buf, sizeof(buf)), " --tclass 96");
}

/* The partition is rdma_cm's: not given or the same index is fine, another (0 too) is refused. */
static void cm_pkey(void **state)
{
	struct rb_qp_opts o = opts(0, 0, RB_QP_HOP_LIMIT_DEFAULT);
	struct ibv_qp_attr a;
	struct rb_qp_path p = {0};

	(void)state;
	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.pkey_index = 2;
	assert_int_equal(rb_av_cm_adjust(&o, 0, IBV_MTU_4096, &a, &p), 0);
	assert_int_equal(p.pkey_index, 2);
	/* Given explicitly, index 0 is a request too (it is not "not given"). */
	o.pkey_index = 0;
	assert_int_equal(rb_av_cm_adjust(&o, 0, IBV_MTU_4096, &a, &p), -EINVAL);
	o.pkey_index = 2;
	assert_int_equal(rb_av_cm_adjust(&o, 0, IBV_MTU_4096, &a, &p), 0);
	o.pkey_index = 3;
	assert_int_equal(rb_av_cm_adjust(&o, 0, IBV_MTU_4096, &a, &p), -EINVAL);
	assert_int_equal(a.pkey_index, 2);
}

/* The control QPs' own class (--fifo-tc) is named when their path cannot carry it. */
static void ctl_class_unapplied(void **state)
{
	struct rb_qp_path no_grh = {.grh = false}, grh = {.grh = true};
	char buf[64];

	(void)state;
	assert_string_equal(rb_av_ctl_unapplied(&no_grh, 104, "--fifo-tc", buf, sizeof(buf)),
	                    " --fifo-tc 104");
	assert_string_equal(rb_av_ctl_unapplied(&grh, 104, "--fifo-tc", buf, sizeof(buf)), "");
	assert_string_equal(rb_av_ctl_unapplied(&no_grh, 0, "--fifo-tc", buf, sizeof(buf)), "");
}

/* Every completion status says what it means and what to check next (cq.h). */
static void wc_explained(void **state)
{
	struct ibv_wc wc = {
	    .status = IBV_WC_REM_INV_REQ_ERR, .vendor_err = 0x8a, .qp_num = 0x11, .wr_id = 316};
	char buf[1024];

	(void)state;
	assert_string_equal(rb_wc_explain(IBV_WC_SUCCESS), "");
	for (int s = IBV_WC_LOC_LEN_ERR; s <= IBV_WC_GENERAL_ERR; s++) {
		const char *why = rb_wc_explain((enum ibv_wc_status)s);
		assert_true(strlen(why) > 30);
		assert_null(strstr(why, "does not know"));
	}
	assert_non_null(strstr(rb_wc_explain((enum ibv_wc_status)99), "does not know"));
	rb_wc_describe(&wc, "RDMA_WRITE", buf, sizeof(buf));
	assert_non_null(strstr(buf, "(IBV_WC_REM_INV_REQ_ERR, status 9), vendor error 0x8a, QPN 0x000011, "
	                            "opcode RDMA_WRITE, wr_id 316: the responder found the request invalid"));
	assert_non_null(strstr(buf, "ib_write_bw with the same flags"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(wc_explained),
	    cmocka_unit_test(ib_same_subnet_no_grh),
	    cmocka_unit_test(ib_other_subnet_grh),
	    cmocka_unit_test(ib_grh_required),
	    cmocka_unit_test(ib_gid_given),
	    cmocka_unit_test(ib_peer_without_gid),
	    cmocka_unit_test(roce_always_grh),
	    cmocka_unit_test(lid_zero),
	    cmocka_unit_test(cm_given_values_applied),
	    cmocka_unit_test(ctl_class_unapplied),
	    cmocka_unit_test(cm_defaults_keep_cm_choice),
	    cmocka_unit_test(cm_no_grh),
	    cmocka_unit_test(cm_pkey),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}

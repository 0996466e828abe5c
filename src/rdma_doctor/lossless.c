/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The triage's RoCE step (rdma_doctor --peer): where the traffic class lands at both
 * ends, this host's DCB (dcb.c) against the facts the peer's serve judged for the same
 * class (its HELLO carried it).
 */
#include "triage.h"
#include "walk.h"

#include <stdio.h>

void dr_dcb_walk(struct dr_walk *w, const struct dr_dev *dev, const struct rb_hello *peer, int tclass)
{
	struct dr_dcb_end here, there;
	char text[512];
	enum dr_verdict v;
	struct dr_json *j;

	dr_dcb_end_of(dev, &here);
	/* The peer's word: a value out of its range is "not read". */
	there.state = (int)dr_fact_long(peer, "dcb_state", -1);
	there.prio = (int)dr_fact_long(peer, "dcb_prio", -1);
	there.pfc = (int)dr_fact_long(peer, "dcb_pfc", -1);
	if (there.state < -1 || there.state > 1 || there.prio < -1 || there.prio > 7 || there.pfc < -1 ||
	    there.pfc > 0xff)
		there = (struct dr_dcb_end){-1, -1, -1};
	/* A serve that judged another class (an older one, which reads no tclass argument) judged nothing of
	 * ours. */
	if (there.state == 1 && dr_fact_long(peer, "dcb_tclass", -1) != tclass)
		there.state = DR_DCB_OTHER_CLASS;
	v = dr_dcb_pair(&here, &there, tclass, peer->host, text, sizeof(text));
	dr_walk_add(w, v, "path", "lossless", "%s", text);
	j = dr_walk_facts(w);
	dr_json_int(j, "tclass", tclass);
	dr_json_int(j, "here_dcb_state", here.state);
	dr_json_int(j, "peer_dcb_state", there.state);
	dr_json_int(j, "here_dcb_priority", here.prio);
	dr_json_int(j, "peer_dcb_priority", there.prio);
	dr_json_int(j, "here_pfc_priorities_mask", here.pfc);
	dr_json_int(j, "peer_pfc_priorities_mask", there.pfc);
}

void dr_lossless_ask(struct rb_hello *h, int tclass)
{
	char tc[8];

	snprintf(tc, sizeof(tc), "%d", tclass);
	rb_hello_arg_add(h, "tclass", tc);
}

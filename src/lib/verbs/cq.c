/* SPDX-License-Identifier: BSD-2-Clause */
#include "cq.h"

#include "base/base.h"

#include <errno.h>
#include <stdio.h>

const char *rb_wc_opcode_name(enum ibv_wc_opcode op)
{
	switch (op) {
	case IBV_WC_SEND: return "SEND";
	case IBV_WC_RDMA_WRITE: return "RDMA_WRITE";
	case IBV_WC_RDMA_READ: return "RDMA_READ";
	case IBV_WC_COMP_SWAP: return "COMP_SWAP";
	case IBV_WC_FETCH_ADD: return "FETCH_ADD";
	case IBV_WC_BIND_MW: return "BIND_MW";
	case IBV_WC_RECV: return "RECV";
	case IBV_WC_RECV_RDMA_WITH_IMM: return "RECV_RDMA_WITH_IMM";
	default: return "OTHER";
	}
}

static const char *status_enum(enum ibv_wc_status s)
{
	static const char *const names[] = {
	    "IBV_WC_SUCCESS",           "IBV_WC_LOC_LEN_ERR",
	    "IBV_WC_LOC_QP_OP_ERR",     "IBV_WC_LOC_EEC_OP_ERR",
	    "IBV_WC_LOC_PROT_ERR",      "IBV_WC_WR_FLUSH_ERR",
	    "IBV_WC_MW_BIND_ERR",       "IBV_WC_BAD_RESP_ERR",
	    "IBV_WC_LOC_ACCESS_ERR",    "IBV_WC_REM_INV_REQ_ERR",
	    "IBV_WC_REM_ACCESS_ERR",    "IBV_WC_REM_OP_ERR",
	    "IBV_WC_RETRY_EXC_ERR",     "IBV_WC_RNR_RETRY_EXC_ERR",
	    "IBV_WC_LOC_RDD_VIOL_ERR",  "IBV_WC_REM_INV_RD_REQ_ERR",
	    "IBV_WC_REM_ABORT_ERR",     "IBV_WC_INV_EECN_ERR",
	    "IBV_WC_INV_EEC_STATE_ERR", "IBV_WC_FATAL_ERR",
	    "IBV_WC_RESP_TIMEOUT_ERR",  "IBV_WC_GENERAL_ERR",
	};
	if ((unsigned)s < sizeof(names) / sizeof(names[0]))
		return names[s];
	return "IBV_WC_?";
}

void rb_wc_describe(const struct ibv_wc *wc, const char *posted_op, char *buf, size_t len)
{
	const char *hint = "";

	/* Where a status usually comes from, for the person reading the log. */
	switch (wc->status) {
	case IBV_WC_RETRY_EXC_ERR: hint = "; the peer stopped acknowledging (link down or peer gone?)"; break;
	case IBV_WC_RNR_RETRY_EXC_ERR: hint = "; the peer posted no receive in time"; break;
	case IBV_WC_REM_ACCESS_ERR: hint = "; remote key, address or access flags rejected"; break;
	case IBV_WC_WR_FLUSH_ERR: hint = "; the QP was already in error"; break;
	default: break;
	}
	snprintf(
	    buf, len,
	    "completion error: %s (%s, status %d), vendor error 0x%x, QPN 0x%06x, opcode %s, wr_id %llu%s",
	    ibv_wc_status_str(wc->status), status_enum(wc->status), (int)wc->status, wc->vendor_err,
	    wc->qp_num, posted_op ? posted_op : rb_wc_opcode_name(wc->opcode), (unsigned long long)wc->wr_id,
	    hint);
}

int rb_cq_poll(struct ibv_cq *cq, struct ibv_wc *wc, int n, const char *posted_op, char *err, size_t errlen)
{
	int got = ibv_poll_cq(cq, n, wc);

	if (got < 0) {
		snprintf(err, errlen, "ibv_poll_cq failed (%d)", got);
		rb_err("%s", err);
		return -EIO;
	}
	for (int i = 0; i < got; i++) {
		if (wc[i].status != IBV_WC_SUCCESS) {
			rb_wc_describe(&wc[i], posted_op, err, errlen);
			rb_err("%s", err);
			return -EIO;
		}
	}
	return got;
}

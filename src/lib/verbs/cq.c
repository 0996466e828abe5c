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

const char *rb_wc_explain(enum ibv_wc_status s)
{
	switch (s) {
	case IBV_WC_SUCCESS: return "";
	case IBV_WC_LOC_LEN_ERR:
		return "a message longer than the receive WR's buffer, or than the port's max_msg_sz: check "
		       "-s against the receive buffers and ibv_devinfo -v's max_msg_sz";
	case IBV_WC_LOC_QP_OP_ERR:
		return "this QP could not execute the WR (too many SGEs, inline data above max_inline_data, "
		       "or the QP not in RTS): check -I and the device's limits";
	case IBV_WC_LOC_EEC_OP_ERR: return "an EE context error, for RD QPs only: a provider fault on RC";
	case IBV_WC_LOC_PROT_ERR:
		return "an SGE's lkey does not cover its address and length, or its MR lacks the access the "
		       "operation needs: a registration fault in this tool (report it)";
	case IBV_WC_WR_FLUSH_ERR:
		return "the QP was already in the error state: the first error completion on it is the cause";
	case IBV_WC_MW_BIND_ERR: return "a memory window bind failed (these tools bind none)";
	case IBV_WC_BAD_RESP_ERR:
		return "the responder answered with an unexpected opcode: check both devices' firmware and "
		       "drivers, and the path for corruption";
	case IBV_WC_LOC_ACCESS_ERR:
		return "a local buffer refused the data of a READ response or atomic (its MR lacks "
		       "LOCAL_WRITE)";
	case IBV_WC_REM_INV_REQ_ERR:
		return "the responder found the request invalid for its QP (an opcode its access flags "
		       "refuse, a length past its max_msg_sz, a path MTU unlike ours, too many READs "
		       "outstanding, or a message's packets out of order): check both sides' -m and whether "
		       "ib_write_bw with the same flags fails the same way";
	case IBV_WC_REM_ACCESS_ERR:
		return "remote key, address or access flags rejected: the peer's buffer, as registered, does "
		       "not take this WRITE (rkey, range or REMOTE_WRITE)";
	case IBV_WC_REM_OP_ERR:
		return "the responder could not complete the operation (its receive buffer too small, or its "
		       "own local error): the peer's log names it";
	case IBV_WC_RETRY_EXC_ERR:
		return "the peer stopped acknowledging within the retries (link down, peer gone, a GID, MTU "
		       "or route mismatch, or a fabric dropping packets): check the link, the peer, "
		       "--qp-timeout and --retry-cnt";
	case IBV_WC_RNR_RETRY_EXC_ERR:
		return "the peer posted no receive in time for a SEND or WRITE_WITH_IMM (receiver not ready, "
		       "retries spent): check the peer's receive depth and --rnr-retry";
	case IBV_WC_LOC_RDD_VIOL_ERR:
	case IBV_WC_REM_INV_RD_REQ_ERR:
	case IBV_WC_INV_EECN_ERR:
	case IBV_WC_INV_EEC_STATE_ERR: return "an RD (reliable datagram) error: a provider fault on RC";
	case IBV_WC_REM_ABORT_ERR:
		return "the responder aborted the operation (its process died or its QP was destroyed "
		       "mid-message)";
	case IBV_WC_FATAL_ERR:
		return "the device hit an unrecoverable error: check dmesg, the port and the firmware";
	case IBV_WC_RESP_TIMEOUT_ERR:
		return "no response in time: the peer or the path stalled (check the peer process and link)";
	case IBV_WC_GENERAL_ERR:
		return "the provider reports an unspecified failure: dmesg and the vendor error name it";
	default: return "a status this build does not know: the vendor error code names it";
	}
}

void rb_wc_describe(const struct ibv_wc *wc, const char *posted_op, char *buf, size_t len)
{
	snprintf(
	    buf, len,
	    "completion error: %s (%s, status %d), vendor error 0x%x, QPN 0x%06x, opcode %s, wr_id %llu: %s",
	    ibv_wc_status_str(wc->status), status_enum(wc->status), (int)wc->status, wc->vendor_err,
	    wc->qp_num, posted_op ? posted_op : rb_wc_opcode_name(wc->opcode), (unsigned long long)wc->wr_id,
	    rb_wc_explain(wc->status));
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
			char full[768];

			/* Said whole; the caller's copy may be shorter. */
			rb_wc_describe(&wc[i], posted_op, full, sizeof(full));
			rb_err("%s", full);
			snprintf(err, errlen, "%s", full);
			return -EIO;
		}
	}
	return got;
}

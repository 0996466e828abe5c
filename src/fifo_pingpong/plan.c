/* SPDX-License-Identifier: BSD-2-Clause */
#include "plan.h"

#include <inttypes.h>

unsigned plan_qps(const struct plan_cfg *c)
{
	return c->split ? c->nqps : 1;
}

uint64_t plan_chunk(const struct plan_cfg *c, unsigned r)
{
	uint64_t nq = plan_qps(c), per = (c->sizes[r] + nq - 1) / nq;

	return (per + PLAN_ALIGN - 1) / PLAN_ALIGN * PLAN_ALIGN;
}

unsigned plan_message(const struct plan_cfg *c, struct plan_wr *out)
{
	unsigned nq = plan_qps(c), n = 0;
	bool extra = c->nreqs > 1 || (c->ar && c->sizes[0] > c->ar_threshold);
	uint32_t imm = c->nreqs == 1 ? (uint32_t)c->sizes[0] : 0;

	for (unsigned q = 0; q < nq; q++) {
		unsigned qp = (c->first + q) % c->nqps;

		for (unsigned r = 0; r < c->nreqs; r++) {
			uint64_t chunk = plan_chunk(c, r), off = q * chunk;
			uint64_t len = off < c->sizes[r] ? c->sizes[r] - off : 0;

			out[n++] = (struct plan_wr){
			    .qp = qp,
			    .op = PLAN_WRITE,
			    .req = (int)r,
			    .offset = off < c->sizes[r] ? off : c->sizes[r],
			    .len = len < chunk ? len : chunk,
			};
		}
		if (extra)
			out[n++] = (struct plan_wr){
			    .qp = qp,
			    .op = PLAN_WRITE_IMM,
			    .req = -1,
			    .sizes = c->nreqs > 1,
			    .len = c->nreqs > 1 ? 4ull * c->nreqs : 0,
			};
		out[n - 1].op = PLAN_WRITE_IMM;
		out[n - 1].signaled = true;
		out[n - 1].imm = imm;
	}
	return n;
}

void plan_explain(FILE *f, const struct plan_cfg *c)
{
	struct plan_wr wr[PLAN_MAX_WRS];
	unsigned n = plan_message(c, wr), nq = plan_qps(c);
	uint64_t total = 0;

	for (unsigned r = 0; r < c->nreqs; r++)
		total += c->sizes[r];
	fprintf(f,
	        "message: %" PRIu64 " B in %u request(s); %u data QP(s), split %s: %u QP(s) used; "
	        "adaptive routing %s (threshold %" PRIu64 " B, split when size > threshold)\n",
	        total, c->nreqs, c->nqps, c->split ? "on" : "off", nq, c->ar ? "on" : "off", c->ar_threshold);
	for (unsigned r = 0; r < c->nreqs; r++)
		fprintf(f,
		        "request %u: %" PRIu64 " B, chunk %" PRIu64 " B (divup(%" PRIu64
		        ", %u) rounded up to %u)\n",
		        r, c->sizes[r], plan_chunk(c, r), c->sizes[r], nq, PLAN_ALIGN);
	for (unsigned i = 0; i < n; i++) {
		const struct plan_wr *w = &wr[i];
		char what[48];

		if (!i || w->qp != wr[i - 1].qp)
			fprintf(f, "QP %u:\n", w->qp);
		if (w->sizes)
			snprintf(what, sizeof(what), "sizes FIFO slot");
		else if (w->req >= 0)
			snprintf(what, sizeof(what), "req %d +%" PRIu64, w->req, w->offset);
		else
			snprintf(what, sizeof(what), "-");
		fprintf(f, "  %-20s %-22s len %-10" PRIu64 " %-10s",
		        w->op == PLAN_WRITE_IMM ? "RDMA_WRITE_WITH_IMM" : "RDMA_WRITE", what, w->len,
		        w->signaled ? "signaled" : "unsignaled");
		if (w->op == PLAN_WRITE_IMM)
			fprintf(f, " imm %u", w->imm);
		fputc('\n', f);
	}
}

/* SPDX-License-Identifier: BSD-2-Clause */
#include "bw_opts.h"

#include <errno.h>
#include <stddef.h>

void bw_opts_default(struct bw_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->tx_depth = 128;
	o->qps = 1;
	o->post_list = 0; /* chosen per size: bw_post_list */
	o->cq_mod = 100;
	o->timeout_s = 10;
	o->threads = 1;
}

/* -n, -D and --run-infinitely: measure's table, in this tool's words. */
const struct rb_runlen_help bw_runlen_help = {
    .iters = "messages per QP per size (default 5000)",
    .forever = "run one size until SIGINT/SIGTERM, a row every --interval (default 5 s)",
};

static const struct rb_opt bw_rows[] = {
    {.name = "tx-depth",
     .key = 't',
     .type = RB_OPT_U32,
     .off = offsetof(struct bw_opts, tx_depth),
     .arg = "N",
     .help = "outstanding WRITEs per QP (default 128; at most the device's max_qp_wr)",
     .min = 1,
     .max = 1u << 24},
    {.name = "rx-depth",
     .key = 'r',
     .type = RB_OPT_U32,
     .off = offsetof(struct bw_opts, rx_depth),
     .arg = "N",
     .help = "--write-with-imm: receives posted per QP (default: tx-depth rounded up to 16, + 16; "
             "fewer makes the sender meet RNR NAKs)",
     .min = 1,
     .max = 1u << 24},
    {.name = "qps",
     .key = 'q',
     .type = RB_OPT_U32,
     .off = offsetof(struct bw_opts, qps),
     .arg = "N",
     .help = "number of QPs (default 1)",
     .min = 1,
     .max = RB_WIRE_MAX_QPS},
    {.name = "post-list",
     .key = 'l',
     .type = RB_OPT_U32,
     .off = offsetof(struct bw_opts, post_list),
     .arg = "N",
     .help = "WRs posted per call (default: 32 for messages up to 8 KiB, at most tx-depth; 1 above)",
     .min = 1,
     .max = 64},
    {.name = "cq-mod",
     .key = 'Q',
     .type = RB_OPT_U32,
     .off = offsetof(struct bw_opts, cq_mod),
     .arg = "N",
     .help = "signal one WR in N (default 100, capped at tx-depth)",
     .min = 1,
     .max = 16384},
    {.name = "inline",
     .key = 'I',
     .type = RB_OPT_U32,
     .off = offsetof(struct bw_opts, inline_bytes),
     .arg = "BYTES",
     .help = "send messages up to BYTES inline (default 0)",
     .max = 1u << 20},
    {.name = "bidirectional",
     .key = 'b',
     .type = RB_OPT_FLAG,
     .off = offsetof(struct bw_opts, bidir),
     .help = "both sides write at once; reports the sum"},
    {.name = "reversed",
     .type = RB_OPT_FLAG,
     .off = offsetof(struct bw_opts, reversed),
     .help = "perftest's: the server sends and the client receives (a server takes it from its client)"},
    {.name = "report-both",
     .type = RB_OPT_FLAG,
     .off = offsetof(struct bw_opts, report_both),
     .help = "with -b: each direction (TX, RX) besides the sum",
     .flags = RB_OPT_LOCAL},
    {.name = "no-peak",
     .key = 'N',
     .type = RB_OPT_FLAG,
     .off = offsetof(struct bw_opts, no_peak),
     .help = "measure no peak (BW peak shows -)"},
    {.name = "write-with-imm",
     .type = RB_OPT_FLAG,
     .off = offsetof(struct bw_opts, imm),
     .help = "use RDMA_WRITE_WITH_IMM (the receiver sees each message)"},
    {.name = "verify",
     .type = RB_OPT_FLAG,
     .off = offsetof(struct bw_opts, verify),
     .help = "receiver checks every message's payload (slower: windows in lockstep)"},
    {.name = "reg-per-iter",
     .type = RB_OPT_FLAG,
     .off = offsetof(struct bw_opts, reg_per_iter),
     .help = "register and deregister the source buffer around every -t messages per QP (no MR "
             "cache); report both times"},
    {.name = "mr_per_qp",
     .type = RB_OPT_FLAG,
     .off = offsetof(struct bw_opts, mr_per_qp),
     .help = "perftest's: a buffer and memory region of its own per QP on each side (default: one "
             "shared by all QPs unless --verify)"},
    {.name = "old-post-send",
     .type = RB_OPT_FLAG,
     .off = offsetof(struct bw_opts, old_post),
     .help = "post with ibv_post_send, not ibv_wr_* (the extended QP interface, used where the "
             "provider has it)",
     .flags = RB_OPT_LOCAL},
    {.name = "threads",
     .type = RB_OPT_U32,
     .off = offsetof(struct bw_opts, threads),
     .arg = "N",
     .help = "post from N threads, each pinned to a CPU of the device's NUMA node, each with QPs "
             "i % N of its own and a send CQ of its own (default 1; at most -q and 64)",
     .min = 1,
     .max = BW_MAX_THREADS,
     .flags = RB_OPT_LOCAL},
    {.name = "cpu-util",
     .type = RB_OPT_FLAG,
     .off = offsetof(struct bw_opts, cpu_util),
     .help = "report this process's CPU use (user+sys)",
     .flags = RB_OPT_LOCAL},
    {.name = "timeout",
     .type = RB_OPT_U32,
     .off = offsetof(struct bw_opts, timeout_s),
     .arg = "SEC",
     .help = "fail when no completion or peer frame arrives for SEC s (default 10)",
     .min = 1,
     .max = 3600,
     .flags = RB_OPT_LOCAL},
    {.name = "cpu-freq-ignore",
     .key = 'F',
     .type = RB_OPT_IGNORE,
     .help = "accepted for perftest compatibility; no effect"},
    {0},
};

struct rb_opt_table bw_opt_table(struct bw_opts *o)
{
	return (struct rb_opt_table){"Test", bw_rows, o, true, NULL};
}

/* Cross-option checks; one line naming the values, exit 2. */
int bw_opts_finish(struct bw_opts *o, bool client)
{
	if (rb_size_opts_resolve(&o->size, 65536, &o->sizes))
		return -EINVAL;
	if (rb_runlen_resolve(&o->len, &o->sizes, DEFAULT_ITERS))
		return -EINVAL;
	if (o->cq_mod > o->tx_depth)
		o->cq_mod = o->tx_depth;
	if (o->reversed && o->bidir) {
		rb_usage_err("--reversed with -b: a bidirectional run sends both ways already");
		return -EINVAL;
	}
	/* A server may preset -r for the clients that will ask for --write-with-imm. */
	if (o->rx_depth && !o->imm && client) {
		rb_usage_err("-r %u sets the receive queue, which only --write-with-imm uses (a WRITE "
		             "consumes no receive)",
		             o->rx_depth);
		return -EINVAL;
	}
	/* A side that only receives posts nothing: its --threads waits for a -b client. */
	bool sends = client != o->reversed || o->bidir;

	if (sends && o->threads > o->qps) {
		rb_usage_err(
		    "--threads %u with -q %u: each posting thread needs a QP of its own (allowed: 1 to "
		    "-q)",
		    o->threads, o->qps);
		return -EINVAL;
	}
	/* Paced: a post list is at most a burst (the bucket never holds more). */
	if (o->pace.rate > 0) {
		uint32_t burst = o->pace.burst ? o->pace.burst : 1;

		if (!o->post_list || o->post_list > burst)
			o->post_list = burst;
	}
	if (o->pace.rate > 0 && o->threads > 1) {
		rb_usage_err("--rate_limit with --threads %u: one bucket paces one posting thread (allowed: "
		             "--threads 1)",
		             o->threads);
		return -EINVAL;
	}
	if (sends && o->threads > 1 && (o->verify || o->reg_per_iter)) {
		rb_usage_err("--threads %u with %s: that step posts from one thread (allowed: --threads 1)",
		             o->threads, o->verify ? "--verify" : "--reg-per-iter");
		return -EINVAL;
	}
	if (o->post_list && o->post_list > o->tx_depth) {
		rb_usage_err("post list %u exceeds tx depth %u (allowed: 1 to tx depth)", o->post_list,
		             o->tx_depth);
		return -EINVAL;
	}
	return 0;
}

/* SPDX-License-Identifier: BSD-2-Clause */
#include "allpairs.h"

#include "base/base.h"

#include <errno.h>
#include <stddef.h>
#include <string.h>

void rb_fabric_opts_default(struct rb_fabric_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->pairs.mode = RB_PAIRS_ALL;
	o->slow = 0.8;
	o->retests = 3;
}

static int parse_dirs(const char *arg, void *dst)
{
	struct rb_pairs_spec *s = dst;

	if (strcmp(arg, "one") && strcmp(arg, "both"))
		return -EINVAL;
	s->dirs = strcmp(arg, "one") ? 2 : 1;
	return 0;
}

static int parse_retests(const char *arg, void *dst)
{
	uint64_t v;

	if (rb_parse_u64(arg, &v) || v > 15)
		return -EINVAL;
	*(uint32_t *)dst = (uint32_t)v;
	return 0;
}

static int parse_seed(const char *arg, void *dst)
{
	struct rb_fab_seed *s = dst;

	if (rb_parse_u64(arg, &s->v))
		return -EINVAL;
	s->set = true;
	return 0;
}

static int parse_pairs(const char *arg, void *dst)
{
	struct rb_fabric_opts *o =
	    (struct rb_fabric_opts *)((char *)dst - offsetof(struct rb_fabric_opts, pairs));

	o->pairs_given = true;
	return rb_pairs_parse(arg, dst);
}

static int parse_pattern(const char *arg, void *dst)
{
	return rb_pattern_parse(arg, dst);
}

static int parse_permute(const char *arg, void *dst)
{
	uint64_t v;

	if (rb_parse_u64(arg, &v) || v < 1 || v > 1000)
		return -EINVAL;
	((struct rb_pattern *)dst)->permute = (uint32_t)v;
	return 0;
}

/* "S:C": two different ranks (below the job's size: the job checks, once it knows it). */
static int parse_victim(const char *arg, void *dst)
{
	struct rb_victim *v = dst;
	const char *colon = strchr(arg, ':');
	char srv[16];
	uint64_t s, c;

	if (!colon || (size_t)(colon - arg) >= sizeof(srv))
		return -EINVAL;
	memcpy(srv, arg, (size_t)(colon - arg));
	srv[colon - arg] = 0;
	if (rb_parse_u64_range(srv, 0, UINT32_MAX - 1, &s) ||
	    rb_parse_u64_range(colon + 1, 0, UINT32_MAX - 1, &c) || s == c)
		return -EINVAL;
	*v = (struct rb_victim){true, (uint32_t)s, (uint32_t)c, 0};
	return 0;
}

static int parse_slow(const char *arg, void *dst)
{
	double v;

	if (rb_parse_double(arg, &v) || !(v > 0 && v < 1))
		return -EINVAL;
	*(double *)dst = v;
	return 0;
}

struct rb_opt_table rb_fabric_opt_table(struct rb_fabric_opts *o)
{
	static const struct rb_opt rows[] = {
	    {.name = "all-pairs",
	     .type = RB_OPT_FLAG,
	     .off = offsetof(struct rb_fabric_opts, all_pairs),
	     .help = "every rank of an mpirun or srun job (PMIx) measures its pairs; rank 0 writes one "
	             "document, the N x N matrix and the slow links",
	     .flags = RB_OPT_LOCAL},
	    {.name = "pairs",
	     .type = RB_OPT_FN,
	     .off = offsetof(struct rb_fabric_opts, pairs),
	     .arg = "MODE",
	     .help = "--all-pairs schedule: all (N-1 rounds), ring (2 or 3 rounds), random:K (K rounds), "
	             "each times --directions (default all)",
	     .fn = parse_pairs,
	     .allowed = RB_PAIRS_ALLOWED,
	     .flags = RB_OPT_LOCAL},
	    {.name = "directions",
	     .type = RB_OPT_FN,
	     .off = offsetof(struct rb_fabric_opts, pairs),
	     .arg = "one|both",
	     .help = "--all-pairs: both measures each pair each way in rounds of their own (twice the "
	             "rounds), so a bad transmit or receive path is seen from both of its ends (default: "
	             "both; one for the ping-pong tools, whose every sample crosses both ways)",
	     .fn = parse_dirs,
	     .allowed = "one or both",
	     .flags = RB_OPT_LOCAL},
	    {.name = "retests",
	     .type = RB_OPT_FN,
	     .off = offsetof(struct rb_fabric_opts, retests),
	     .arg = "R",
	     .help = "--all-pairs: each suspect of a slow or failed pair (a transmit or receive path, a "
	             "link) is re-measured against partners that measured well: confirmed when R re-tests "
	             "in turn are slow, cleared by the first that is not (default 3; 0: no re-tests)",
	     .fn = parse_retests,
	     .allowed = "an integer from 0 to 15",
	     .flags = RB_OPT_LOCAL},
	    {.name = "seed",
	     .type = RB_OPT_FN,
	     .off = offsetof(struct rb_fabric_opts, seed),
	     .arg = "N",
	     .help = "--all-pairs: the seed of --pairs random:K's draw (default: a new one, in the "
	             "documents' meta)",
	     .fn = parse_seed,
	     .allowed = "an integer from 0 to 2^64 - 1",
	     .flags = RB_OPT_LOCAL},
	    {.name = "oob-ifname",
	     .type = RB_OPT_STR,
	     .off = offsetof(struct rb_fabric_opts, oob_ifname),
	     .arg = "LIST",
	     .help = "--all-pairs: the interface whose address each rank publishes, NCCL_SOCKET_IFNAME "
	             "syntax (default $NCCL_SOCKET_IFNAME, else the netdev of the RDMA device's GID, "
	             "else as NCCL: ib*, any but lo and docker, docker, lo)",
	     .flags = RB_OPT_LOCAL},
	    {.name = "slow",
	     .type = RB_OPT_FN,
	     .off = offsetof(struct rb_fabric_opts, slow),
	     .arg = "FRAC",
	     .help = "--all-pairs: a pair is slow below FRAC x the median (above median / FRAC for "
	             "latency), a re-test too (default 0.8)",
	     .fn = parse_slow,
	     .allowed = "a fraction between 0 and 1 (exclusive)",
	     .flags = RB_OPT_LOCAL},
	    {.name = "pattern",
	     .type = RB_OPT_FN,
	     .off = offsetof(struct rb_fabric_opts, pattern),
	     .arg = "P",
	     .help = "under mpirun or srun, the traffic every round runs at once: pairs (--all-pairs' "
	             "schedule, the default), incast:K (K senders to one receiver, which rotates), "
	             "one-to-many:K, bisection (half to half; --permute), all-to-all, ring; each flow its "
	             "row, each round its sum, spread, fairness and starved flows",
	     .fn = parse_pattern,
	     .allowed = RB_PATTERN_ALLOWED,
	     .flags = RB_OPT_LOCAL},
	    {.name = "permute",
	     .type = RB_OPT_FN,
	     .off = offsetof(struct rb_fabric_opts, pattern),
	     .arg = "N",
	     .help = "--pattern bisection: N rounds, the first halving ranks 0..N/2-1 to the rest, the "
	             "others drawn at random from --seed (default 1)",
	     .fn = parse_permute,
	     .allowed = "an integer from 1 to 1000",
	     .flags = RB_OPT_LOCAL},
	    {.name = "victim",
	     .type = RB_OPT_FN,
	     .off = offsetof(struct rb_fabric_opts, victim),
	     .arg = "S:C",
	     .help = "--pattern: a latency run from rank C to rank S (rc_write_lat; socket_bw's ping-pong "
	             "under socket_bw), alone first, then beside every round for -D: its p50 and p99 idle "
	             "and under the pattern",
	     .fn = parse_victim,
	     .allowed = "two different ranks, server:client (as 0:1)",
	     .flags = RB_OPT_LOCAL},
	    {0},
	};
	return (struct rb_opt_table){"All pairs and traffic patterns (mpirun, srun)", rows, o, false, NULL};
}

static void layer_defaults(void *arg)
{
	rb_fabric_opts_default(arg);
}

static struct rb_opt_table layer_table(void *arg)
{
	return rb_fabric_opt_table(arg);
}

/* What does not go with --all-pairs: 1 with it (the job runs the command line), else 0. */
static int layer_check(void *arg, const struct rb_run *r, const struct rb_runlen_opts *len)
{
	const struct rb_fabric_opts *o = arg;
	const bool pattern = o->pattern.kind != RB_PAT_PAIRS;

	if (o->pattern.permute && o->pattern.kind != RB_PAT_BISECTION) {
		rb_usage_err("--permute %u goes with --pattern bisection only (its halvings)",
		             o->pattern.permute);
		return -EINVAL;
	}
	if (o->victim.set && !pattern) {
		rb_usage_err("--victim %u:%u goes with --pattern only (a latency run beside its rounds)",
		             o->victim.server, o->victim.client);
		return -EINVAL;
	}
	if (o->victim.set && !(len->duration_s > 0)) {
		rb_usage_err("--victim %u:%u needs -D: the victim measures for the rounds' duration",
		             o->victim.server, o->victim.client);
		return -EINVAL;
	}
	((struct rb_fabric_opts *)arg)->victim.duration_s = len->duration_s;
	if (!o->all_pairs && !pattern)
		return 0;
	if (pattern && o->pairs_given) {
		rb_usage_err(
		    "--pairs with --pattern: --pairs schedules the pattern 'pairs' (drop one of them)");
		return -EINVAL;
	}
	if (r->client) {
		rb_usage_err(
		    "%s takes no server host (%s): the launcher starts every rank, and they find each other",
		    pattern ? "--pattern" : "--all-pairs", r->host);
		return -EINVAL;
	}
	if (r->oob_opts.bind) {
		rb_usage_err("--bind %s with --all-pairs: every rank would publish that one address; each "
		             "publishes its own hostname",
		             r->oob_opts.bind);
		return -EINVAL;
	}
	if (r->oob_opts.auth_file) {
		rb_usage_err("--auth-key %s with --all-pairs: every pair connection proves the job's own "
		             "cookie, which the launcher hands the ranks",
		             r->oob_opts.auth_file);
		return -EINVAL;
	}
	if (r->oob_opts.persist) {
		rb_usage_err("--all-pairs and --persist: a rank of an all-pairs run serves only the partners "
		             "of its schedule");
		return -EINVAL;
	}
	if (rb_run_repeats(r) > 1) {
		rb_usage_err("--repeat %u with --all-pairs: a pair is measured once; the suspect pairs are "
		             "measured again by the re-tests (--retests)",
		             rb_run_repeats(r));
		return -EINVAL;
	}
	if (len->forever) {
		rb_usage_err("--run-infinitely with --all-pairs: a round would never end (use -D or -n)");
		return -EINVAL;
	}
	return 1;
}

struct rb_run_layer rb_fabric_layer(struct rb_fabric_opts *o)
{
	return (struct rb_run_layer){o, layer_defaults, layer_table, layer_check};
}

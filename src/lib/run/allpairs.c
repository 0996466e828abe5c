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
}

static int parse_pairs(const char *arg, void *dst)
{
	return rb_pairs_parse(arg, dst);
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
	     .help = "--all-pairs schedule: all (N-1 rounds), ring (2 or 3 rounds), random:K (K rounds) "
	             "(default all)",
	     .fn = parse_pairs,
	     .allowed = RB_PAIRS_ALLOWED,
	     .flags = RB_OPT_LOCAL},
	    {.name = "slow",
	     .type = RB_OPT_FN,
	     .off = offsetof(struct rb_fabric_opts, slow),
	     .arg = "FRAC",
	     .help = "--all-pairs: a pair worse than FRAC x the median is slow (default 0.8)",
	     .fn = parse_slow,
	     .allowed = "a fraction between 0 and 1 (exclusive)",
	     .flags = RB_OPT_LOCAL},
	    {0},
	};
	return (struct rb_opt_table){"All pairs (mpirun, srun)", rows, o, false};
}

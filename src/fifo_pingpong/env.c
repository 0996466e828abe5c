/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fifo_pingpong's NCCL_IB_* variables: which option each sets the default of, taken
 * as NCCL takes them, listed where applied, and overridden by the flags.
 */
#include "env.h"

#include "base/base.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An environment variable and the option it sets the default of. */
struct env_var {
	const char *name;
	void *dst;
	enum { ENV_U32, ENV_U64, ENV_INT, ENV_BOOL, ENV_AR } kind;
	uint64_t max;
};

static unsigned env_vars(struct fp *f, struct env_var *v)
{
	unsigned n = 0;

	v[n++] = (struct env_var){"NCCL_IB_QPS_PER_CONNECTION", &f->opt.qps, ENV_U32, PLAN_MAX_QPS};
	v[n++] = (struct env_var){"NCCL_IB_SPLIT_DATA_ON_QPS", &f->opt.split, ENV_BOOL, 1};
	v[n++] = (struct env_var){"NCCL_IB_AR_THRESHOLD", &f->opt.ar_threshold, ENV_U64, 1ull << 30};
	v[n++] = (struct env_var){"NCCL_IB_ADAPTIVE_ROUTING", &f->opt.ar, ENV_AR, 1};
	v[n++] = (struct env_var){"NCCL_IB_FIFO_TC", &f->opt.fifo_tc, ENV_U32, 255};
	v[n++] = (struct env_var){"NCCL_IB_TC", &f->v.qp.tclass, ENV_U32, 255};
	v[n++] = (struct env_var){"NCCL_IB_SL", &f->v.qp.sl, ENV_U32, 15};
	v[n++] = (struct env_var){"NCCL_IB_TIMEOUT", &f->v.qp.timeout, ENV_U32, 31};
	v[n++] = (struct env_var){"NCCL_IB_RETRY_CNT", &f->v.qp.retry_cnt, ENV_U32, 7};
	v[n++] = (struct env_var){"NCCL_IB_GID_INDEX", &f->v.dev.gid_index, ENV_INT, 255};
	return n;
}

static char env_bad[160];

/* Defaults from the environment, as NCCL takes them; what was applied is listed. */
void fp_env_defaults(struct fp *f)
{
	struct env_var v[ENV_MAX];
	unsigned n = env_vars(f, v);

	f->nenv = 0;
	env_bad[0] = 0;
	for (unsigned i = 0; i < n; i++) {
		const char *s = getenv(v[i].name);
		uint64_t x;

		if (!s || !*s)
			continue;
		if (rb_parse_u64(s, &x) || x > v[i].max) {
			if (!env_bad[0])
				snprintf(env_bad, sizeof(env_bad),
				         "%s='%s' (allowed: an integer from 0 to %llu)", v[i].name, s,
				         (unsigned long long)v[i].max);
			continue;
		}
		switch (v[i].kind) {
		case ENV_U32: *(uint32_t *)v[i].dst = (uint32_t)x; break;
		case ENV_U64: *(uint64_t *)v[i].dst = x; break;
		case ENV_INT: *(int *)v[i].dst = (int)x; break;
		case ENV_BOOL: *(bool *)v[i].dst = x != 0; break;
		case ENV_AR: *(const char **)v[i].dst = x ? "on" : "off"; break;
		}
		snprintf(f->env[f->nenv++], sizeof(f->env[0]), "%s=%s", v[i].name, s);
	}
}

/*
 * The flags override: a variable whose option was given is not applied after all.
 * One that is applied counts as given, as NCCL's settings are deliberate: a client
 * sends it to its server like a flag, and a server's own meets a client's.
 */
int fp_env_check(struct fp *f, struct rb_run *r)
{
	struct env_var v[ENV_MAX];
	unsigned n = env_vars(f, v), kept = 0;

	if (env_bad[0]) {
		rb_usage_err("invalid %s", env_bad);
		return -EINVAL;
	}
	for (unsigned e = 0; e < f->nenv; e++) {
		const struct env_var *var = NULL;

		for (unsigned i = 0; i < n; i++)
			if (!strncmp(f->env[e], v[i].name, strlen(v[i].name)) &&
			    f->env[e][strlen(v[i].name)] == '=')
				var = &v[i];
		if (!var || rb_opts_given(&r->given, var->dst))
			continue;
		memmove(f->env[kept], f->env[e], sizeof(f->env[0]));
		/* A flag only travels when set; adaptive routing as the option spells it. */
		if ((var->kind != ENV_BOOL || *(bool *)var->dst) && r->given.n < RB_OPTS_GIVEN_MAX) {
			r->given.dst[r->given.n] = var->dst;
			r->given.val[r->given.n++] =
			    var->kind == ENV_AR ? *(const char **)var->dst : strchr(f->env[kept], '=') + 1;
		}
		kept++;
	}
	f->nenv = kept;
	return 0;
}

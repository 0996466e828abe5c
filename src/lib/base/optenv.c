/* SPDX-License-Identifier: BSD-2-Clause */
/* NCCL's environment as option defaults: the rows' env, read through the rows' own parsers. */
#include "opts_priv.h"

#include "log.h"
#include "parse.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A flag's variable: an integer, 0 off and anything else on (as NCCL reads them). */
static int store_env(const struct rb_opt *o, void *dst, const char *val)
{
	uint64_t v;
	int ret;

	if (o->type != RB_OPT_FLAG)
		return rb_opt_store(o, dst, val);
	if ((ret = rb_parse_u64(val, &v)) == 0)
		*(bool *)dst = v != 0;
	return ret;
}

void rb_opts_env(const struct rb_opt_table *tables, unsigned n, bool nccl, struct rb_opts_env *env)
{
	env->n = 0;
	env->bad_dst = NULL;
	for (unsigned t = 0; t < n; t++)
		for (const struct rb_opt *o = tables[t].rows; o->name; o++) {
			const char *val =
			    o->env && (nccl || !(o->flags & RB_OPT_ENV_NCCL)) ? getenv(o->env) : NULL;
			void *dst = rb_opt_field(&tables[t], o);

			if (!val || !*val)
				continue;
			if (store_env(o, dst, val)) {
				if (!env->bad_dst)
					snprintf(env->bad, sizeof(env->bad),
					         "invalid %s='%s', the default of --%s (allowed: %s)", o->env,
					         val, o->name,
					         o->type == RB_OPT_FLAG ? "an integer, 0 for off"
					                                : rb_opt_allowed(o));
				env->bad_dst = env->bad_dst ? env->bad_dst : dst;
				continue;
			}
			if (env->n < RB_OPTS_ENV_MAX) {
				env->dst[env->n] = dst;
				env->val[env->n] = o->type != RB_OPT_FLAG ? val : *(bool *)dst ? "1" : NULL;
				snprintf(env->set[env->n++], sizeof(env->set[0]), "%s=%s", o->env, val);
			}
		}
}

int rb_opts_env_settle(struct rb_opts_env *env, const struct rb_opts_given *given)
{
	unsigned kept = 0;

	if (env->bad_dst && !rb_opts_given(given, env->bad_dst)) {
		rb_usage_err("%s", env->bad);
		return -EINVAL;
	}
	for (unsigned i = 0; i < env->n; i++) {
		if (rb_opts_given(given, env->dst[i]))
			continue;
		env->dst[kept] = env->dst[i];
		env->val[kept] = env->val[i];
		memmove(env->set[kept++], env->set[i], sizeof(env->set[0]));
	}
	env->n = kept;
	return 0;
}

void rb_opts_env_give(const struct rb_opts_env *env, struct rb_opts_given *given)
{
	for (unsigned i = 0; i < env->n; i++)
		if (env->val[i])
			rb_opts_mark_given(given, env->dst[i], env->val[i]);
}

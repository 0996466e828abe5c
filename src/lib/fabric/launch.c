/* SPDX-License-Identifier: BSD-2-Clause */
#include "launch.h"

#include "base/base.h"
#include "rb_config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#if RB_HAVE_PMIX
#include <pmix.h>

static pmix_proc_t me;

bool rb_launch_available(void)
{
	return true;
}

int rb_launch_init(struct rb_world *w)
{
	pmix_proc_t job;
	pmix_value_t *v = NULL;
	pmix_status_t rc;

	memset(w, 0, sizeof(*w));
	if (!getenv("PMIX_RANK") && !getenv("PMIX_NAMESPACE") && !getenv("PMIX_SERVER_URI41") &&
	    !getenv("PMIX_SERVER_URI4") && !getenv("PMIX_SERVER_URI3") && !getenv("PMIX_SERVER_URI2") &&
	    !getenv("PMIX_SERVER_URI21")) {
		rb_usage_err(
		    "--all-pairs: not started by a launcher (run it under mpirun, or srun --mpi=pmix: "
		    "no PMIx server in the environment)");
		return -ENOENT;
	}
	rc = PMIx_Init(&me, NULL, 0);
	if (rc != PMIX_SUCCESS) {
		rb_usage_err("--all-pairs: PMIx_Init failed: %s (started by mpirun, or srun --mpi=pmix?)",
		             PMIx_Error_string(rc));
		return -ENOENT;
	}
	PMIX_LOAD_PROCID(&job, me.nspace, PMIX_RANK_WILDCARD);
	rc = PMIx_Get(&job, PMIX_JOB_SIZE, NULL, 0, &v);
	if (rc != PMIX_SUCCESS || !v || v->type != PMIX_UINT32) {
		rb_err("--all-pairs: the launcher did not say the job's size: %s", PMIx_Error_string(rc));
		if (v)
			PMIX_VALUE_RELEASE(v);
		PMIx_Finalize(NULL, 0);
		return -EIO;
	}
	w->size = v->data.uint32;
	PMIX_VALUE_RELEASE(v);
	w->rank = me.rank;
	w->up = true;
	return 0;
}

int rb_launch_allgather(struct rb_world *w, const char *key, const char *mine, char (*out)[RB_LAUNCH_VAL_LEN],
                        unsigned timeout_s)
{
	pmix_value_t val;
	pmix_proc_t job;
	pmix_info_t info[2];
	bool collect = true;
	int tmo = (int)timeout_s;
	pmix_status_t rc;

	PMIX_VALUE_CONSTRUCT(&val);
	val.type = PMIX_STRING;
	val.data.string = (char *)mine;
	rc = PMIx_Put(PMIX_GLOBAL, key, &val);
	if (rc == PMIX_SUCCESS)
		rc = PMIx_Commit();
	PMIX_LOAD_PROCID(&job, me.nspace, PMIX_RANK_WILDCARD);
	PMIX_INFO_LOAD(&info[0], PMIX_COLLECT_DATA, &collect, PMIX_BOOL);
	/* Every rank within --oob-timeout, or none waits longer. */
	PMIX_INFO_LOAD(&info[1], PMIX_TIMEOUT, &tmo, PMIX_INT);
	if (rc == PMIX_SUCCESS)
		rc = PMIx_Fence(&job, 1, info, 2);
	if (rc == PMIX_ERR_TIMEOUT) {
		rb_err("--all-pairs: not every rank reached the address exchange within %u s (--oob-timeout)",
		       timeout_s);
		return -ETIMEDOUT;
	}
	if (rc != PMIX_SUCCESS) {
		rb_err("--all-pairs: exchanging addresses through the launcher failed: %s (a rank "
		       "that never started or died?)",
		       PMIx_Error_string(rc));
		return -EIO;
	}
	for (uint32_t r = 0; r < w->size; r++) {
		pmix_proc_t p;
		pmix_value_t *v = NULL;

		PMIX_LOAD_PROCID(&p, me.nspace, r);
		rc = PMIx_Get(&p, key, NULL, 0, &v);
		/* Another rank's value is read as a peer wrote it: a string that fits, or an error. */
		if (rc != PMIX_SUCCESS || !v || v->type != PMIX_STRING || !v->data.string ||
		    strlen(v->data.string) >= RB_LAUNCH_VAL_LEN) {
			rb_err("--all-pairs: rank %u's %s from the launcher is missing or malformed (%s)", r,
			       key, rc == PMIX_SUCCESS ? "not a string that fits" : PMIx_Error_string(rc));
			if (v)
				PMIX_VALUE_RELEASE(v);
			return -EPROTO;
		}
		memcpy(out[r], v->data.string, strlen(v->data.string) + 1);
		PMIX_VALUE_RELEASE(v);
	}
	return 0;
}

void rb_launch_fini(struct rb_world *w)
{
	if (w->up)
		PMIx_Finalize(NULL, 0);
	w->up = false;
}

#else

bool rb_launch_available(void)
{
	return false;
}

int rb_launch_init(struct rb_world *w)
{
	memset(w, 0, sizeof(*w));
	rb_usage_err("--all-pairs needs a launcher binding, and this build has none (PMIx was not found "
	             "when it was built: install libpmix-dev and rebuild)");
	return -ENOTSUP;
}

int rb_launch_allgather(struct rb_world *w, const char *key, const char *mine, char (*out)[RB_LAUNCH_VAL_LEN],
                        unsigned timeout_s)
{
	(void)w, (void)key, (void)mine, (void)out, (void)timeout_s;
	return -ENOTSUP;
}

void rb_launch_fini(struct rb_world *w)
{
	w->up = false;
}

#endif

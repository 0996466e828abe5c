/* SPDX-License-Identifier: BSD-2-Clause */
#include "launch.h"

#include "base/base.h"
#include "rb_config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#if RB_HAVE_PMIX
#include <dlfcn.h>
#include <pmix.h>

/*
 * libpmix is loaded when --all-pairs needs it, not linked: every tool starts on a host
 * without PMIx, and only --all-pairs says it is missing. The build's own copy first
 * (Debian keeps it in a private directory that only an rpath would find), then the
 * loader's search. The types come from pmix.h; only its functions are looked up, never
 * its macros that call into the library (they differ between PMIx releases).
 */
#define LIBPMIX "libpmix.so.2"

struct pmix_api {
	pmix_status_t (*init)(pmix_proc_t *proc, pmix_info_t info[], size_t ninfo);
	pmix_status_t (*finalize)(const pmix_info_t info[], size_t ninfo);
	pmix_status_t (*get)(const pmix_proc_t *proc, const char key[], const pmix_info_t info[],
	                     size_t ninfo, pmix_value_t **val);
	pmix_status_t (*put)(pmix_scope_t scope, const char key[], pmix_value_t *val);
	pmix_status_t (*commit)(void);
	pmix_status_t (*fence)(const pmix_proc_t procs[], size_t nprocs, const pmix_info_t info[],
	                       size_t ninfo);
	const char *(*error_string)(pmix_status_t status);
};
static struct pmix_api px;
static pmix_proc_t me;

/* Loads libpmix once; false after saying why (a usage error: --all-pairs asked for it). */
static bool load_pmix(void)
{
/* The field's offset; the conditional has the compiler check its type against pmix.h (never evaluated). */
#define PX_FIELD(f, fn) (offsetof(struct pmix_api, f) + 0 * sizeof(1 ? px.f : fn))
	static const struct {
		const char *sym;
		size_t off;
	} need[] = {
	    {"PMIx_Init", PX_FIELD(init, PMIx_Init)},
	    {"PMIx_Finalize", PX_FIELD(finalize, PMIx_Finalize)},
	    {"PMIx_Get", PX_FIELD(get, PMIx_Get)},
	    {"PMIx_Put", PX_FIELD(put, PMIx_Put)},
	    {"PMIx_Commit", PX_FIELD(commit, PMIx_Commit)},
	    {"PMIx_Fence", PX_FIELD(fence, PMIx_Fence)},
	    {"PMIx_Error_string", PX_FIELD(error_string, PMIx_Error_string)},
	};
#undef PX_FIELD
	static void *lib;
	const char *why;

	if (lib)
		return true;
	if (RB_PMIX_LIBDIR[0])
		lib = dlopen(RB_PMIX_LIBDIR "/" LIBPMIX, RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		lib = dlopen(LIBPMIX, RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		why = dlerror();
		rb_usage_err("--all-pairs needs " LIBPMIX " (PMIx, the launcher binding), and it cannot be "
		             "loaded here: install libpmix [%s]",
		             why ? why : "not found");
		return false;
	}
	for (size_t i = 0; i < sizeof(need) / sizeof(need[0]); i++) {
		/* dlsym into a function pointer field: POSIX guarantees the conversion. */
		void *p = dlsym(lib, need[i].sym);

		if (!p) {
			rb_usage_err("--all-pairs: " LIBPMIX
			             " has no %s: not a PMIx library this tool can use",
			             need[i].sym);
			dlclose(lib);
			lib = NULL;
			return false;
		}
		memcpy((char *)&px + need[i].off, &p, sizeof(p));
	}
	return true;
}

/* PMIX_VALUE_RELEASE for the types read here, without the library's PMIx_Value_destruct. */
static void value_release(pmix_value_t *v)
{
	if (v && v->type == PMIX_STRING)
		free(v->data.string);
	free(v);
}

/* PMIX_INFO_LOAD for a flag or an int, without the library's PMIx_Info_load. */
static void info_load(pmix_info_t *i, const char *key, pmix_data_type_t type)
{
	memset(i, 0, sizeof(*i));
	snprintf(i->key, sizeof(i->key), "%s", key);
	i->value.type = type;
}

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
	if (!load_pmix())
		return -ENOTSUP;
	rc = px.init(&me, NULL, 0);
	if (rc != PMIX_SUCCESS) {
		rb_usage_err("--all-pairs: PMIx_Init failed: %s (started by mpirun, or srun --mpi=pmix?)",
		             px.error_string(rc));
		return -ENOENT;
	}
	PMIX_LOAD_PROCID(&job, me.nspace, PMIX_RANK_WILDCARD);
	rc = px.get(&job, PMIX_JOB_SIZE, NULL, 0, &v);
	if (rc != PMIX_SUCCESS || !v || v->type != PMIX_UINT32) {
		rb_err("--all-pairs: the launcher did not say the job's size: %s", px.error_string(rc));
		value_release(v);
		px.finalize(NULL, 0);
		return -EIO;
	}
	w->size = v->data.uint32;
	value_release(v);
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
	pmix_status_t rc;

	if (!w->up)
		return -ENOTSUP;
	PMIX_VALUE_CONSTRUCT(&val);
	val.type = PMIX_STRING;
	val.data.string = (char *)mine;
	rc = px.put(PMIX_GLOBAL, key, &val);
	if (rc == PMIX_SUCCESS)
		rc = px.commit();
	PMIX_LOAD_PROCID(&job, me.nspace, PMIX_RANK_WILDCARD);
	info_load(&info[0], PMIX_COLLECT_DATA, PMIX_BOOL);
	info[0].value.data.flag = true;
	/* Every rank within --oob-timeout, or none waits longer. */
	info_load(&info[1], PMIX_TIMEOUT, PMIX_INT);
	info[1].value.data.integer = (int)timeout_s;
	if (rc == PMIX_SUCCESS)
		rc = px.fence(&job, 1, info, 2);
	if (rc == PMIX_ERR_TIMEOUT) {
		rb_err("--all-pairs: not every rank reached the address exchange within %u s (--oob-timeout)",
		       timeout_s);
		return -ETIMEDOUT;
	}
	if (rc != PMIX_SUCCESS) {
		rb_err("--all-pairs: exchanging addresses through the launcher failed: %s (a rank "
		       "that never started or died?)",
		       px.error_string(rc));
		return -EIO;
	}
	for (uint32_t r = 0; r < w->size; r++) {
		pmix_proc_t p;
		pmix_value_t *v = NULL;

		PMIX_LOAD_PROCID(&p, me.nspace, r);
		rc = px.get(&p, key, NULL, 0, &v);
		/* Another rank's value is read as a peer wrote it: a string that fits, or an error. */
		if (rc != PMIX_SUCCESS || !v || v->type != PMIX_STRING || !v->data.string ||
		    strlen(v->data.string) >= RB_LAUNCH_VAL_LEN) {
			rb_err("--all-pairs: rank %u's %s from the launcher is missing or malformed (%s)", r,
			       key, rc == PMIX_SUCCESS ? "not a string that fits" : px.error_string(rc));
			value_release(v);
			return -EPROTO;
		}
		memcpy(out[r], v->data.string, strlen(v->data.string) + 1);
		value_release(v);
	}
	return 0;
}

void rb_launch_fini(struct rb_world *w)
{
	if (w->up)
		px.finalize(NULL, 0);
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

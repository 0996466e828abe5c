/* SPDX-License-Identifier: BSD-2-Clause */
#include "relaxed.h"

#include "base/base.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void rb_relaxed_decide(bool disabled, int probe_err, struct rb_relaxed *out)
{
	out->on = false;
	if (disabled)
		out->why = "--disable-pcie-relaxed";
	else if (probe_err == EINVAL || probe_err == EOPNOTSUPP)
		out->why = "the device refuses the flag";
	else {
		/* Any other failure is the registration's own: the real one will say it. */
		out->on = true;
		out->why = "requested, the default";
	}
}

void rb_relaxed_choose(struct ibv_pd *pd, bool disabled, struct rb_relaxed *out)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	struct ibv_mr *mr;
	void *p = NULL;
	int err = 0;

	if (!disabled && posix_memalign(&p, page, page) == 0) {
		errno = 0;
		mr = ibv_reg_mr(pd, p, page, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_RELAXED_ORDERING);
		err = mr ? 0 : errno ? errno : EINVAL;
		if (mr)
			ibv_dereg_mr(mr);
		free(p);
	}
	rb_relaxed_decide(disabled, err, out);
	if (!disabled && !out->on)
		rb_dbg("IBV_ACCESS_RELAXED_ORDERING refused (%s): registering without it", strerror(err));
}

unsigned rb_relaxed_access(const struct rb_relaxed *r)
{
	return r->on ? IBV_ACCESS_RELAXED_ORDERING : 0;
}

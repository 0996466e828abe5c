/* SPDX-License-Identifier: BSD-2-Clause */
#include "fabmsg.h"
#include "job.h"

#include "base/base.h"

#include <stdlib.h>

int rb_main(const struct rb_tool *tool, void *t, int argc, char **argv)
{
	struct rb_run *r = rb_run_new(argc, argv);
	int code;

	if (!r)
		return RB_EXIT_RUNTIME;
	if (rb_fab_register_msgs()) {
		rb_err("internal error: the --all-pairs frame types clash with another's");
		free(r);
		return RB_EXIT_RUNTIME;
	}
	code = rb_run_start(tool, t, r);
	if (code < 0 && r->fab.all_pairs)
		code = rb_fabric_main(tool, t, r);
	else
		code = rb_run_runs(tool, t, r, code);
	free(r);
	return code;
}

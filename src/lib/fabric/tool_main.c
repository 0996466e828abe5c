/* SPDX-License-Identifier: BSD-2-Clause */
#include "allpairs.h"
#include "fabmsg.h"
#include "job.h"

#include "base/base.h"

#include <stdlib.h>

int rb_main(const struct rb_tool *tool, void *t, int argc, char **argv)
{
	static struct rb_fabric_opts fab; /* --all-pairs: the job's options, parsed by the driver */
	static struct rb_run_layer layer;
	struct rb_run *r = rb_run_new(argc, argv);
	int code;

	if (!r)
		return RB_EXIT_RUNTIME;
	if (rb_fab_register_msgs()) {
		rb_err("internal error: the --all-pairs frame types clash with another's");
		free(r);
		return RB_EXIT_RUNTIME;
	}
	layer = rb_fabric_layer(&fab);
	r->layer = &layer;
	code = rb_run_start(tool, t, r);
	if (code < 0 && r->job)
		code = rb_fabric_main(tool, t, r, &fab);
	else
		code = rb_run_runs(tool, t, r, code);
	free(r);
	return code;
}

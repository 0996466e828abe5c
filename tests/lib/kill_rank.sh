#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# kill_rank.sh COMMAND...: runs COMMAND as this rank; the rank named by $VICTIM (Open
# MPI's or Slurm's rank variable) gets signal $SIG (default KILL) after $AFTER seconds,
# and, when $RESUME is set, SIGCONT $RESUME seconds after that (a host that froze).
r=${OMPI_COMM_WORLD_RANK:-${SLURM_PROCID:-none}}
if [ "$r" = "${VICTIM:-}" ]; then
	(sleep "${AFTER:-1}" && kill -"${SIG:-KILL}" $$ && [ -n "${RESUME:-}" ] && sleep "$RESUME" && kill -CONT $$) &
fi
exec "$@"

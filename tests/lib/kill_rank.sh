#!/bin/sh
# kill_rank.sh COMMAND...: runs COMMAND as this rank; the rank named by $VICTIM
# (Open MPI's or Slurm's rank variable) is killed with SIGKILL after $AFTER seconds.
r=${OMPI_COMM_WORLD_RANK:-${SLURM_PROCID:-none}}
if [ "$r" = "${VICTIM:-}" ]; then
	(sleep "${AFTER:-1}" && kill -9 $$) &
fi
exec "$@"

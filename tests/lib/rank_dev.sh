#!/bin/sh
# SPDX-License-Identifier: BSD-2-Clause
# rank_dev.sh PREFIX PER TOOL ARGS...: TOOL -d DEVS ARGS, where DEVS are the PER devices
# PREFIX<rank x PER> ... PREFIX<rank x PER + PER - 1>, comma-separated (PER > 1: rails);
# the rank from Open MPI's or Slurm's variables: on one host every rank is a node with
# NICs of its own.
prefix=$1
per=$2
tool=$3
shift 3
r=${OMPI_COMM_WORLD_RANK:-${SLURM_PROCID:?no rank in the environment}}
devs=
i=0
while [ "$i" -lt "$per" ]; do
	devs="$devs${devs:+,}$prefix$((r * per + i))"
	i=$((i + 1))
done
exec "$tool" -d "$devs" "$@"

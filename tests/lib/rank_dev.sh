#!/bin/sh
# rank_dev.sh PREFIX TOOL ARGS...: TOOL -d PREFIX<rank> ARGS, the rank from Open MPI's or
# Slurm's variables: on one host every rank is a node with a NIC of its own.
prefix=$1
tool=$2
shift 2
r=${OMPI_COMM_WORLD_RANK:-${SLURM_PROCID:?no rank in the environment}}
exec "$tool" -d "$prefix$r" "$@"

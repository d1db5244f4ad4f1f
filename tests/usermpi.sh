#!/bin/sh
# tests/usermpi.sh N prog args...: run as a user does, plain `mpiexec -n N` with Open MPI's default binding (each
# rank bound to a core at this size); only what root needs is added. Use it for user-facing tests and the demo:
# tests/mpirun.sh's --bind-to none hides what the default binding does to the report.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
n=$1; shift
. "$(dirname "$0")/mpi-session.sh"
exec mpiexec -n "$n" "$@"

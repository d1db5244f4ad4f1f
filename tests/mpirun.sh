#!/bin/sh
# tests/mpirun.sh N prog args...: run an MPI program on N ranks on this machine, whatever its core count.
# Open MPI refuses root without these, needs --oversubscribe beyond the core count, and is 5x slower
# oversubscribed unless ranks yield when idle.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle=${OMPI_MCA_mpi_yield_when_idle:-1}
# no cross-memory attach (not allowed in every container): the shared-memory BTL is vader in Open MPI 4, sm in 5
export OMPI_MCA_btl_vader_single_copy_mechanism=${OMPI_MCA_btl_vader_single_copy_mechanism:-none}
export OMPI_MCA_btl_sm_single_copy_mechanism=${OMPI_MCA_btl_sm_single_copy_mechanism:-none}
export OMPI_MCA_rmaps_base_oversubscribe=1
n=$1; shift
exec mpiexec --oversubscribe --bind-to none -n "$n" "$@"

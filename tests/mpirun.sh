#!/bin/sh
# tests/mpirun.sh N prog args...: run an MPI program on N ranks on this machine, whatever its core count.
# Open MPI refuses root without these, needs --oversubscribe beyond the core count, and is 5x slower
# oversubscribed unless ranks yield when idle. A rank yields only where the ranks outnumber the cores (what Open MPI
# does itself without --oversubscribe): with a core per rank, yielding let the scheduler put both ranks of this
# 2-core VM on one core for a while after one of them had waited, and a solve after a report took 2-4 times as long
# (pcg, 3000 rows per rank: 2.0 ms, now and then 4-9 ms; measured 2026-11-29). tests/run sets it for the suite,
# where two suites share the cores. A value in the environment is kept.
n=$1; shift
. "$(dirname "$0")/mpi-session.sh"
# One rank: the program itself, an MPI singleton that starts no daemon (Open MPI 4's singleton MPI_Init otherwise
# forks an orted: 0.21 s against 0.03, and mpiexec -n 1 costs 0.3 s; the suite runs hundreds of one-rank cases).
# A singleton has no spawn or connect/accept, which nothing here uses. Open MPI 5 starts no daemon for a singleton.
if [ "$n" = 1 ]; then
  export OMPI_MCA_ess_singleton_isolated=${OMPI_MCA_ess_singleton_isolated:-1}
  exec "$@"
fi
if [ -z "${OMPI_MCA_mpi_yield_when_idle:-}" ]; then
  cores=$(nproc 2>/dev/null || echo 1)
  if [ "$n" -gt "$cores" ]; then OMPI_MCA_mpi_yield_when_idle=1; else OMPI_MCA_mpi_yield_when_idle=0; fi
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_mpi_yield_when_idle
# no cross-memory attach (not allowed in every container): the shared-memory BTL is vader in Open MPI 4, sm in 5
export OMPI_MCA_btl_vader_single_copy_mechanism=${OMPI_MCA_btl_vader_single_copy_mechanism:-none}
export OMPI_MCA_btl_sm_single_copy_mechanism=${OMPI_MCA_btl_sm_single_copy_mechanism:-none}
export OMPI_MCA_rmaps_base_oversubscribe=1
exec mpiexec --oversubscribe --bind-to none -n "$n" "$@"

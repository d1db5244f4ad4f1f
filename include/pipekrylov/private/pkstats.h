/*
   Cross-rank statistics of one solve, as reduced by the recorder at the end of KSPSolve: O(iterations) numbers on
   rank 0, never ranks x iterations. This is what the models and the report read.

   The per-iteration statistics over ranks are exact (src/perf/monitor/stats.c: the ranks x iterations records are
   transposed in blocks of iterations with one MPI_Alltoallv, so each rank sorts the full columns of the iterations
   it owns and holds O(iterations + ranks) values; rank 0 gathers only the results). Quantiles interpolate linearly between
   order statistics (numpy's default): level q of P values x_(0) <= ... <= x_(P-1) is x_(h) at h = q (P - 1).
   Variances are population variances (divided by P).

   Scalars are valid on every rank; the arrays only on rank 0 of the KSP's communicator (NULL elsewhere).
*/
#ifndef PKSTATS_H
#define PKSTATS_H

#include <pipekrylov/private/pkrecimpl.h>

#define PK_STATS_NQ 33 /* quantile levels 0, 1/32, ..., 1 of each iteration's time over ranks */

typedef struct _n_PKStats {
  PetscInt    solve;       /* index of the solve for this KSP (0, 1, ...) */
  PetscInt    nits;        /* K: rows (= KSPGetIterationNumber) */
  PetscMPIInt nranks;      /* P */
  PetscInt    nnodes;      /* nodes (MPI_COMM_TYPE_SHARED, or -ksp_perf_node_size) */
  PetscInt    ppn;         /* ranks per node (the largest node) */
  PetscReal   solve_time;  /* KSPSolve wall time, max over ranks (s) */
  PetscReal   setup_time;  /* time in KSPSolve before the first iteration row, max over ranks */
  PetscReal   finish_time; /* time in KSPSolve after the last iteration row, max over ranks */
  /* per iteration k = 0..nits-1: its time over ranks */
  PetscReal *tmin, *tmax, *tmean, *tvar; /* [nits] */
  PetscReal *tq;                         /* [nits][PK_STATS_NQ] quantiles over ranks */
  /* per iteration and phase: mean and max over ranks */
  PetscReal *phase_mean, *phase_max; /* [nits][PK_PHASE_N] */
  /* per iteration: local compute (spmv + pc + vec) over ranks, for the synchronization penalty */
  PetscReal *cmin, *cmax, *cmean, *cmedian; /* [nits] */
  /* non-blocking reductions of the whole solve (set-up and finish included): how many, how many complete before
     their wait on every rank, MPI_Test calls (summed over ranks). Only pipekrylov's solvers report them; PETSc's
     own types give 0. */
  PetscInt nreductions, nearly, ntests;
  PetscInt *itred, *itearly; /* [nits] the same per iteration row (rows only) */
  /* full time series of a few ranks, for the two-sample KS test: sel[j] is the rank, series[j*nits + k].
     Chosen: rank 0, the ranks with the smallest and the largest total iteration time, and another rank on the
     node of the slowest (else of the fastest, else of rank 0) when there is one. */
  PetscInt     nsel;
  PetscMPIInt *sel;
  PetscInt    *sel_node; /* node of each selected rank */
  PetscReal   *series;
  /* pooled sample of all iteration times (a quantile sketch: nits * PK_STATS_NQ points, equally weighted per
     iteration), for the bulk distribution fit: pooled[k * PK_STATS_NQ + j] is iteration k's quantile over ranks at
     level (j + 1/2) / PK_STATS_NQ, so each point stands for 1/PK_STATS_NQ of its mass. Not sorted (sort a copy). */
  PetscInt   npooled;
  PetscReal *pooled;
  /* PAPI counters per iteration (differences over the iteration): mean and max over ranks */
  PetscInt           npapi;
  const char *const *papi_names; /* [npapi], valid until PetscFinalize() */
  PetscReal         *papi_mean, *papi_max; /* [nits][npapi] */
} PKStats;

PETSC_INTERN PetscErrorCode PKStatsDestroy(PKStats *);

#endif

/*
   Cross-rank statistics of one solve, as reduced by the recorder at the end of KSPSolve: O(iterations) numbers on
   rank 0, never ranks x iterations. This is what the models and the report read.
*/
#ifndef PKSTATS_H
#define PKSTATS_H

#include <pipekrylov/private/pkrecimpl.h>

#define PK_STATS_NQ 33 /* quantile levels 0, 1/32, ..., 1 of each iteration's time over ranks */

typedef struct {
  PetscInt    solve;      /* index of the solve for this KSP (0, 1, ...) */
  PetscInt    nits;       /* K: rows (= KSPGetIterationNumber) */
  PetscMPIInt nranks;     /* P */
  PetscInt    nnodes;     /* nodes (MPI_COMM_TYPE_SHARED, or -ksp_perf_node_size) */
  PetscInt    ppn;        /* ranks per node (the largest node) */
  PetscReal   solve_time; /* KSPSolve wall time, max over ranks (s) */
  PetscReal   setup_time; /* time in KSPSolve before the first iteration row, max over ranks */
  /* per iteration k = 0..nits-1: its time over ranks */
  PetscReal *tmin, *tmax, *tmean, *tvar; /* [nits] */
  PetscReal *tq;                         /* [nits][PK_STATS_NQ] quantiles over ranks */
  /* per iteration and phase: mean and max over ranks */
  PetscReal *phase_mean, *phase_max; /* [nits][PK_PHASE_N] */
  /* per iteration: local compute (spmv + pc + vec) over ranks, for the synchronization penalty */
  PetscReal *cmin, *cmax, *cmean, *cmedian; /* [nits] */
  /* non-blocking reductions: how many, how many complete before their wait, MPI_Test calls (summed over ranks,
     counted once per reduction for "early": a reduction is early only if it was early on every rank) */
  PetscInt nreductions, nearly, ntests;
  /* full time series of a few ranks, for the two-sample KS test: sel[j] is the rank, series[j*nits + k] */
  PetscInt     nsel;
  PetscMPIInt *sel;
  PetscInt    *sel_node; /* node of each selected rank */
  PetscReal   *series;
  /* pooled sample of all iteration times (a quantile sketch: nits * PK_STATS_NQ points, equally weighted per
     iteration), for the bulk distribution fit */
  PetscInt   npooled;
  PetscReal *pooled;
} PKStats;

PETSC_INTERN PetscErrorCode PKStatsDestroy(PKStats *);

#endif

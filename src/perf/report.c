/*
   The end-of-solve report of -ksp_perfmodel_view. For now a short measured summary of the solve; the performance
   models' report replaces PKPerfReport (same signature, same viewer).
*/
#include <pipekrylov/private/pkperfimpl.h>

/* The viewer and format of -ksp_perfmodel_view for this KSP (NULL when the option is not given) */
PetscErrorCode PKPerfGetViewer(KSP ksp, PetscViewer *viewer, PetscViewerFormat *format)
{
  PKPerfCtx *c;

  PetscFunctionBegin;
  PetscCall(PKPerfCtxGet(ksp, PETSC_FALSE, &c));
  *viewer = c ? c->viewer : NULL;
  if (format) *format = c ? c->format : PETSC_VIEWER_DEFAULT;
  PetscFunctionReturn(0);
}

PetscErrorCode PKPerfReport(KSP ksp, const PKStats *S)
{
  PetscViewer       v;
  PetscViewerFormat fmt;
  PetscBool         iascii;
  PetscMPIInt       rank;
  KSPType           type;
  PetscInt          K = S->nits;
  PetscReal         ph[PK_PHASE_N] = {0}, tot = 0, summean = 0, summax = 0, med = 0;

  PetscFunctionBegin;
  PetscCall(PKPerfGetViewer(ksp, &v, &fmt));
  if (!v) PetscFunctionReturn(0);
  PetscCall(PetscObjectTypeCompare((PetscObject)v, PETSCVIEWERASCII, &iascii));
  if (!iascii) PetscFunctionReturn(0);
  PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)ksp), &rank));
  if (!rank) { /* the per-iteration arrays live on rank 0 */
    for (PetscInt k = 0; k < K; k++) {
      summean += S->tmean[k];
      summax += S->tmax[k];
      for (int j = 0; j < PK_PHASE_N; j++) ph[j] += S->phase_mean[k * PK_PHASE_N + j];
    }
    for (int j = 0; j < PK_PHASE_N; j++) tot += ph[j];
    if (S->npooled) med = S->pooled[S->npooled / 2];
  }
  PetscCall(KSPGetType(ksp, &type));
  PetscCall(PetscViewerPushFormat(v, fmt));
  PetscCall(PetscViewerASCIIPrintf(v, "pipekrylov performance monitor: KSP %s, solve %" PetscInt_FMT ": %" PetscInt_FMT " iterations on %d ranks (%" PetscInt_FMT " nodes, up to %" PetscInt_FMT " ranks per node)\n", type, S->solve, K, S->nranks, S->nnodes, S->ppn));
  PetscCall(PetscViewerASCIIPrintf(v, "  KSPSolve %.6f s (slowest rank): set-up %.6f s, finish %.6f s (slowest rank)\n", (double)S->solve_time, (double)S->setup_time, (double)S->finish_time));
  if (K) {
    PetscCall(PetscViewerASCIIPrintf(v, "  iterations: sum of the mean over ranks %.6f s, of the max %.6f s; median iteration %.3e s\n", (double)summean, (double)summax, (double)med));
    PetscCall(PetscViewerASCIIPrintf(v, "  phases (mean over ranks):"));
    for (int j = 0; j < PK_PHASE_N; j++) PetscCall(PetscViewerASCIIPrintf(v, " %s %.1f%%", PKPhaseNames[j], tot > 0 ? (double)(100 * ph[j] / tot) : 0.0));
    PetscCall(PetscViewerASCIIPrintf(v, "\n"));
  }
  if (S->nreductions) PetscCall(PetscViewerASCIIPrintf(v, "  non-blocking reductions: %" PetscInt_FMT ", %" PetscInt_FMT " complete before their wait on every rank, %" PetscInt_FMT " MPI_Test calls\n", S->nreductions, S->nearly, S->ntests));
  if (S->npapi && K && !rank) {
    PetscCall(PetscViewerASCIIPrintf(v, "  PAPI per iteration (mean over ranks and iterations):"));
    for (PetscInt j = 0; j < S->npapi; j++) {
      PetscReal m = 0;
      for (PetscInt k = 0; k < K; k++) m += S->papi_mean[k * S->npapi + j];
      PetscCall(PetscViewerASCIIPrintf(v, " %s %.4g", S->papi_names[j], (double)(m / K)));
    }
    PetscCall(PetscViewerASCIIPrintf(v, "\n"));
  }
  PetscCall(PetscViewerPopFormat(v));
  PetscFunctionReturn(0);
}

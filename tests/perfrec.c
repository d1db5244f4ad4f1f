static const char help[] = "Unit test of the recorder's hot-path API (pkrecimpl.h) as our solvers use it, with a synthetic KSP type\n"
                           "'perftest' that marks phases around busy waits and finishes two non-blocking reductions per\n"
                           "iteration with known early flags (rank-dependent) and MPI_Test counts; iteration 4 reports two\n"
                           "iterations at once and the last one breaks down before PKRecIterEnd. Checks PKStats exactly.\n"
                           "  -its <n>   iterations before the breakdown (default 12)\n\n";

#include <pipekrylov.h>
#include <pipekrylov/private/pkrecimpl.h>
#include <petsc/private/kspimpl.h>

static PetscInt fake_its = 12;

static void Busy(PetscLogDouble dt)
{
  PetscLogDouble t0, t;
  PetscTime(&t0);
  do PetscTime(&t);
  while (t - t0 < dt);
}

/* Reduction j of the iteration starting at i was complete before its wait on this rank */
static PetscBool Early(PetscMPIInt rank, PetscInt i, PetscInt j)
{
  return (PetscBool)((rank + i + j) % 3 != 0);
}

static PetscErrorCode KSPPipeGetChunks_Fake(KSP ksp, PetscInt *n)
{
  (void)ksp;
  *n = 1;
  return 0;
}

static PetscErrorCode KSPSolve_Fake(KSP ksp)
{
  PKRec       rec;
  PetscMPIInt rank;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)ksp), &rank));
  PetscCall(PKRecGet(ksp, &rec));
  PetscCheck(rec, PETSC_COMM_SELF, PETSC_ERR_PLIB, "PKRecGet gave no recorder for a recorded solve of our type");
  ksp->its = 0;
  PKRecPhase(rec, PK_PHASE_VEC);
  Busy(20e-6); /* set-up: before the monitor sees iteration 0 */
  PetscCall(KSPMonitor(ksp, 0, 1.0));
  for (PetscInt i = 0; i < fake_its;) {
    PetscInt step = i == 3 ? 2 : 1; /* iteration 4 reports two at once */
    ksp->its      = i + step;
    PKRecPhase(rec, PK_PHASE_SPMV);
    Busy(5e-6);
    PKRecPhase(rec, PK_PHASE_HALO);
    Busy(2e-6);
    PKRecPhase(rec, PK_PHASE_VEC);
    Busy(3e-6);
    for (PetscInt j = 0; j < 2; j++) {
      PKRecOverlapBegin(rec);
      PKRecPhase(rec, PK_PHASE_PC); /* charged to overlap while the reduction is out */
      Busy(4e-6);
      PKRecPhase(rec, PK_PHASE_REDUCE);
      Busy(1e-6);
      PKRecOverlapEnd(rec, Early(rank, i, j), j + 1);
      PKRecPhase(rec, PK_PHASE_VEC);
    }
    PetscCall(KSPMonitor(ksp, ksp->its, 1.0));
    PetscCall(PKRecIterEnd(rec, ksp->its));
    i += step;
  }
  ksp->its++; /* a breakdown inside the next iteration: no PKRecIterEnd */
  PKRecPhase(rec, PK_PHASE_SPMV);
  Busy(3e-6);
  PKRecPhase(rec, PK_PHASE_VEC);
  ksp->reason = KSP_DIVERGED_BREAKDOWN;
  PetscFunctionReturn(0);
}

static PetscErrorCode KSPSetUp_Fake(KSP ksp)
{
  (void)ksp;
  return 0;
}

static PetscErrorCode KSPCreate_Fake(KSP ksp)
{
  PetscFunctionBegin;
  ksp->ops->setup = KSPSetUp_Fake;
  PetscCall(KSPSetSupportedNorm(ksp, KSP_NORM_NONE, PC_LEFT, 1));
  PetscCall(PetscObjectComposeFunction((PetscObject)ksp, "KSPPipeGetChunks_C", KSPPipeGetChunks_Fake));
  ksp->ops->solve         = KSPSolve_Fake;
  ksp->ops->buildsolution = KSPBuildSolutionDefault;
  ksp->ops->buildresidual = KSPBuildResidualDefault;
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  KSP            ksp;
  Mat            A;
  Vec            b, x;
  PetscMPIInt    rank, size;
  const PKStats *S;
  PetscInt       its, red = 0, early = 0;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PipeKrylovInitializePackage());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-its", &fake_its, NULL));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCall(KSPRegister("perftest", KSPCreate_Fake));
  PetscCall(MatCreateConstantDiagonal(PETSC_COMM_WORLD, 4, 4, PETSC_DETERMINE, PETSC_DETERMINE, 1.0, &A));
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecSet(b, 1.0));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, "perftest"));
  PetscCall(KSPSetNormType(ksp, KSP_NORM_NONE));
  {
    PC pc;
    PetscCall(KSPGetPC(ksp, &pc));
    PetscCall(PCSetType(pc, PCNONE));
  }
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPPerfMonitorSet(ksp, PETSC_TRUE));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(KSPPerfMonitorGetStats(ksp, &S));
  PetscCheck(S && S->nits == its && its == fake_its + 1, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Expected %" PetscInt_FMT " rows, got %" PetscInt_FMT, its, S ? S->nits : -1);
  if (!rank) {
    for (PetscInt i = 0; i < fake_its;) {
      PetscInt step = i == 3 ? 2 : 1, k = i + step - 1, want = 0;
      for (PetscInt j = 0; j < 2; j++) {
        PetscBool all = PETSC_TRUE;
        for (PetscMPIInt r = 0; r < size; r++) all = (PetscBool)(all && Early(r, i, j));
        want += all;
      }
      PetscCheck(S->itred[k] == 2 && S->itearly[k] == want, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Row %" PetscInt_FMT ": %" PetscInt_FMT " reductions, %" PetscInt_FMT " early on every rank; expected 2 and %" PetscInt_FMT, k, S->itred[k], S->itearly[k], want);
      PetscCheck(S->phase_max[k * PK_PHASE_N + PK_PHASE_OVERLAP] > 0 && S->phase_max[k * PK_PHASE_N + PK_PHASE_REDUCE] > 0 && S->phase_max[k * PK_PHASE_N + PK_PHASE_PC] == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Row %" PetscInt_FMT ": work during an outstanding reduction must be overlap, its wait reduce", k);
      if (step == 2)
        PetscCheck(S->itred[k - 1] == 0 && PetscAbsReal(S->tmean[k - 1] - S->tmean[k]) < 1e-12 * S->tmean[k] + 1e-15, PETSC_COMM_SELF, PETSC_ERR_PLIB, "A jump of two iterations shares its time evenly and its reductions go to its last row");
      red += 2;
      early += want;
      i += step;
    }
    PetscCheck(S->itred[its - 1] == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "The broken-down iteration finished no reduction");
    PetscCheck(S->nreductions == red && S->nearly == early && S->ntests == 3 * (red / 2) * size, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Totals: %" PetscInt_FMT " reductions, %" PetscInt_FMT " early, %" PetscInt_FMT " tests; expected %" PetscInt_FMT ", %" PetscInt_FMT ", %" PetscInt_FMT, S->nreductions, S->nearly, S->ntests, red, early, 3 * (red / 2) * (PetscInt)size);
    PetscCheck(S->setup_time >= 20e-6, PETSC_COMM_SELF, PETSC_ERR_PLIB, "Set-up before the monitor's iteration 0 is not in the set-up time");
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "perfrec: %" PetscInt_FMT " rows, %" PetscInt_FMT " reductions, %" PetscInt_FMT " early on every rank: OK\n", its, red, early));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(MatDestroy(&A));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(PetscFinalize());
  return 0;
}

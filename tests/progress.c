static const char help[] = "MPI_Test progress chunking: solve a model problem with pipelined types, once with the overlapped\n"
                           "work split into chunks and once without, and compare how many non-blocking reductions had\n"
                           "completed before the solver waited for them (KSPPipeGetOverlapStats, summed over ranks).\n"
                           "Asserts on those counts only, never on times.\n"
                           "  -problem ... (examples/common/problems.h; default poisson27)   -pc_type ... and any -ksp_* option\n"
                           "  -types <pipecg,pipe2cg>   the types to run\n"
                           "  -chunks_on <8>            chunks with progress on;  -chunks_off <1>: without\n"
                           "  -nsolves <3>              solves per setting, alternating (counts are summed)\n"
                           "  -min_early_on <0.5>       with chunks on, more than this fraction must complete before the wait\n"
                           "  -max_late_ratio <0.5>     late fraction on must be below this times the late fraction off\n"
                           "  -late_slack <0>           ... plus this\n"
                           "  -check <true>             false: only print the counts (to choose thresholds)\n\n";

#include <pipekrylov.h>
#include "problems.h"

typedef struct {
  PetscInt n, early, tests;
} Counts;

static PetscErrorCode RunSetting(KSP ksp, PKProblem *p, Vec x, PetscInt chunks, PetscInt nsolves, Counts *c)
{
  PetscInt loc[3] = {0, 0, 0}, n, early, tests;

  PetscFunctionBegin;
  PetscCall(KSPPipeSetChunks(ksp, chunks));
  for (PetscInt s = 0; s < nsolves; s++) {
    KSPConvergedReason reason;
    PetscCall(VecSet(x, 0.0));
    PetscCall(KSPSolve(ksp, p->b, x));
    PetscCall(KSPGetConvergedReason(ksp, &reason));
    PetscCheck(reason > 0, PETSC_COMM_WORLD, PETSC_ERR_NOT_CONVERGED, "solve did not converge: %s", KSPConvergedReasons[reason]);
    PetscCall(KSPPipeGetOverlapStats(ksp, &n, &early, &tests));
    loc[0] += n;
    loc[1] += early;
    loc[2] += tests;
  }
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, loc, 3, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
  c->n     = loc[0];
  c->early = loc[1];
  c->tests = loc[2];
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PKProblem   prob;
  char       *types[8] = {NULL};
  PetscInt    ntypes = 8, chunks_on = 8, chunks_off = 1, nsolves = 3, failures = 0;
  PetscReal   min_early_on = 0.5, max_late_ratio = 0.5, late_slack = 0.0;
  PetscBool   settypes = PETSC_FALSE, check = PETSC_TRUE;
  PetscMPIInt size;
  Vec         x;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PipeKrylovInitializePackage());
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "progress test options", "");
  PetscCall(PetscOptionsStringArray("-types", "pipelined types to run", "", types, &ntypes, &settypes));
  PetscCall(PetscOptionsInt("-chunks_on", "chunks with progress", "", chunks_on, &chunks_on, NULL));
  PetscCall(PetscOptionsInt("-chunks_off", "chunks without progress", "", chunks_off, &chunks_off, NULL));
  PetscCall(PetscOptionsInt("-nsolves", "solves per setting", "", nsolves, &nsolves, NULL));
  PetscCall(PetscOptionsReal("-min_early_on", "least early fraction with chunks on", "", min_early_on, &min_early_on, NULL));
  PetscCall(PetscOptionsReal("-max_late_ratio", "late fraction on / late fraction off must be below this", "", max_late_ratio, &max_late_ratio, NULL));
  PetscCall(PetscOptionsReal("-late_slack", "allow late(on) < max_late_ratio x late(off) + slack", "", late_slack, &late_slack, NULL));
  PetscCall(PetscOptionsBool("-check", "assert (false: print only)", "", check, &check, NULL));
  PetscOptionsEnd();
  PetscCheck(size > 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "Run on several ranks: on one rank every reduction is local and completes at once");
  if (!settypes || !ntypes) {
    PetscCall(PetscStrallocpy("pipecg", &types[0]));
    PetscCall(PetscStrallocpy("pipe2cg", &types[1]));
    ntypes = 2;
  }
  PetscCall(PKProblemCreate(PETSC_COMM_WORLD, NULL, &prob));
  PetscCall(VecDuplicate(prob.b, &x));

  for (PetscInt t = 0; t < ntypes; t++) {
    KSP       ksp;
    Counts    on, off;
    PetscReal fon, foff, lon, loff;
    PetscBool ok = PETSC_TRUE;

    PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
    PetscCall(KSPSetOperators(ksp, prob.A, prob.A));
    PetscCall(KSPSetType(ksp, types[t]));
    PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT));
    PetscCall(KSPSetFromOptions(ksp));
    PetscCall(KSPSetUp(ksp));
    PetscCall(VecSet(x, 0.0));
    PetscCall(KSPSolve(ksp, prob.b, x)); /* warm-up: set-up of the PC and the SpMV outside the counts */
    /* alternate the settings, one solve at a time, so that changes of the machine's load affect both alike */
    on.n = on.early = on.tests = off.n = off.early = off.tests = 0;
    for (PetscInt r = 0; r < nsolves; r++) {
      Counts c;
      PetscCall(RunSetting(ksp, &prob, x, chunks_off, 1, &c));
      off.n += c.n, off.early += c.early, off.tests += c.tests;
      PetscCall(RunSetting(ksp, &prob, x, chunks_on, 1, &c));
      on.n += c.n, on.early += c.early, on.tests += c.tests;
    }
    fon  = on.n ? (PetscReal)on.early / on.n : 0;
    foff = off.n ? (PetscReal)off.early / off.n : 0;
    lon  = 1 - fon;
    loff = 1 - foff;
    if (check) {
      if (!(fon > min_early_on)) ok = PETSC_FALSE;
      if (!(lon < max_late_ratio * loff + late_slack)) ok = PETSC_FALSE;
    }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "progress: %s %-8s ranks %d: chunks %2" PetscInt_FMT ": %5" PetscInt_FMT " of %5" PetscInt_FMT " reductions early (%.2f), %6" PetscInt_FMT " MPI_Test | chunks %2" PetscInt_FMT ": %5" PetscInt_FMT " of %5" PetscInt_FMT " early (%.2f), %6" PetscInt_FMT " MPI_Test | late on/off %.2f\n", ok ? "ok  " : "FAIL", types[t], size, chunks_on, on.early, on.n, (double)fon, on.tests, chunks_off,
                          off.early, off.n, (double)foff, off.tests, loff > 0 ? (double)(lon / loff) : 0.0));
    if (!ok) {
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  FAIL: need early fraction with chunks on > %g and late(on) < %g x late(off) + %g\n", (double)min_early_on, (double)max_late_ratio, (double)late_slack));
      failures++;
    }
    PetscCall(KSPDestroy(&ksp));
    PetscCall(PetscFree(types[t]));
  }
  PetscCall(VecDestroy(&x));
  PetscCall(PKProblemDestroy(&prob));
  PetscCall(PetscFinalize());
  return failures ? 1 : 0;
}

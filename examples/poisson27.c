static const char help[] = "The papers' benchmark: 3-D 27-point Poisson on a DMDA, sized by rows per rank.\n"
                           "Solves with any KSP type (pipekrylov's are registered) and prints the solution error.\n"
                           "  -rows_per_rank <k>   rows per rank, a cube of side k^(1/3) (default 8000 = 20^3)\n"
                           "  -problem <name>      another model problem: laplace2d varcoef convdiff ... (-n size)\n"
                           "  -nsolves <k>         solve k times (warm-up and repeated timings)\n\n";

#include <pipekrylov.h>
#include "problems.h"

int main(int argc, char **argv)
{
  PKProblem   prob;
  KSP         ksp;
  Vec         x;
  PetscInt    its, nsolves = 1, n;
  PetscReal   err;
  PetscLogDouble t0 = 0, t1 = 0;
  KSPConvergedReason reason;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PipeKrylovInitializePackage()); /* this program links pipekrylov; -dll_append is not needed */
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-nsolves", &nsolves, NULL));
  PetscCall(PKProblemCreate(PETSC_COMM_WORLD, NULL, &prob));
  PetscCall(VecDuplicate(prob.b, &x));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, prob.A, prob.A));
  PetscCall(KSPSetType(ksp, KSPPKPCG));
  PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSetUp(ksp));
  for (PetscInt s = 0; s < nsolves; s++) {
    PetscCall(VecSet(x, 0.0));
    PetscCall(PetscTime(&t0));
    PetscCall(KSPSolve(ksp, prob.b, x));
    PetscCall(PetscTime(&t1));
  }
  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCall(PKProblemError(&prob, x, &err));
  PetscCall(VecGetSize(x, &n));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %" PetscInt_FMT " unknowns, %s, %" PetscInt_FMT " iterations, relative error %.3e, KSPSolve %.4f s\n", prob.name, n, KSPConvergedReasons[reason], its, (double)err, t1 - t0));
  PetscCall(VecDestroy(&x));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(PKProblemDestroy(&prob));
  PetscCall(PetscFinalize());
  return 0;
}

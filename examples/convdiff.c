static const char help[] = "Non-symmetric 2-D convection-diffusion, -eps lap u + (w . grad) u, upwinded, on a DMDA (the model\n"
                           "problem of examples/common/problems.c, -problem convdiff). Solves with any KSP type, pgmres by\n"
                           "default (pipekrylov's types are registered), and prints iterations and the solution error.\n"
                           "  -n <64>            grid points per direction\n"
                           "  -eps <0.01>        diffusion;  -wind <1> wind speed;  -rotating  recirculating wind (hard)\n"
                           "  -nsolves <k>       solve k times (warm-up and repeated timings)\n"
                           "  default tolerance -ksp_rtol 1e-8; any -ksp_* and -pc_* option applies\n\n";

#include <pipekrylov.h>
#include "problems.h"

int main(int argc, char **argv)
{
  PKProblem          prob;
  KSP                ksp;
  Vec                x;
  KSPType            type;
  PetscInt           its, nsolves = 1, n;
  PetscReal          err;
  PetscLogDouble     t0 = 0, t1 = 0;
  KSPConvergedReason reason;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PipeKrylovInitializePackage()); /* this program links pipekrylov; -dll_append is not needed */
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-nsolves", &nsolves, NULL));
  PetscCall(PetscOptionsSetValue(NULL, "-problem", "convdiff"));
  PetscCall(PKProblemCreate(PETSC_COMM_WORLD, NULL, &prob));
  PetscCall(VecDuplicate(prob.b, &x));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, prob.A, prob.A));
  PetscCall(KSPSetType(ksp, KSPPKPGMRES));
  PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_DEFAULT, PETSC_DEFAULT, PETSC_DEFAULT));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSetUp(ksp));
  for (PetscInt s = 0; s < nsolves; s++) {
    PetscCall(VecSet(x, 0.0));
    PetscCall(PetscTime(&t0));
    PetscCall(KSPSolve(ksp, prob.b, x));
    PetscCall(PetscTime(&t1));
  }
  PetscCall(KSPGetType(ksp, &type));
  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  PetscCall(PKProblemError(&prob, x, &err));
  PetscCall(VecGetSize(x, &n));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "convdiff: %" PetscInt_FMT " unknowns, %s, %s, %" PetscInt_FMT " iterations, relative error %.3e, KSPSolve %.4f s\n", n, type, KSPConvergedReasons[reason], its, (double)err, t1 - t0));
  PetscCall(VecDestroy(&x));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(PKProblemDestroy(&prob));
  PetscCall(PetscFinalize());
  return 0;
}

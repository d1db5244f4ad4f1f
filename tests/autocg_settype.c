static const char help[] = "An application that sets a KSP type itself after -ksp_type autocg chose one keeps it:\n"
                           "autocg stops switching (with -ksp_autocg_explore 10 it would otherwise try every candidate).\n";

#include <pipekrylov.h>

int main(int argc, char **argv)
{
  Mat      A;
  Vec      x, b;
  KSP      ksp;
  PetscInt n = 400, lo, hi;
  KSPType  type;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PipeKrylovInitializePackage());
  PetscCall(MatCreateAIJ(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, n, n, 3, NULL, 1, NULL, &A));
  PetscCall(MatGetOwnershipRange(A, &lo, &hi));
  for (PetscInt i = lo; i < hi; i++) {
    PetscCall(MatSetValue(A, i, i, 2.0, INSERT_VALUES));
    if (i > 0) PetscCall(MatSetValue(A, i, i - 1, -1.0, INSERT_VALUES));
    if (i < n - 1) PetscCall(MatSetValue(A, i, i + 1, -1.0, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecSet(b, 1.0));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPAUTOCG));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetType(ksp, &type));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "autocg chose %s\n", type));
  PetscCall(KSPSetType(ksp, KSPPKPCG));
  for (int k = 0; k < 3; k++) {
    PetscBool pcg;
    PetscCall(KSPSolve(ksp, b, x));
    PetscCall(PetscObjectTypeCompare((PetscObject)ksp, KSPPKPCG, &pcg));
    PetscCheck(pcg, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "autocg switched away from the type the application set");
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "kept the application's type over 3 solves\n"));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return 0;
}

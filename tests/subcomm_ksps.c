static const char help[] = "Monitored KSPs on overlapping sub-communicators, recorded first in different orders on different ranks.\n"
                           "Three ranks: X = {0, 1}, Y = {1, 2}. Rank 0 solves on X, rank 2 on Y, rank 1 on Y first and then on X,\n"
                           "so rank 0's first recorded KSP is X and rank 1's is Y. The monitor's process-wide set-up (PAPI's event\n"
                           "set) must not communicate over either, and each KSP's ranks must agree on its counters. Prints, on the\n"
                           "first rank of each KSP, its iterations, its PAPI counter count (the same on its ranks) and OK.\n"
                           "  -n <k>  rows per rank (default 200)\n\n";

#include <pipekrylov.h>

/* The 1-D Laplacian, n rows per rank of comm, solved with the monitor on; prefix names the KSP's options */
static PetscErrorCode SolveOn(MPI_Comm comm, const char prefix[], PetscInt n)
{
  Mat            A;
  Vec            x, b;
  KSP            ksp;
  PC             pc;
  PetscInt       lo, hi, N, its, np[2];
  PetscMPIInt    r;
  const PKStats *S;

  PetscFunctionBeginUser;
  PetscCall(MatCreateAIJ(comm, n, n, PETSC_DETERMINE, PETSC_DETERMINE, 3, NULL, 2, NULL, &A));
  PetscCall(MatGetOwnershipRange(A, &lo, &hi));
  PetscCall(MatGetSize(A, &N, NULL));
  for (PetscInt i = lo; i < hi; i++) {
    if (i > 0) PetscCall(MatSetValue(A, i, i - 1, -1.0, INSERT_VALUES));
    if (i < N - 1) PetscCall(MatSetValue(A, i, i + 1, -1.0, INSERT_VALUES));
    PetscCall(MatSetValue(A, i, i, 2.0, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecSet(b, 1.0));
  PetscCall(KSPCreate(comm, &ksp));
  PetscCall(KSPSetOptionsPrefix(ksp, prefix));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPSetType(ksp, KSPCG));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCNONE)); /* unpreconditioned, the 1-D Laplacian takes N / 2 iterations: all 50 asked for */
  PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_DEFAULT, PETSC_DEFAULT, 50));
  PetscCall(KSPPerfMonitorSet(ksp, PETSC_TRUE));
  PetscCall(KSPSetFromOptions(ksp));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPGetIterationNumber(ksp, &its));
  PetscCall(KSPPerfMonitorGetStats(ksp, &S));
  np[0] = S->npapi;
  np[1] = -S->npapi;
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, np, 2, MPIU_INT, MPI_MIN, comm));
  PetscCheck(its == 50, comm, PETSC_ERR_PLIB, "%s: %" PetscInt_FMT " iterations, not the 50 asked for", prefix, its);
  PetscCheck(np[0] == -np[1], comm, PETSC_ERR_PLIB, "%s: the ranks record %" PetscInt_FMT " to %" PetscInt_FMT " PAPI counters", prefix, np[0], -np[1]);
  PetscCallMPI(MPI_Comm_rank(comm, &r));
  if (!r) PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s %" PetscInt_FMT " iterations, %" PetscInt_FMT " PAPI counters on every rank: OK\n", prefix, its, np[0]));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  PetscMPIInt rank, size;
  MPI_Comm    X, Y;
  PetscInt    n = 200;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCheck(size == 3, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "run on 3 ranks, not %d", size);
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCheck(n >= 1 && n <= 1000000, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-n %" PetscInt_FMT ": 1 to 1000000 rows per rank", n);
  PetscCallMPI(MPI_Comm_split(PETSC_COMM_WORLD, rank <= 1 ? 0 : MPI_UNDEFINED, rank, &X));
  PetscCallMPI(MPI_Comm_split(PETSC_COMM_WORLD, rank >= 1 ? 0 : MPI_UNDEFINED, rank, &Y));
  if (rank >= 1) PetscCall(SolveOn(Y, "y_", n));
  if (rank <= 1) PetscCall(SolveOn(X, "x_", n));
  if (X != MPI_COMM_NULL) PetscCallMPI(MPI_Comm_free(&X));
  if (Y != MPI_COMM_NULL) PetscCallMPI(MPI_Comm_free(&Y));
  PetscCall(PetscFinalize());
  return 0;
}

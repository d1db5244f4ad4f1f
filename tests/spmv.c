static const char help[] = "The chunked SpMV equals MatMult bit for bit, for every chunk count from 1 to more than the rows.\n"
                           "  -problem ... (examples/common/problems.h)  -max_chunks <k>  -expect_chunked <bool>\n\n";

#include <pipekrylov.h>
#include "problems.h"

int main(int argc, char **argv)
{
  PKProblem          prob;
  Vec                x, y1, y2;
  PetscRandom        rnd;
  PetscInt           m, maxc = 0, failures = 0, n;
  PetscBool          chunked, expect = PETSC_TRUE;
  const PetscScalar *a1, *a2;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-max_chunks", &maxc, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-expect_chunked", &expect, NULL));
  PetscCall(PKProblemCreate(PETSC_COMM_WORLD, NULL, &prob));
  PetscCall(MatGetLocalSize(prob.A, &m, NULL));
  PetscCall(MPIU_Allreduce(&m, &n, 1, MPIU_INT, MPI_MAX, PETSC_COMM_WORLD));
  if (!maxc) maxc = n + 3; /* beyond the largest local row count */
  PetscCall(MatCreateVecs(prob.A, &x, &y1));
  PetscCall(VecDuplicate(y1, &y2));
  PetscCall(PetscRandomCreate(PETSC_COMM_WORLD, &rnd));
  PetscCall(PetscRandomSetFromOptions(rnd));
  PetscCall(VecSetRandom(x, rnd));
  PetscCall(MatMult(prob.A, x, y1));
  PetscCall(VecGetLocalSize(y1, &m));
  for (PetscInt c = 1; c <= maxc; c = c < 16 ? c + 1 : (c < maxc - 3 ? PetscMin(2 * c, maxc - 3) : c + 1)) {
    PetscInt bad = 0, gbad;
    PetscCall(VecSet(y2, -1.0));
    PetscCall(MatMultPipeChunked(prob.A, x, y2, c, &chunked));
    PetscCall(VecGetArrayRead(y1, &a1));
    PetscCall(VecGetArrayRead(y2, &a2));
    for (PetscInt i = 0; i < m; i++)
      if (memcmp(&a1[i], &a2[i], sizeof(PetscScalar))) bad++;
    PetscCall(VecRestoreArrayRead(y1, &a1));
    PetscCall(VecRestoreArrayRead(y2, &a2));
    PetscCall(MPIU_Allreduce(&bad, &gbad, 1, MPIU_INT, MPI_SUM, PETSC_COMM_WORLD));
    if (gbad || chunked != expect) {
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAIL %s chunks %" PetscInt_FMT ": %" PetscInt_FMT " entries differ from MatMult, chunked %d (expected %d)\n", prob.name, c, gbad, (int)chunked, (int)expect));
      failures++;
    }
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: chunked SpMV (%s) %s MatMult for 1..%" PetscInt_FMT " chunks (largest local row count %" PetscInt_FMT ")\n", prob.name, chunked ? "chunked kernel" : "MatMult fallback", failures ? "FAILS against" : "equals", maxc, n));
  PetscCall(PetscRandomDestroy(&rnd));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y1));
  PetscCall(VecDestroy(&y2));
  PetscCall(PKProblemDestroy(&prob));
  PetscCall(PetscFinalize());
  return failures ? 1 : 0;
}

static const char help[] = "The papers' benchmark: 3-D 27-point Poisson on a DMDA, sized by rows per rank.\n"
                           "Solves with any KSP type (pipekrylov's are registered) and prints the solution error.\n"
                           "  -rows_per_rank <k>   rows per rank, a cube of side k^(1/3) (default 8000 = 20^3)\n"
                           "  -problem <name>      another model problem: laplace2d varcoef convdiff ... (-n size)\n"
                           "  -nsolves <k>         solve k times (warm-up and repeated timings)\n"
                           "  -nodeaware           node-aware DMDA: each node a compact block of the process grid\n"
                           "                       (nodes: -ksp_perf_node_size k, else MPI_COMM_TYPE_SHARED)\n"
                           "  -halo_view           print the operator's halo messages per SpMV, on and off node\n\n";

#include <pipekrylov.h>
#include "problems.h"

int main(int argc, char **argv)
{
  PKProblem          prob;
  KSP                ksp;
  Vec                x;
  PetscInt           its, nsolves = 1, n;
  PetscBool          halo_view = PETSC_FALSE;
  MPI_Comm           comm;
  PetscReal          err;
  PetscLogDouble     t0 = 0, t1 = 0;
  KSPConvergedReason reason;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PipeKrylovInitializePackage()); /* this program links pipekrylov; -dll_append is not needed */
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-nsolves", &nsolves, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-halo_view", &halo_view, NULL));
  PetscCall(PKProblemCreate(PETSC_COMM_WORLD, NULL, &prob));
  /* with -nodeaware the problem lives on a reordered communicator: everything else is built on the operator's */
  comm = PetscObjectComm((PetscObject)prob.A);
  if (halo_view) {
    PKHaloCounts hc;
    PetscInt     m, nn, p;
    PetscCall(DMDAGetInfo(prob.da, NULL, NULL, NULL, NULL, &m, &nn, &p, NULL, NULL, NULL, NULL, NULL, NULL));
    PetscCall(PKMatGetHaloCounts(prob.A, NULL, &hc));
    PetscCall(PetscPrintf(comm, "halo per SpMV: process grid %" PetscInt_FMT " x %" PetscInt_FMT " x %" PetscInt_FMT ", %d nodes; on-node %" PetscInt64_FMT " messages %" PetscInt64_FMT " bytes; off-node %" PetscInt64_FMT " messages %" PetscInt64_FMT " bytes; at most %" PetscInt_FMT " messages per rank\n", m, nn, p, hc.nnodes, hc.msgs_on_total, hc.bytes_on_total, hc.msgs_off_total, hc.bytes_off_total, hc.msgs_max));
  }
  PetscCall(VecDuplicate(prob.b, &x));
  PetscCall(KSPCreate(comm, &ksp));
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
  PetscCall(PetscPrintf(comm, "%s: %" PetscInt_FMT " unknowns, %s, %" PetscInt_FMT " iterations, relative error %.3e, KSPSolve %.4f s\n", prob.name, n, KSPConvergedReasons[reason], its, (double)err, t1 - t0));
  PetscCall(VecDestroy(&x));
  PetscCall(KSPDestroy(&ksp));
  PetscCall(PKProblemDestroy(&prob));
  PetscCall(PetscFinalize());
  return 0;
}

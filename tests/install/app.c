/* The installed API: includes only pipekrylov.h, calls every public function, reads fields of the statistics.
   Built by tests/suites/70-install.sh with `pkg-config --cflags --libs pipekrylov` against `make install`. */
#include <pipekrylov.h>

int main(int argc, char **argv)
{
  KSP            ksp;
  PC             pc;
  Mat            A;
  Vec            b, x, y;
  PetscInt       n = 100, chunks, nnb, nearly, ntests, nits, Istart, Iend;
  PetscReal      setup, iters, finish;
  PetscBool      ours, chunked;
  const PKStats *S;
  char           version[64];

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscDLLibraryRegister_pipekrylov());
  PetscCall(PipeKrylovInitializePackage());
  PetscCall(PipeKrylovGetVersion(version, sizeof(version)));
  /* a 1-D Laplacian */
  PetscCall(MatCreateAIJ(PETSC_COMM_WORLD, PETSC_DECIDE, PETSC_DECIDE, n, n, 3, NULL, 2, NULL, &A));
  PetscCall(MatGetOwnershipRange(A, &Istart, &Iend));
  for (PetscInt i = Istart; i < Iend; i++) {
    if (i > 0) PetscCall(MatSetValue(A, i, i - 1, -1.0, INSERT_VALUES));
    if (i < n - 1) PetscCall(MatSetValue(A, i, i + 1, -1.0, INSERT_VALUES));
    PetscCall(MatSetValue(A, i, i, 2.0, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatCreateVecs(A, &x, &b));
  PetscCall(VecDuplicate(b, &y));
  PetscCall(VecSet(b, 1.0));
  PetscCall(MatMultPipeChunked(A, b, y, 4, &chunked));
  PetscCall(KSPCreate(PETSC_COMM_WORLD, &ksp));
  PetscCall(KSPSetOperators(ksp, A, A));
  PetscCall(KSPGetPC(ksp, &pc));
  PetscCall(PCSetType(pc, PCJACOBI));
  PetscCall(KSPSetType(ksp, KSPPKPIPECG));
  PetscCall(KSPPipeCGSetReplacement(ksp, 50));
  PetscCall(KSPPipeCGSetRecompute(ksp, PETSC_TRUE));
  PetscCall(KSPPipe2CGSetReplacement(ksp, 50)); /* ignored by pipecg */
  PetscCall(KSPPipe2CGSetRecompute(ksp, PETSC_FALSE));
  PetscCall(KSPPipeSetChunks(ksp, 4));
  PetscCall(KSPPipeGetChunks(ksp, &chunks));
  PetscCall(KSPPipeIsPipeKrylov(ksp, &ours));
  PetscCall(KSPPerfMonitorSet(ksp, PETSC_TRUE));
  { /* noise injection: light (10 us at 100 Hz) and on rank 0 only */
    const PetscInt r0 = 0;
    PetscCall(KSPPerfNoiseSet(ksp, 10.0, 100.0, 7));
    PetscCall(KSPPerfNoiseSetRanks(ksp, 1, &r0));
  }
  PetscCall(KSPSetTolerances(ksp, 1e-8, PETSC_DEFAULT, PETSC_DEFAULT, 500));
  PetscCall(KSPSolve(ksp, b, x));
  PetscCall(KSPPipeGetOverlapStats(ksp, &nnb, &nearly, &ntests));
  PetscCall(KSPPerfMonitorGetStats(ksp, &S));
  PetscCall(KSPPerfMonitorGetTimes(ksp, &nits, &setup, &iters, &finish));
  {
    PetscInt  ndet, nmpi;
    PetscReal wall, cpu;
    PetscCall(KSPPerfNoiseGetCounts(ksp, &ndet, &wall, &cpu, &nmpi));
    PetscCheck(ndet >= 0 && wall >= 0 && cpu >= 0 && nmpi == 0, PETSC_COMM_SELF, PETSC_ERR_PLIB, "unexpected noise counts");
  }
  PetscCheck(S && S->nits == nits && S->nits > 0 && S->solve_time > 0 && chunks == 4 && ours && S->nranks >= 1, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "unexpected results");
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: chunked %d, %" PetscInt_FMT " iterations, %" PetscInt_FMT " non-blocking reductions, KSPSolve %.3g s on %d ranks (%d phases)\n", version, (int)chunked, S->nits, nnb, (double)S->solve_time, (int)S->nranks, (int)PK_PHASE_N));
  PetscCall(KSPDestroy(&ksp));
  { /* node-aware placement and halo accounting (src/dm) */
    PetscMPIInt  nnodes, *rank_node, size;
    PetscInt     M[3] = {64, 64, 1}, procs[3], procs_out[3], node, slot;
    PKPlacement  pl;
    PKHaloCounts hc;
    MPI_Comm     nc;
    DM           da;
    PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
    PetscCall(PKCommGetNodes(PETSC_COMM_WORLD, 1, &nnodes, &rank_node));
    {
      PetscMPIInt most;
      PetscCall(PKNodesGetSizes(size, nnodes, rank_node, NULL, &most));
      PetscCheck(most == 1, PETSC_COMM_WORLD, PETSC_ERR_PLIB, "one rank a node (node size 1), not %d", most);
    }
    PetscCall(PKMatGetHaloCounts(A, rank_node, &hc));
    PetscCall(PetscFree(rank_node));
    PetscCall(PKDMDADefaultProcs(2, M, size, NULL, procs));
    PetscCall(PKDMDAPlacementCompute(2, M, DMDA_STENCIL_STAR, 1, 1, 2, 2, NULL, &pl));
    PetscCall(PKDMDAPlacementRankNode(&pl, 3, &node, &slot));
    PetscCall(PKDMDACommCreateNodeAware(PETSC_COMM_WORLD, 2, M, DMDA_STENCIL_STAR, 1, NULL, &nc, procs_out, NULL));
    PetscCallMPI(MPI_Comm_free(&nc));
    PetscCall(DMDACreateNodeAware(PETSC_COMM_WORLD, 2, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DMDA_STENCIL_STAR, 64, 64, 1, 1, 1, &da));
    PetscCall(DMDestroy(&da));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "placement: %" PetscInt_FMT " nodes, %" PetscInt_FMT " ranks per node; default grid %" PetscInt_FMT "x%" PetscInt_FMT ", placed off-node bytes %lld; rank 3 on node %" PetscInt_FMT "; halo off-node messages %lld\n", pl.nnodes, pl.ppn, procs[0], procs[1],
                          (long long)pl.bytes_off, node, (long long)hc.msgs_off_total));
  }
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscCall(VecDestroy(&b));
  PetscCall(MatDestroy(&A));
  PetscCall(PipeKrylovFinalizePackage());
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "installed pipekrylov API works\n"));
  PetscCall(PetscFinalize());
  return 0;
}

static const char help[] = "Halo counts of a DMDA operator (PKMatGetHaloCounts) against the placement model, default or node-aware.\n"
                           "  -dim 2|3 -M -N -P   grid (default 2-D 64 x 64)\n"
                           "  -stencil star|box    DMDA stencil (the operator's pattern is the DMDA's, from DMCreateMatrix)\n"
                           "  -nodeaware           place with PKDMDACommCreateNodeAware\n"
                           "  -da_processors_x/y/z fix the process grid (both layouts)\n"
                           "Nodes: -ksp_perf_node_size k, else MPI_COMM_TYPE_SHARED.\n\n";

#include <pipekrylov.h>

int main(int argc, char **argv)
{
  PetscInt        dim = 2, M[3] = {64, 64, 1}, procs[3] = {PETSC_DECIDE, PETSC_DECIDE, PETSC_DECIDE}, got[3], mine[3];
  PetscBool       nodeaware = PETSC_FALSE, box = PETSC_FALSE, ok = PETSC_TRUE;
  char            st[16] = "star";
  DMDAStencilType stencil;
  PKPlacement     pl;
  PKHaloCounts    hc;
  DM              da;
  Mat             A;
  MPI_Comm        comm, nc = MPI_COMM_NULL;
  PetscMPIInt     size;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  comm = PETSC_COMM_WORLD;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-dim", &dim, NULL));
  if (dim == 3) M[2] = 64;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-M", &M[0], NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-N", &M[1], NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-P", &M[2], NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-stencil", st, sizeof(st), NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-nodeaware", &nodeaware, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-da_processors_x", &procs[0], NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-da_processors_y", &procs[1], NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-da_processors_z", &procs[2], NULL));
  PetscCall(PetscStrcmp(st, "box", &box));
  stencil = box ? DMDA_STENCIL_BOX : DMDA_STENCIL_STAR;

  /* the placement (its default-layout counts are the model for the plain DMDA too) */
  PetscCall(PKDMDACommCreateNodeAware(comm, dim, M, stencil, 1, procs, &nc, mine, &pl));
  if (nodeaware) comm = nc;
  else {
    for (PetscInt d = 0; d < 3; d++) mine[d] = procs[d];
  }
  if (dim == 2) PetscCall(DMDACreate2d(comm, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, stencil, M[0], M[1], mine[0], mine[1], 1, 1, NULL, NULL, &da));
  else PetscCall(DMDACreate3d(comm, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, DM_BOUNDARY_NONE, stencil, M[0], M[1], M[2], mine[0], mine[1], mine[2], 1, 1, NULL, NULL, NULL, &da));
  PetscCall(DMSetFromOptions(da));
  PetscCall(DMSetUp(da));
  PetscCall(DMCreateMatrix(da, &A));
  PetscCall(MatAssemblyBegin(A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(A, MAT_FINAL_ASSEMBLY));
  PetscCall(PKMatGetHaloCounts(A, NULL, &hc));
  PetscCall(DMDAGetInfo(da, NULL, NULL, NULL, NULL, &got[0], &got[1], &got[2], NULL, NULL, NULL, NULL, NULL, NULL));

  PetscCall(PetscPrintf(comm, "%s layout: grid %" PetscInt_FMT "x%" PetscInt_FMT "x%" PetscInt_FMT ", %d ranks, %d nodes\n", nodeaware ? "node-aware" : "default", got[0], got[1], got[2], (int)size, (int)hc.nnodes));
  PetscCall(PetscPrintf(comm, "halo: offnode_msgs %" PetscInt64_FMT " offnode_bytes %" PetscInt64_FMT " onnode_msgs %" PetscInt64_FMT " onnode_bytes %" PetscInt64_FMT " offnode_msg_bytes %" PetscInt64_FMT "..%" PetscInt64_FMT " max_msgs %" PetscInt_FMT " max_offnode_sends %" PetscInt_FMT " max_node_offnode_bytes %" PetscInt64_FMT "\n", hc.msgs_off_total, hc.bytes_off_total, hc.msgs_on_total, hc.bytes_on_total, hc.msg_bytes_off_min, hc.msg_bytes_off_max, hc.msgs_max, hc.send_msgs_off_max, hc.bytes_off_node_max));
  if (!pl.placed) PetscCall(PetscPrintf(comm, "placement note: %s\n", pl.note));
  {
    /* the model: the counts the placement predicted for this layout */
    PetscInt64      mo = nodeaware ? pl.msgs_off : pl.def_msgs_off, bo = nodeaware ? pl.bytes_off : pl.def_bytes_off;
    PetscInt64      mn = nodeaware ? pl.msgs_on : pl.def_msgs_on, bn = nodeaware ? pl.bytes_on : pl.def_bytes_on;
    const PetscInt *pg = nodeaware ? pl.procs : pl.def_procs;
    PetscCall(PetscPrintf(comm, "model: offnode_msgs %" PetscInt64_FMT " offnode_bytes %" PetscInt64_FMT " onnode_msgs %" PetscInt64_FMT " onnode_bytes %" PetscInt64_FMT " grid %" PetscInt_FMT "x%" PetscInt_FMT "x%" PetscInt_FMT " block %" PetscInt_FMT "x%" PetscInt_FMT "x%" PetscInt_FMT "\n", mo, bo, mn, bn, pg[0], pg[1], pg[2], pl.block[0], pl.block[1], pl.block[2]));
    if (mo != hc.msgs_off_total || bo != hc.bytes_off_total || mn != hc.msgs_on_total || bn != hc.bytes_on_total) ok = PETSC_FALSE;
    for (PetscInt d = 0; d < dim; d++)
      if (pg[d] != got[d]) ok = PETSC_FALSE;
  }
  PetscCall(PetscPrintf(comm, "%s\n", ok ? "model matches the operator" : "MISMATCH between model and operator"));
  if (nodeaware) {
    /* the guard of the placement: never more halo bytes in all than PETSc's default grid (docs/algorithms.md 8) */
    const PetscInt64 td = pl.def_bytes_on + pl.def_bytes_off, tp = pl.bytes_on + pl.bytes_off;
    PetscCall(PetscPrintf(comm, "total halo bytes: default %" PetscInt64_FMT ", placed %" PetscInt64_FMT ": %s\n", td, tp, tp <= td ? "not more" : "MORE"));
    if (tp > td) ok = PETSC_FALSE;
  }
  PetscCall(MatDestroy(&A));
  PetscCall(DMDestroy(&da));
  PetscCallMPI(MPI_Comm_free(&nc));
  PetscCall(PetscFinalize());
  return ok ? 0 : 1;
}

/*
   What the files of src/dm share and nobody else sees: the node-aware search that nodeaware.c applies, the DMDA's
   partition rule, and the state of the topology-aware search (built by topoplace.c, searched by toposearch.c).
*/
#ifndef PK_DMIMPL_H
#define PK_DMIMPL_H

#include <pipekrylov/private/pkplace.h>
#include <pipekrylov/private/pkcompat.h>

/* Local width of part i of M points split in m parts: PETSc's DMDA rule, lx[i] = M/m + (i < M % m) */
static inline PetscInt PKDMDAWidth(PetscInt M, PetscInt m, PetscInt i)
{
  return M / m + ((M % m) > i);
}

/* The node-aware search (placement.c). rank_node (size ranks) gives the default layout's nodes; NULL: rank / ppn.
   ppn = 0: the nodes differ in size (the default layout is kept). */
PETSC_INTERN PetscErrorCode PKPlacementSearch(PetscInt dim, const PetscInt M[], DMDAStencilType, PetscInt s, PetscInt dof, PetscInt nnodes, PetscInt ppn, PetscMPIInt size, const PetscMPIInt rank_node[], const PetscInt given[], PKPlacement *);

/* The topology-aware search: blocks, the bytes between them, and an assignment of blocks to leaf switches */
typedef struct {
  /* the tree, as far as the search needs it */
  PetscInt nsw, *par, *lev; /* [nsw]: parent (-1: a root) and level of each switch */
  /* the blocks and the bytes between them per ghost update: directed edges from -> to, one per ordered pair */
  PetscInt    B, ne, *efrom, *eto, *ioff, *inc; /* inc[ioff[g] .. ioff[g + 1]): the edges at block g */
  PetscReal  *ew;
  PetscInt64 *csum; /* [3 B]: the sums of the block's positions' coordinates (its centre, times its size) */
  /* the leaves that hold nodes of the allocation: switch and node count of each; ordinal of each switch (-1) */
  PetscInt nl, *lsw, *lcap, *lord;
  /* an assignment: the leaf (ordinal) of each block; loads per uplink direction, their sum and largest */
  PetscInt  *gl;
  PetscReal *load, total, busy;
  PetscInt64 steps;
} PKSearch;

/* Above this many blocks the exhaustive search is not tried (its recursion is one level per block, and it could
   not finish within any budget anyway) */
#define PK_TOPO_EXHAUSTIVE_BLOCKS 64

PETSC_INTERN void           PKEvaluate(PKSearch *);
PETSC_INTERN PetscErrorCode PKSearchDestroy(PKSearch *);
PETSC_INTERN PetscErrorCode PKSearchExhaustive(PKSearch *, PetscInt64 maxsteps, PetscReal nat, PetscReal nab, PetscBool *found, PetscBool *finished);
PETSC_INTERN PetscErrorCode PKSearchHeuristic(PKSearch *, PetscInt root, PetscReal nat, PetscReal nab, PetscBool *found);

#endif

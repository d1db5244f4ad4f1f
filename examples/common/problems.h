/*
   Model problems shared by the examples, the tests and the benchmarks.

     poisson27  3-D 27-point Poisson on a DMDA, sized by rows per rank (the papers' benchmark, 000 section 3)
     laplace2d  2-D 5-point Laplacian on a DMDA
     varcoef    2-D variable-coefficient diffusion -div(k grad u), k jumping by 1e4 between layers (SPD)
     convdiff   2-D convection-diffusion -eps lap u + (w . grad) u, upwinded (non-symmetric); w = wind (1/2 + y, 1/4 + x/2),
                or the recirculating w = wind (y - 1/2, 1/2 - x) with -rotating
     indefinite 2-D Laplacian shifted by -sigma I (symmetric indefinite)
     nonsym     2-D Laplacian plus a skew part (non-symmetric, positive real part)

   Options (with the given prefix): -problem <name>, -n <points per direction> (2-D) , -rows_per_rank <k> (poisson27),
   -sigma (indefinite), -eps, -wind and -rotating (convdiff), -contrast (varcoef), -nodeaware (node-aware DMDA on a
   reordered communicator: build the KSP on PetscObjectComm((PetscObject)A)).
*/
#ifndef PK_PROBLEMS_H
#define PK_PROBLEMS_H

#include <petscdmda.h>
#include <petscksp.h>

typedef struct {
  char      name[64];
  DM        da;     /* the grid */
  Mat       A;      /* the operator */
  Vec       b;      /* right-hand side, A xexact */
  Vec       xexact; /* the exact solution, smooth */
  PetscBool spd;    /* symmetric positive definite */
} PKProblem;

PetscErrorCode PKProblemCreate(MPI_Comm, const char[], PKProblem *);
PetscErrorCode PKProblemDestroy(PKProblem *);
PetscErrorCode PKProblemError(PKProblem *, Vec, PetscReal *);

#endif

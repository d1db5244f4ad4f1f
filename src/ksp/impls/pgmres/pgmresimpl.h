/*
   pgmres's private data: the basis, and the Hessenberg least-squares problem (pgmreshess.c) that pgmres owns
   (PETSc's GMRES internals are not exported).
*/
#ifndef PKPGMRESIMPL_H
#define PKPGMRESIMPL_H

#include <pipekrylov/private/pkkspimpl.h>

/* The least-squares problem of one restart cycle of GMRES(m): the (m+1) x m Hessenberg matrix, reduced column by
   column to upper triangular form by Givens rotations, and the rotated right-hand side beta e_1. Column j has rows
   0..j+1 only: columns are packed (column j starts at j (j + 3) / 2) and allocated as the cycle reaches them
   (PKHessEnsure), so that a large restart costs only the columns a solve uses, as PETSc's GMRES allocates its
   basis in blocks. */
typedef struct {
  PetscInt     m;    /* restart length: columns 0..m-1 */
  PetscInt     ncol; /* columns allocated in hh and hes */
  PetscScalar *hh;   /* columns as they are filled; finished columns are rotated to upper triangular form */
  PetscScalar *hes;  /* finished columns before rotation (pgmres's basis correction needs them) */
  PetscScalar *rs;   /* rotated right-hand side, m + 1 entries used */
  PetscScalar *cc;   /* rotation cosines */
  PetscScalar *ss;   /* rotation sines */
  PetscScalar *y;    /* least-squares solution */
} PKHess;

#define PKHOFF(j)      (((size_t)(j) * ((size_t)(j) + 3)) / 2)
#define PKHH(h, i, j)  ((h)->hh[PKHOFF(j) + (size_t)(i)])
#define PKHES(h, i, j) ((h)->hes[PKHOFF(j) + (size_t)(i)])

PETSC_INTERN PetscErrorCode PKHessCreate(PetscInt, PKHess *);
PETSC_INTERN PetscErrorCode PKHessEnsure(PKHess *, PetscInt);
PETSC_INTERN PetscErrorCode PKHessDestroy(PKHess *);
PETSC_INTERN PetscErrorCode PKHessStart(PKHess *, PetscReal);
PETSC_INTERN PetscErrorCode PKHessFinishColumn(PKHess *, PetscInt, PetscReal, PetscBool *, PetscBool *, PetscReal *);
PETSC_INTERN PetscErrorCode PKHessSolve(PKHess *, PetscInt, PetscInt *);

/* Room for the eigenvalue and singular value estimates of one cycle's Hessenberg matrix (pgmreseig.c), allocated at
   set-up when they are requested */
typedef struct {
  PetscInt     m;       /* restart length it was allocated for (0: none) */
  PetscScalar *R;       /* m x m copy that LAPACK overwrites */
  PetscScalar *work;    /* 5 m */
  PetscReal   *rwork;   /* 5 m: singular values, then complex LAPACK's real work */
  PetscReal   *wr, *wi; /* real and imaginary parts of the eigenvalues */
  PetscScalar *w;       /* the eigenvalues (complex scalars) */
  PetscInt    *perm;    /* their order by real part */
} PKHessEig;

typedef struct {
  KSP_PK       pk;           /* must be first */
  PetscInt     max_k;        /* restart length asked for (-ksp_gmres_restart) */
  PetscInt     m;            /* the cycle length used, m: max_k, capped at set-up at the problem's size (a Krylov space of
                                a system with N unknowns has at most N dimensions), so that memory follows the need */
  PetscReal    haptol;       /* happy breakdown tolerance (-ksp_gmres_haptol) */
  PetscReal    breakdowntol; /* restart check of the recursive against the true residual (-ksp_gmres_breakdown_tolerance) */
  Vec         *V;            /* basis V[0..m] (m + 1 slots): V[j+1] = Op V[j] while V[j] is still being orthogonalised */
  PetscInt     nV;           /* basis vectors allocated, V[0..nV-1]; more are added in blocks as a cycle needs them */
  Vec        **Vblock;       /* the blocks of VecDuplicateVecs() that V[] points into, nblock of them */
  PetscInt    *Vblock_n;     /* vectors in each block */
  PetscInt     nblock;
  PKHess       hs;
  PetscScalar *coef; /* kernel coefficients, 2 (m + 2) */
  PKMultiWork  mw;
  PetscInt     col;      /* last finished Hessenberg column of the cycle under way; -1: ksp->vec_sol is current */
  PetscReal    rnorm0;   /* residual norm at the start of the cycle */
  PetscInt     nfalse;   /* last solve: convergence claims of the recursive residual refuted by the true one */
  Vec          sol_temp; /* KSPBuildSolution() target when the caller gives none */
  PetscInt     eigcols;  /* finished Hessenberg columns of the last cycle that has any, for the estimates */
  PKHessEig    eig;
  PetscBool    preallocate;                /* KSPGMRESSetPreAllocateVectors(): the whole basis at set-up (pgmresapi.c) */
  PetscErrorCode (*orthog)(KSP, PetscInt); /* KSPGMRESSetOrthogonalization(): recorded, no effect (pgmresapi.c) */
  KSPGMRESCGSRefinementType cgstype;       /* KSPGMRESSetCGSRefinementType(): recorded, no effect */
} KSP_PKPGMRES;

#define PGMRES_BASIS_BLOCK 32                                                 /* basis vectors allocated at set-up and at least per later block */
PETSC_INTERN PetscErrorCode PGMRESEnsureBasis(KSP, KSP_PKPGMRES *, PetscInt); /* pgmresbasis.c */
PETSC_INTERN PetscErrorCode PGMRESComposeGMRESAPI(KSP, PetscBool);
PETSC_INTERN PetscErrorCode PGMRESSetFromOptionsGMRESAPI(KSP, PetscOptionItems *);
PETSC_INTERN PetscErrorCode PGMRESViewGMRESAPI(KSP, PetscViewer);

PETSC_INTERN PetscErrorCode PGMRESEigSetUp(KSP, KSP_PKPGMRES *);
PETSC_INTERN PetscErrorCode PGMRESEigDestroy(KSP_PKPGMRES *);
PETSC_INTERN PetscErrorCode KSPComputeExtremeSingularValues_PKPGMRES(KSP, PetscReal *, PetscReal *);
PETSC_INTERN PetscErrorCode KSPComputeEigenvalues_PKPGMRES(KSP, PetscInt, PetscReal *, PetscReal *, PetscInt *);

#endif

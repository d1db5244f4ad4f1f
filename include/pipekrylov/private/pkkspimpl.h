/*
   What the six pipekrylov solvers share (src/ksp/utils): the common part of their KSP data, the chunk driver for
   fused vector kernels, the multi-vector kernels. The reductions with MPI_Test progress and the chunked SpMV they
   use are the core's (pkcore.h, src/core).

   Every solver's data struct starts with a KSP_PK member, so shared code can reach it as (KSP_PK *)ksp->data.
*/
#ifndef PKKSPIMPL_H
#define PKKSPIMPL_H

#include <pipekrylov.h>
#include <petsc/private/kspimpl.h>
#include <pipekrylov/private/pkcore.h>

/* ------------------------------------------------------------------------------------------------------------ */
/* Chunk driver: run kernel(start, end, ctx) over [0, n) in nchunks pieces, calling PKReduceTest between them. */
typedef PetscErrorCode (*PKChunkKernel)(PetscInt, PetscInt, void *);
PETSC_INTERN PetscErrorCode PKChunkRun(PetscInt, PetscInt, PKReduce *, PKChunkKernel, void *);

/* ------------------------------------------------------------------------------------------------------------ */
/* Fused vector kernel: updates w <- a x + b y + c w (y may be NULL) in order, then local dots (x, y), one pass */
#define PK_FUSED_MAX 16
typedef struct {
  Vec         w;
  PetscScalar a;
  Vec         x;
  PetscScalar b;
  Vec         y;
  PetscScalar c;
} PKAxpbypcz;
typedef struct {
  Vec x, y;
} PKDot;

/* ------------------------------------------------------------------------------------------------------------ */
/* Multi-vector kernels (src/ksp/utils/multivec.c): y <- alpha y + sum_k a_k x_k over many x (MAXPY) and local
   multi-dots (x, y_k), fused into one pass over memory. Used by pgmres's Gram-Schmidt step. */
#define PK_MULTI_MAXOPS 4 /* updates, and multi-dots, per call */
typedef struct {
  Vec                y;     /* target; not one of its own x */
  PetscScalar        alpha; /* 0: y is overwritten, not read */
  PetscInt           n;
  const PetscScalar *a;
  const Vec         *x;
} PKMaxpy;
typedef struct {
  Vec          x;
  PetscInt     n;
  const Vec   *y;
  PetscScalar *out; /* out[k] = local (x, y[k]) */
} PKMDot;
/* Bookkeeping room, allocated at set-up so that the kernels do not allocate inside iteration loops */
typedef struct {
  PetscInt            nvmax, nrmax; /* distinct vectors and vector references per call */
  Vec                *v;
  PetscBool          *write;
  PetscScalar       **arr;
  PetscInt           *ridx;
  const PetscScalar **ref;
} PKMultiWork;

/* ------------------------------------------------------------------------------------------------------------ */
/* The Lanczos tridiagonal a CG-family solver builds from its coefficients for eigenvalue and singular value
   estimates (pkcgimpl.h, src/ksp/utils/cglanczos.c); NULL unless they were requested */
typedef struct _n_PKLanczos *PKLanczos;

/* ------------------------------------------------------------------------------------------------------------ */
/* The common part of every pipekrylov solver's data */
typedef struct _n_KSP_PK {
  PetscInt    chunks;                                     /* -ksp_pipe_chunks: pieces the overlapped work is split into (1 = no MPI_Test) */
  PKReduce    red;                                        /* this solver's reductions */
  PKSpMV      spmv;                                       /* the operator, chunked where possible */
  Mat         spmv_mat;                                   /* the operator spmv was built for */
  PKRec       rec;                                        /* recorder of the solve under way, NULL when monitoring is off */
  const char *description;                                /* one line for -ksp_view */
  PetscBool   replaces;                                   /* this type replaces a PETSc type of the same name */
  PetscReal   true_rnorm;                                 /* true residual norm at exit (pipelined solvers), -1 if not computed */
  PetscBool   needs_spd;                                  /* a CG-family solver: symmetric positive definite operator and preconditioner */
  PetscBool   check_symmetry;                             /* -ksp_pipe_check_symmetry: test the operator with MatIsSymmetric at set-up */
  PetscReal   symmetry_tol;                               /* tolerance of that test */
  PKLanczos   lanczos;                                    /* a CG-family solver asked for eigenvalue estimates (ksp->calc_sings): its tridiagonal */
  PetscBool   recurred;                                   /* CG family: r and its products are recurred (nbpcg, pipecg, pipe2cg): the tridiagonal
                                 ends at their rounding level (pkcgimpl.h) */
  PetscErrorCode (*check_estimates)(KSP);                 /* CG family, optional: refuses a configuration that cannot judge its estimates */
  PetscErrorCode (*solve)(KSP, struct _n_KSP_PK *);       /* the type's iteration, between PKSolveBegin and PKSolveEnd */
  PetscErrorCode (*after_solve)(KSP, struct _n_KSP_PK *); /* optional, after PKSolveEnd (e.g. PKTrueResidualAtExit) */
  /* a family's own steps at the start and end of every solve and at reset (the CG family: its Lanczos tridiagonal,
     pkcgimpl.h), set by the family so that the common code calls none of it by name */
  PetscErrorCode (*family_begin)(KSP, struct _n_KSP_PK *);
  PetscErrorCode (*family_end)(KSP, struct _n_KSP_PK *);
  PetscErrorCode (*family_reset)(struct _n_KSP_PK *);
} KSP_PK;

PETSC_INTERN PetscErrorCode PKCreate_Common(KSP, KSP_PK *, const char *, PetscBool, PetscErrorCode (*)(KSP, KSP_PK *));
PETSC_INTERN PetscErrorCode PKSetUp_Common(KSP, KSP_PK *, PetscInt);
PETSC_INTERN PetscErrorCode PKReset_Common(KSP, KSP_PK *);
PETSC_INTERN PetscErrorCode PKDestroy_Common(KSP, KSP_PK *);
PETSC_INTERN PetscErrorCode PKSetFromOptions_Common(KSP, KSP_PK *, PetscOptionItems *);
PETSC_INTERN PetscErrorCode PKView_Common(KSP, KSP_PK *, PetscViewer);
PETSC_INTERN PetscErrorCode PKSolveBegin(KSP, KSP_PK *);
PETSC_INTERN PetscErrorCode PKSolveEnd(KSP, KSP_PK *);

PETSC_INTERN PetscErrorCode PKVecFused(KSP_PK *, PetscInt, const PKAxpbypcz[], PetscInt, const PKDot[], PetscScalar[]);
PETSC_INTERN PetscErrorCode PKMultiWorkCreate(PetscInt, PetscInt, PKMultiWork *);
PETSC_INTERN PetscErrorCode PKMultiWorkDestroy(PKMultiWork *);
PETSC_INTERN PetscErrorCode PKVecMaxpyMDot(KSP_PK *, PKMultiWork *, PetscInt, const PKMaxpy[], PetscInt, const PKMDot[]);
PETSC_INTERN PetscErrorCode PKVecMDotLocal(KSP_PK *, PKMultiWork *, Vec, PetscInt, const Vec[], PetscScalar[]);
PETSC_INTERN PetscErrorCode PKVecMAXPYLocal(KSP_PK *, PKMultiWork *, Vec, PetscScalar, PetscInt, const PetscScalar[], const Vec[]);

/* y = A^T x in a KSPSolveTranspose() (MatMultTranspose: the chunked SpMV multiplies by A only) */
PETSC_INTERN PetscErrorCode PKMatMultTranspose_Private(KSP, KSP_PK *, Vec, Vec);

/* y = A x with the solver's operator (chunked, progressing the outstanding reduction if there is one); A^T x in a
   KSPSolveTranspose(), as PETSc's KSP_MatMult() */
static inline PetscErrorCode PKMatMult(KSP ksp, KSP_PK *pk, Vec x, Vec y)
{
  if (ksp->transpose_solve) return PKMatMultTranspose_Private(ksp, pk, x, y);
  return PKSpMVApply(pk->spmv, x, y, pk->chunks, &pk->red, pk->rec);
}

/* y = M x with the solver's preconditioner (M^T x in a KSPSolveTranspose()); an MPI_Test before and after when a
   reduction is outstanding */
PETSC_INTERN PetscErrorCode PKPCApply(KSP, KSP_PK *, Vec, Vec);

/* The norm a KSPNormType asks for, from the local squares (r,r), (z,z) and (r,z) already reduced */
PETSC_INTERN PetscErrorCode PKNormFromDots(KSP, PetscScalar, PetscScalar, PetscScalar, PetscReal *);

/* ||b - A x|| in the solver's norm type (preconditioned: ||M(b - A x)||); the reference the pipelined solvers check */
PETSC_INTERN PetscErrorCode PKTrueResidualNorm(KSP, KSP_PK *, Vec, Vec, Vec, PetscReal *);
PETSC_INTERN PetscErrorCode PKTrueResidualAtExit(KSP, KSP_PK *, Vec, Vec);

/* Log the norm, call the monitors and the convergence test for iteration ksp->its */
PETSC_INTERN PetscErrorCode PKConvergenceStep(KSP, PetscReal);

#endif

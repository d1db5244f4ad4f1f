/*
   What the six pipekrylov solvers share (src/ksp/utils, src/core): the common part of their KSP data, reductions that are
   progressed by MPI_Test between chunks of overlapped work, the chunked SpMV and the chunk driver for fused
   vector kernels.

   Every solver's data struct starts with a KSP_PK member, so shared code can reach it as (KSP_PK *)ksp->data.
*/
#ifndef PKKSPIMPL_H
#define PKKSPIMPL_H

#include <pipekrylov.h>
#include <petsc/private/kspimpl.h>
#include <pipekrylov/private/pkrecimpl.h>

/* ------------------------------------------------------------------------------------------------------------ */
/* Reductions. One object per solver; it owns its MPI request (PETSc's split-reduction request is private, and a
   solver that polls with MPI_Test needs its own). At most one non-blocking reduction is outstanding at a time. */
typedef struct {
  MPI_Comm     comm;
  PetscMPIInt  size;
  PetscInt     nmax;   /* capacity of local[] and global[] */
  PetscInt     n;      /* values in the reduction under way */
  PetscScalar *local;  /* filled by the solver before Begin */
  PetscScalar *global; /* valid after End / Allreduce */
  MPI_Request  req;
  PetscBool    active; /* an MPI_Iallreduce is outstanding */
  PetscBool    done;   /* MPI_Test has seen it complete */
  PetscInt     ntests; /* MPI_Test calls for the reduction under way */
  PetscBool    poll;   /* call MPI_Test at all (off with -ksp_pipe_chunks 1: the reduction only moves in its wait) */
  PKRec        rec;    /* recorder of the solve under way (NULL when off) */
  /* counts for the solve under way (reset by PKSolveBegin) */
  PetscInt nblocking;  /* blocking allreduces */
  PetscInt nnonblock;  /* non-blocking reductions */
  PetscInt nearly;     /* non-blocking reductions that completed before their wait */
  PetscInt ntesttotal; /* MPI_Test calls */
} PKReduce;

PETSC_INTERN PetscErrorCode PKReduceCreate(MPI_Comm, PetscInt, PKReduce *);
PETSC_INTERN PetscErrorCode PKReduceEnsure(PKReduce *, PetscInt);
PETSC_INTERN PetscErrorCode PKReduceDestroy(PKReduce *);
PETSC_INTERN PetscErrorCode PKReduceAllreduce(PKReduce *, PetscInt);
PETSC_INTERN PetscErrorCode PKReduceBegin(PKReduce *, PetscInt);
PETSC_INTERN PetscErrorCode PKReduceEnd(PKReduce *);
PETSC_INTERN PetscErrorCode PKReduceTest_Private(PKReduce *);

/* Progress the outstanding reduction, if any. Cheap enough to call between chunks of work. */
static inline PetscErrorCode PKReduceTest(PKReduce *red)
{
  if (!red || !red->poll || !red->active || red->done) return 0;
  return PKReduceTest_Private(red);
}

/* ------------------------------------------------------------------------------------------------------------ */
/* Chunked SpMV. For MATSEQAIJ and MATMPIAIJ the local block is multiplied in row chunks with an MPI_Test between
   them, and the halo exchange is driven here; the result is bit-for-bit that of MatMult. Other matrix types fall
   back to MatMult with an MPI_Test before and after. */
typedef struct _p_PKSpMV *PKSpMV;

PETSC_INTERN PetscErrorCode PKSpMVCreate(Mat, PKSpMV *);
PETSC_INTERN PetscErrorCode PKSpMVDestroy(PKSpMV *);
PETSC_INTERN PetscErrorCode PKSpMVApply(PKSpMV, Vec, Vec, PetscInt, PKReduce *, PKRec);
PETSC_INTERN PetscErrorCode PKSpMVIsChunked(PKSpMV, PetscBool *);
PETSC_INTERN PetscErrorCode PKSpMVGetHalo(PKSpMV, VecScatter *);
PETSC_INTERN PetscErrorCode PKSpMVGetReason(PKSpMV, const char **);

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
/* The common part of every pipekrylov solver's data */
typedef struct _n_KSP_PK {
  PetscInt    chunks;       /* -ksp_pipe_chunks: pieces the overlapped work is split into (1 = no MPI_Test) */
  PKReduce    red;          /* this solver's reductions */
  PKSpMV      spmv;         /* the operator, chunked where possible */
  Mat         spmv_mat;     /* the operator spmv was built for */
  PKRec       rec;          /* recorder of the solve under way, NULL when monitoring is off */
  const char *description;  /* one line for -ksp_view */
  PetscBool   replaces;     /* this type replaces a PETSc type of the same name */
  PetscReal   true_rnorm;   /* true residual norm at exit (pipelined solvers), -1 if not computed */
  PetscBool   needs_spd;      /* a CG-family solver: symmetric positive definite operator and preconditioner */
  PetscBool   check_symmetry; /* -ksp_pipe_check_symmetry: test the operator with MatIsSymmetric at set-up */
  PetscReal   symmetry_tol;   /* tolerance of that test */
  PetscErrorCode (*solve)(KSP, struct _n_KSP_PK *); /* the type's iteration, between PKSolveBegin and PKSolveEnd */
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

/* y = A x with the solver's operator (chunked, progressing the outstanding reduction if there is one) */
static inline PetscErrorCode PKMatMult(KSP ksp, KSP_PK *pk, Vec x, Vec y)
{
  (void)ksp; /* the same call shape as PKPCApply */
  return PKSpMVApply(pk->spmv, x, y, pk->chunks, &pk->red, pk->rec);
}

/* y = M x with the solver's preconditioner; an MPI_Test before and after when a reduction is outstanding */
PETSC_INTERN PetscErrorCode PKPCApply(KSP, KSP_PK *, Vec, Vec);

/* The norm a KSPNormType asks for, from the local squares (r,r), (z,z) and (r,z) already reduced */
PETSC_INTERN PetscErrorCode PKNormFromDots(KSP, PetscScalar, PetscScalar, PetscScalar, PetscReal *);

/* ||b - A x|| in the solver's norm type (preconditioned: ||M(b - A x)||); the reference the pipelined solvers check */
PETSC_INTERN PetscErrorCode PKTrueResidualNorm(KSP, KSP_PK *, Vec, Vec, Vec, PetscReal *);
PETSC_INTERN PetscErrorCode PKTrueResidualAtExit(KSP, KSP_PK *, Vec, Vec);

/* Log the norm, call the monitors and the convergence test for iteration ksp->its */
PETSC_INTERN PetscErrorCode PKConvergenceStep(KSP, PetscReal);

PETSC_INTERN PetscLogEvent PK_Event_SpMV, PK_Event_Reduce, PK_Event_Wait, PK_Event_VecFused, PK_Event_Replace;

#endif

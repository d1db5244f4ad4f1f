/*
   The neutral core (src/core): what the solvers (src/ksp) and the instrumentation (src/perf) both stand on.

     reductions   global sums with MPI_Test progress (src/core/reduce.c)
     chunked SpMV the operator in row chunks with MPI_Test between them, bit-for-bit MatMult (src/core/spmv.c)
     phase marks  the inline marks of pkrecimpl.h and the observer they report to (src/core/observer.c)
     halo counts  what a process sends in one product with a Mat, for any Mat with a VecScatter halo
     events       pipekrylov's logging events (registered by src/pipekrylov.c)

   Nothing here knows a KSP type or the monitor: the monitor makes itself known with PKObserverSet().
*/
#ifndef PKCORE_H
#define PKCORE_H

#include <pipekrylov.h>
#include <pipekrylov/private/pkrecimpl.h>
#include <pipekrylov/private/pkcost.h>

/* ------------------------------------------------------------------------------------------------------------ */
/* Reductions. One object per solver; it owns its MPI request (PETSc's split-reduction request is private, and a
   solver that polls with MPI_Test needs its own). At most one non-blocking reduction is outstanding at a time. */

/* How a non-blocking sum is done (-ksp_pipe_iallreduce): the MPI library's MPI_Iallreduce, or recursive doubling on
   point-to-point messages advanced by the progress calls (src/core/reduce_rd.c; the default under SimGrid, whose
   MPI_Iallreduce sends P - 1 messages per rank) */
typedef enum {
  PK_IALLREDUCE_MPI,
  PK_IALLREDUCE_RD
} PKIallreduceType;

PETSC_INTERN const char *const PKIallreduceTypes[];
#if defined(PK_SMPI)
  #define PK_IALLREDUCE_DEFAULT PK_IALLREDUCE_RD
#else
  #define PK_IALLREDUCE_DEFAULT PK_IALLREDUCE_MPI
#endif

typedef struct {
  MPI_Comm     comm;          /* PETSc's inner communicator (MPI_COMM_NULL until the first use) */
  PetscMPIInt  tag;           /* a tag of its own on it */
  PetscMPIInt  rank, newrank; /* newrank: place in the power-of-two part, -1 for a rank that folded */
  PetscMPIInt  rem;           /* ranks beyond the largest power of two */
  PetscInt     nrounds;       /* log2 of that power of two */
  PetscInt     step;          /* 0 fold, 1..nrounds the rounds, nrounds + 1 unfold */
  MPI_Request  req[2];        /* the step's messages */
  int          nreq;
  PetscScalar *tmp; /* what the step received */
  PetscInt     ntmp;
} PKReduceRD;

typedef struct {
  MPI_Comm         comm;
  PetscMPIInt      size;
  PetscInt         nmax;   /* capacity of local[] and global[] */
  PetscInt         n;      /* values in the reduction under way */
  PetscScalar     *local;  /* filled by the solver before Begin */
  PetscScalar     *global; /* valid after End / Allreduce */
  MPI_Request      req;
  PetscBool        active; /* an MPI_Iallreduce is outstanding */
  PetscBool        done;   /* MPI_Test has seen it complete */
  PetscInt         ntests; /* MPI_Test calls for the reduction under way */
  PetscBool        poll;   /* call MPI_Test at all (off with -ksp_pipe_chunks 1: the reduction only moves in its wait) */
  PKIallreduceType algo;   /* how the non-blocking sum is done */
  PKReduceRD       rd;     /* its state for PK_IALLREDUCE_RD */
  PKRec            rec;    /* recorder of the solve under way (NULL when off) */
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
PETSC_INTERN PetscErrorCode PKReduceRDBegin(PKReduce *);
PETSC_INTERN PetscErrorCode PKReduceRDProgress(PKReduce *, PetscBool);
PETSC_INTERN PetscErrorCode PKReduceRDDestroy(PKReduce *);

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
PETSC_INTERN PetscErrorCode PKSpMVGetWidth(PKSpMV, PetscInt *, PetscReal[2]);
/* timed applications of each row-kernel width (2 and 4 rows per step) before the faster is kept */
#define PK_SPMV_TRIALS 3

/* ------------------------------------------------------------------------------------------------------------ */
/* The monitor as the core sees it: three functions the instrumentation registers (PKObserverSet) when it is
   present. With none registered every call below does nothing and PKRecGet gives NULL, so the solvers' marks cost
   one predictable branch each. The core never calls into src/perf by name. */
typedef struct {
  PetscErrorCode (*getrec)(KSP, PKRec *);   /* the recorder of this KSP for the solve about to start, or NULL */
  PetscErrorCode (*setfromoptions)(KSP);    /* a pipekrylov KSP's options are being read */
  PetscErrorCode (*view)(KSP, PetscViewer); /* a pipekrylov KSP is being viewed (-ksp_view) */
} PKObserver;

PETSC_INTERN PetscErrorCode PKObserverSet(const PKObserver *);
PETSC_INTERN PetscErrorCode PKObserverSetFromOptions(KSP);
PETSC_INTERN PetscErrorCode PKObserverView(KSP, PetscViewer);

/* The norms a CG method supports (cgnorms.c): the CG types and -ksp_type autocg */
PETSC_INTERN PetscErrorCode PKSetCGNorms(KSP);

/* pipekrylov's logging events: defined in the core, registered by PipeKrylovInitializePackage() */
PETSC_INTERN PetscLogEvent PK_Event_SpMV, PK_Event_Reduce, PK_Event_Wait, PK_Event_VecFused, PK_Event_Replace;

#endif

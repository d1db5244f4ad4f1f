/*
   The recorder's hot-path interface: what a solver calls inside its iteration loop to mark phases.

   A solver holds a PKRec that is NULL when monitoring is off; every call below then returns at once, so the
   instrumentation costs one predictable branch per mark when off. When on, a mark is one clock read and a few
   additions; nothing here allocates, communicates or does I/O.

   Phases: the time between two marks is charged to the phase named by the earlier mark. While a non-blocking
   reduction is outstanding (PKRecOverlapBegin .. PKRecOverlapEnd), all work is charged to PK_PHASE_OVERLAP.
   An iteration's phase times therefore add up exactly to its wall time.
*/
#ifndef PKRECIMPL_H
#define PKRECIMPL_H

#include <petscksp.h>
#include <petsctime.h>

typedef enum {
  PK_PHASE_SPMV,    /* local sparse matrix-vector product (without halo wait) */
  PK_PHASE_PC,      /* preconditioner application */
  PK_PHASE_VEC,     /* vector updates, local dot products, scalar work */
  PK_PHASE_HALO,    /* waiting for the halo exchange of an SpMV */
  PK_PHASE_REDUCE,  /* waiting for a global reduction (blocking, or the wait of a non-blocking one) */
  PK_PHASE_OVERLAP, /* any work done while a non-blocking reduction is outstanding (including MPI_Test) */
  PK_PHASE_N
} PKPhase;

PETSC_INTERN const char *const PKPhaseNames[];

typedef struct _p_PKRec *PKRec;

/* The part of the recorder the inline marks touch; the rest is private to src/perf (pkperfimpl.h) */
typedef struct {
  PetscLogDouble tlast;            /* time of the last mark */
  PKPhase        cur;              /* phase the time since tlast is charged to */
  PetscBool      overlap;          /* a non-blocking reduction is outstanding */
  PetscLogDouble acc[PK_PHASE_N];  /* phase times of the current iteration so far */
  PetscInt       red_state;        /* -1 no reduction waited on in this iteration, 0 waited, 1 done before its wait */
  PetscInt       red_tests;        /* MPI_Test calls made for the reductions of this iteration */
  PetscInt       red_count;        /* reductions finished in this iteration */
  unsigned long long red_mask;     /* bit j set: the j-th of them (j < 64) was complete before its wait */
  /* for the model, per solve (set-up, rows and finish): time by what was really done, also inside an overlap
     window (where acc[] charges everything to overlap), and the operator and preconditioner applications */
  PKPhase        act;              /* what the time since tlast was spent on */
  PetscLogDouble work[PK_PHASE_N]; /* work[PK_PHASE_OVERLAP]: MPI_Iallreduce and MPI_Test calls themselves */
  PetscInt       nspmv, npc;       /* applications of the operator and of the preconditioner */
  /* noise injection (-ksp_perf_noise, src/perf/noise.c): the next detour's arrival; +infinity when off, so that
     a mark pays one compare that never succeeds */
  PetscLogDouble noise_next;
} PKRecHot;

struct _p_PKRec {
  PKRecHot hot;
  void    *priv; /* the monitor context that owns this recorder (src/perf) */
};

/* Serves the detours due by time t (src/perf/noise.c); called only from a compute-phase mark */
PETSC_EXTERN void PKNoiseDetour_Private(PKRec, PetscLogDouble);

static inline void PKRecPhase(PKRec rec, PKPhase ph)
{
  PetscLogDouble t;
  if (!rec) return;
  PetscTime(&t);
  rec->hot.acc[rec->hot.cur] += t - rec->hot.tlast;
  rec->hot.work[rec->hot.act] += t - rec->hot.tlast;
  rec->hot.tlast = t;
  rec->hot.cur   = (rec->hot.overlap && ph != PK_PHASE_REDUCE) ? PK_PHASE_OVERLAP : ph;
  rec->hot.act   = ph;
  /* injected noise: only when entering compute (never a halo or reduction wait, so never inside an MPI call) */
  if (PetscUnlikely(t >= rec->hot.noise_next) && ph <= PK_PHASE_VEC) PKNoiseDetour_Private(rec, t);
}

/* One application of the operator (PK_PHASE_SPMV) or of the preconditioner (PK_PHASE_PC) begins */
static inline void PKRecApply(PKRec rec, PKPhase ph)
{
  if (!rec) return;
  PKRecPhase(rec, ph);
  if (ph == PK_PHASE_SPMV) rec->hot.nspmv++;
  else rec->hot.npc++;
}

/* Called by the reduction layer: start and end of the window in which a reduction is in flight */
static inline void PKRecOverlapBegin(PKRec rec)
{
  if (!rec) return;
  PKRecPhase(rec, PK_PHASE_OVERLAP);
  rec->hot.overlap = PETSC_TRUE;
}

static inline void PKRecOverlapEnd(PKRec rec, PetscBool early, PetscInt ntests)
{
  if (!rec) return;
  rec->hot.overlap = PETSC_FALSE;
  if (rec->hot.red_state != 0) rec->hot.red_state = early ? 1 : 0; /* a late reduction makes the iteration late */
  rec->hot.red_tests += ntests;
  if (early && rec->hot.red_count < 64) rec->hot.red_mask |= 1ULL << rec->hot.red_count;
  rec->hot.red_count++;
}

/* Exported (not PETSC_INTERN) so that code outside the library can mark phases too: the recorder's unit test
   (tests/perfrec.c, a synthetic KSP type) and KSP types of other plugins */
PETSC_EXTERN PetscErrorCode PKRecIterEnd_Private(PKRec, PetscInt);

/* Close the row of iteration `its` (the value ksp->its has after the iteration) and start the next one */
static inline PetscErrorCode PKRecIterEnd(PKRec rec, PetscInt its)
{
  if (!rec) return 0;
  return PKRecIterEnd_Private(rec, its);
}

/* The recorder of this KSP for the solve under way, or NULL when monitoring is off */
PETSC_EXTERN PetscErrorCode PKRecGet(KSP, PKRec *);

#endif

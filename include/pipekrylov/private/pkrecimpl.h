/*
   The phase marks (part of the core, src/core/observer.c): what a solver calls inside its iteration loop to mark
   phases, and the recorder they write to.

   A solver holds a PKRec that is NULL when monitoring is off; every call below then returns at once, so the
   instrumentation costs one predictable branch per mark when off. When on, a mark is one clock read and a few
   additions; nothing here allocates, communicates or does I/O.

   Phases: the time between two marks is charged to the phase named by the earlier mark. While a non-blocking
   reduction is outstanding (PKRecOverlapBegin .. PKRecOverlapEnd), all work is charged to PK_PHASE_OVERLAP.
   An iteration's phase times therefore add up exactly to its wall time.
*/
#ifndef PKRECIMPL_H
#define PKRECIMPL_H

#include <pipekrylov.h>
#include <petsctime.h>

/* PKPhase (the phases) is public: pipekrylov.h */

PETSC_INTERN const char *const PKPhaseNames[];

typedef struct _p_PKRec *PKRec;

/* The part of the recorder the inline marks touch; the rest is private to src/perf (pkperfimpl.h) */
typedef struct {
  PetscLogDouble     tlast;           /* time of the last mark */
  PKPhase            cur;             /* phase the time since tlast is charged to */
  PetscBool          overlap;         /* a non-blocking reduction is outstanding */
  PetscLogDouble     acc[PK_PHASE_N]; /* phase times of the current iteration so far */
  PetscInt           red_state;       /* -1 no reduction waited on in this iteration, 0 waited, 1 done before its wait */
  PetscInt           red_tests;       /* MPI_Test calls made for the reductions of this iteration */
  PetscInt           red_count;       /* reductions finished in this iteration */
  unsigned long long red_mask;        /* bit j set: the j-th of them (j < 64) was complete before its wait */
  /* for the model, per solve (set-up, rows and finish): time by what was really done, also inside an overlap
     window (where acc[] charges everything to overlap), and the operator and preconditioner applications */
  PKPhase        act;              /* what the time since tlast was spent on */
  PetscLogDouble work[PK_PHASE_N]; /* work[PK_PHASE_OVERLAP]: the MPI_Iallreduce calls themselves (PKRecPosted) */
  PetscLogDouble win[PK_PHASE_N];  /* the part of work[] done inside overlap windows (charged to PK_PHASE_OVERLAP) */
  PetscInt       nspmv, npc;       /* applications of the operator and of the preconditioner */
  PetscLogDouble first[2];         /* the first SpMV's and the first PC application's time (0 until a second begins):
                                      PETSc's jacobi sets itself up inside its first PCApply, the others do not */
  /* the progress calls (MPI_Test between the pieces of the work overlapped with a reduction), every 7th of them timed
     (PKRecTestTimed): they are charged to the work they sit in, and the report takes their cost out of it */
  PetscLogDouble test_time;
  PetscInt       test_timed;
  /* the non-blocking reductions' posts (MPI_Iallreduce), each timed (PKRecPosted): charged to the window they open */
  PetscLogDouble post_time;
  PetscInt       post_timed;
  /* noise injection (-ksp_perf_noise): the next detour's arrival; +infinity when off, so that a mark pays one
     compare that never succeeds (the owner sets it; detour serves what is due) */
  PetscLogDouble noise_next;
} PKRecHot;

/* A recorder is the observer's: the marks below write its hot part inline, and the end of an iteration is reported
   through rowend, which the monitor that owns the recorder sets. */
struct _p_PKRec {
  PKRecHot hot;
  PetscErrorCode (*rowend)(PKRec, PetscInt); /* close the row of iteration its (set by the owner) */
  void (*detour)(PKRec, PetscLogDouble);     /* serve the noise detours due by time t (set by the owner, or NULL);
                                                 called only from a mark that enters a compute phase */
  void *priv;                                /* the monitor context that owns this recorder */
};

static inline void PKRecPhase(PKRec rec, PKPhase ph)
{
  PetscLogDouble t, dt;
  if (!rec) return;
  PetscTime(&t);
  dt = t - rec->hot.tlast;
  rec->hot.acc[rec->hot.cur] += dt;
  rec->hot.work[rec->hot.act] += dt;
  rec->hot.win[rec->hot.act] += rec->hot.cur == PK_PHASE_OVERLAP ? dt : 0.0;
  rec->hot.tlast = t;
  rec->hot.cur   = (rec->hot.overlap && ph != PK_PHASE_REDUCE) ? PK_PHASE_OVERLAP : ph;
  rec->hot.act   = ph;
  /* injected noise: only when entering compute (never a halo or reduction wait, so never inside an MPI call) */
  if (PetscUnlikely(t >= rec->hot.noise_next) && ph <= PK_PHASE_VEC && rec->detour) (*rec->detour)(rec, t);
}

/* One application of the operator (PK_PHASE_SPMV) or of the preconditioner (PK_PHASE_PC) begins */
static inline void PKRecApply(PKRec rec, PKPhase ph)
{
  if (!rec) return;
  PKRecPhase(rec, ph);
  if (ph == PK_PHASE_SPMV) {
    if (rec->hot.nspmv++ == 1) rec->hot.first[0] = rec->hot.work[PK_PHASE_SPMV]; /* all of it the first's so far */
  } else if (rec->hot.npc++ == 1) rec->hot.first[1] = rec->hot.work[PK_PHASE_PC];
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

/* Called by the reduction layer right after posting the reduction whose window PKRecOverlapBegin opened: the post
   (MPI_Iallreduce, or the first messages of recursive doubling) took the time since that mark. It is not a small
   cost: between emulated nodes the rank whose post sends pays a TCP send, 9 us, charged before this to the vector
   work of the types that poll and to no term of the others' what-ifs */
static inline void PKRecPosted(PKRec rec)
{
  PetscLogDouble t0;
  if (!rec) return;
  t0 = rec->hot.tlast;
  PKRecPhase(rec, PK_PHASE_OVERLAP); /* one clock read: the post goes to work[PK_PHASE_OVERLAP] */
  rec->hot.post_time += rec->hot.tlast - t0;
  rec->hot.post_timed++;
}

/* Called by the reduction layer: one progress call (MPI_Test) took dt */
static inline void PKRecTestTimed(PKRec rec, PetscLogDouble dt)
{
  if (!rec) return;
  rec->hot.test_time += dt;
  rec->hot.test_timed++;
}

/* Close the row of iteration `its` (the value ksp->its has after the iteration) and start the next one */
static inline PetscErrorCode PKRecIterEnd(PKRec rec, PetscInt its)
{
  if (!rec) return 0;
  return (*rec->rowend)(rec, its);
}

/* The recorder of this KSP for the solve under way, or NULL when monitoring is off (no observer registered, or
   the observer does not record this solve). src/core/observer.c. */
PETSC_INTERN PetscErrorCode PKRecGet(KSP, PKRec *);

#endif

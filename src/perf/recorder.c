/*
   The per-iteration recorder (to be completed by the logging-monitor work): rows of phase times per iteration.
   This first version keeps rows in memory for the solve under way; it is off unless a PKRec is composed with the
   KSP under the name "PKRec".
*/
#include <pipekrylov/private/pkrecimpl.h>

const char *const PKPhaseNames[] = {"spmv", "pc", "vec", "halo", "reduce", "overlap"};

typedef struct {
  PetscInt        n, nalloc;
  PetscLogDouble *t; /* [n][PK_PHASE_N] */
} PKRecRows;

PetscErrorCode PKRecIterEnd_Private(PKRec rec, PetscInt its)
{
  PKRecRows *rows = (PKRecRows *)rec->priv;

  PKRecPhase(rec, rec->hot.cur);
  if (rows->n == rows->nalloc) {
    PetscInt        na = PetscMax(64, 2 * rows->nalloc);
    PetscLogDouble *t;
    PetscCall(PetscMalloc1(na * PK_PHASE_N, &t));
    if (rows->n) PetscCall(PetscArraycpy(t, rows->t, rows->n * PK_PHASE_N));
    PetscCall(PetscFree(rows->t));
    rows->t      = t;
    rows->nalloc = na;
  }
  for (PetscInt k = 0; k < PK_PHASE_N; k++) {
    rows->t[rows->n * PK_PHASE_N + k] = rec->hot.acc[k];
    rec->hot.acc[k]                   = 0;
  }
  rows->n++;
  rec->hot.red_state = -1;
  rec->hot.red_tests = rec->hot.red_count = 0;
  return 0;
}

PetscErrorCode PKRecGet(KSP ksp, PKRec *rec)
{
  PetscContainer c;

  PetscFunctionBegin;
  *rec = NULL;
  PetscCall(PetscObjectQuery((PetscObject)ksp, "PKRec", (PetscObject *)&c));
  if (c) PetscCall(PetscContainerGetPointer(c, (void **)rec));
  PetscFunctionReturn(0);
}
